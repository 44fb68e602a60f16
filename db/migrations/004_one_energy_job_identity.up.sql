-- 004_one_energy_job_identity: one definition of per-job energy.

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
