-- 004_one_energy_job_identity: one definition of per-job energy; jobs
-- keyed by cluster, id and submit time.

-- Per-job energy was computed twice: 001's job_energy (per job and UTC
-- day, idle = utilization below 1 %, filled by RollupJobs and read by no
-- report) and 003's job_gpu_hour (per job, GPU and UTC hour, idle below
-- the refresh's threshold, 5 % by default, as docs/reports.md documents;
-- every report reads it). job_gpu_hour stays the only one. job_energy is
-- dropped, unless it holds job-days that job_gpu_hour does not cover (their
-- samples may be gone, dropped by retention): then it is kept as
-- job_energy_archive, which nothing writes or reads, for the administrator
-- to export or drop.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM job_energy e
               WHERE e.gpu_seconds > 0
                 AND NOT EXISTS (SELECT 1 FROM job_gpu_hour h
                                 WHERE h.job_id = e.job_id
                                   AND h.hour >= (e.day::timestamp AT TIME ZONE 'UTC')
                                   AND h.hour < ((e.day + 1)::timestamp AT TIME ZONE 'UTC'))) THEN
        ALTER TABLE job_energy RENAME TO job_energy_archive;
        ALTER INDEX job_energy_pkey RENAME TO job_energy_archive_pkey;
        ALTER INDEX job_energy_day_idx RENAME TO job_energy_archive_day_idx;
        COMMENT ON TABLE job_energy_archive IS
            'Per-job daily energy as computed before migration 004 (idle below 1 %), kept because job_gpu_hour does not cover all of it. Not maintained; safe to drop.';
    ELSE
        DROP TABLE job_energy;
    END IF;
END $$;

-- The counter resets (driver reloads) inside the row's segments, which
-- job_energy counted; rows rolled up before this migration hold 0 until
-- their hour is refreshed.
ALTER TABLE job_gpu_hour ADD COLUMN counter_resets integer NOT NULL DEFAULT 0;

-- Job identity. A job row was keyed by its Slurm id alone, so two clusters
-- writing to one database, or one cluster reusing an id (Slurm's ids wrap
-- at MaxJobId, 67,043,328 by default, and restart when slurmctld's state is
-- cleared), overwrote each other's name and user, and the reports summed
-- both jobs' energy under the one row left. A job is now (cluster, id,
-- submit time): Slurm never gives one cluster's two jobs the same id and
-- submit time, and a reused id comes with a new submit time, so it becomes
-- a new row and the old job keeps its own. Submit time rather than a
-- surrogate key, because the GPU assignments (and so the rollups) know the
-- cluster and the job id but not which of its jobs: the reports give a
-- rollup row to the job of its cluster and id whose submit time is the
-- latest at or before the row's time (the first job also takes anything
-- earlier). '-infinity' means "submit time not known" (a mapper that does
-- not report it); such a row is adopted by the first submit time reported
-- for its id (Store.UpsertJobs).
--
-- Existing rows: job ids were unique before this migration, so each
-- assignment and rollup row takes the cluster of the job row with its id
-- (the collector wrote both from the same --cluster), and '' — the
-- cluster name of `strata collect` without --cluster, the default — when
-- there is no job row.
ALTER TABLE gpu_assignment ADD COLUMN cluster text NOT NULL DEFAULT '';
UPDATE gpu_assignment a SET cluster = j.cluster FROM job j WHERE j.job_id = a.job_id AND j.cluster <> '';

ALTER TABLE job_gpu_hour ADD COLUMN cluster text NOT NULL DEFAULT '';
UPDATE job_gpu_hour h SET cluster = j.cluster FROM job j WHERE j.job_id = h.job_id AND j.cluster <> '';
ALTER TABLE job_gpu_hour DROP CONSTRAINT job_gpu_hour_pkey;
ALTER TABLE job_gpu_hour ADD PRIMARY KEY (hour, cluster, job_id, gpu_uuid);

UPDATE job SET submit_time = '-infinity' WHERE submit_time IS NULL;
ALTER TABLE job ALTER COLUMN submit_time SET DEFAULT '-infinity',
                ALTER COLUMN submit_time SET NOT NULL;
ALTER TABLE job DROP CONSTRAINT job_pkey;
ALTER TABLE job ADD PRIMARY KEY (cluster, job_id, submit_time);
CREATE INDEX job_id_idx ON job (job_id);
