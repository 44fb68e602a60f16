-- 009_daily_rollups: job_host_day, the hourly rollups (job_gpu_hour) summed
-- per UTC day and node (over the job's GPUs on it), so that a report over
-- weeks or a year reads one row per job, node and day instead of one per
-- job, GPU and hour (no report groups by GPU). Maintained with the hourly rows: every refresh
-- of hours (Store.RefreshReportRollups) rebuilds the days they touch from
-- job_gpu_hour in the same transaction, so job_host_day is derived data and
-- never read alone: ReportEnergyDaily (db/queries/reports.sql) reads it for
-- the whole UTC days of a window and the hourly rows for the partial days
-- at its edges. t_hi_min and t_hi_max bound the hours' t_hi: a report uses a
-- day row only when one job owns all its hours (the reports' rule,
-- migration 004: the owner of an hour is chosen by its t_hi), else that
-- day's hourly rows. `strata report refresh` compares the days it refreshes
-- with their hours and rebuilds (and logs) any that disagree.
CREATE TABLE job_host_day (
    day              timestamptz      NOT NULL,  -- UTC midnight
    cluster          text             NOT NULL,
    job_id           bigint           NOT NULL,
    host             text             NOT NULL,
    t_hi_min         timestamptz      NOT NULL,  -- least t_hi of the day's hourly rows
    t_hi_max         timestamptz      NOT NULL,  -- greatest t_hi
    hours            integer          NOT NULL,  -- hourly rows summed (GPU-hours touched)
    gpu_seconds      double precision NOT NULL,
    energy_j         double precision NOT NULL,
    util_gpu_seconds double precision NOT NULL,
    sampled_seconds  double precision NOT NULL,
    idle_gpu_seconds double precision NOT NULL,
    idle_energy_j    double precision NOT NULL,
    counter_resets   integer          NOT NULL,
    PRIMARY KEY (day, cluster, job_id, host)
);
CREATE INDEX job_host_day_job_idx ON job_host_day (job_id);
COMMENT ON TABLE job_host_day IS
    'job_gpu_hour summed per UTC day and node (derived: rebuilt with the hours it sums; reports read it for whole days)';

INSERT INTO job_host_day
SELECT date_trunc('day', hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', cluster, job_id, host,
       min(t_hi), max(t_hi), count(*), sum(gpu_seconds), sum(energy_j), sum(util_gpu_seconds),
       sum(sampled_seconds), sum(idle_gpu_seconds), sum(idle_energy_j), sum(counter_resets)
FROM job_gpu_hour
GROUP BY 1, 2, 3, 4;

-- Whoever reads the hourly rollups reads the daily ones (the read-only role
-- of docs/operations.md, when the default privileges did not cover a table
-- created by the migrating role).
DO $$
DECLARE r text;
BEGIN
    FOR r IN SELECT DISTINCT grantee FROM information_schema.role_table_grants
             WHERE table_schema = 'public' AND table_name = 'job_gpu_hour' AND privilege_type = 'SELECT'
               AND grantee <> current_user AND grantee <> 'PUBLIC'
    LOOP
        EXECUTE format('GRANT SELECT ON public.job_host_day TO %I', r);
    END LOOP;
END $$;

-- A per-user role (migration 008) reads the daily rows of exactly the hours
-- its view of job_gpu_hour shows (the hours' owners in its scope), summed
-- per day: the same answers as the hours, without their speed.
CREATE VIEW strata_user.job_host_day WITH (security_barrier) AS
SELECT date_trunc('day', hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS day, cluster, job_id, host,
       min(t_hi) AS t_hi_min, max(t_hi) AS t_hi_max, count(*)::integer AS hours,
       sum(gpu_seconds) AS gpu_seconds, sum(energy_j) AS energy_j, sum(util_gpu_seconds) AS util_gpu_seconds,
       sum(sampled_seconds) AS sampled_seconds, sum(idle_gpu_seconds) AS idle_gpu_seconds,
       sum(idle_energy_j) AS idle_energy_j, sum(counter_resets)::integer AS counter_resets
FROM strata_user.job_gpu_hour
GROUP BY 1, 2, 3, 4;
