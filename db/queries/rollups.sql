-- Per-job energy (db/rollups.go) read from job_gpu_hour, the hourly rollup
-- (InsertJobGPUHours in reports.sql defines it), and the daily rollup summed
-- from it; nothing here recomputes energy from samples.

-- name: JobsTouchedSince
SELECT DISTINCT job_id FROM gpu_assignment
WHERE t_to IS NULL OR t_to >= $1
ORDER BY job_id;

-- name: TouchedFrom
-- Where the assignments open or ended at or after $1 begin (NULL: none).
SELECT min(t_from) FROM gpu_assignment
WHERE t_to IS NULL OR t_to >= $1;

-- name: JobEnergyDays
-- One job id's rollups summed per UTC day (every cluster and instance of
-- that id: see Store.JobEnergyDays).
SELECT (hour AT TIME ZONE 'UTC')::date AS day,
       sum(energy_j), sum(gpu_seconds), sum(util_gpu_seconds) / 100.0, sum(idle_gpu_seconds),
       sum(idle_energy_j), sum(sampled_seconds), sum(counter_resets)
FROM job_gpu_hour WHERE job_id = $1
GROUP BY 1 ORDER BY 1;

-- Daily rollups (job_host_day, migration 009): the hourly rows summed per
-- UTC day and node, rebuilt from job_gpu_hour with the hours they sum.
-- $1, $2: UTC midnights.

-- name: DeleteJobHostDays
DELETE FROM job_host_day WHERE day >= $1::timestamptz AND day < $2::timestamptz;

-- name: InsertJobHostDays
INSERT INTO job_host_day
SELECT date_trunc('day', hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', cluster, job_id, host,
       min(t_hi), max(t_hi), count(*), sum(gpu_seconds), sum(energy_j), sum(util_gpu_seconds),
       sum(sampled_seconds), sum(idle_gpu_seconds), sum(idle_energy_j), sum(counter_resets)
FROM job_gpu_hour
WHERE hour >= $1::timestamptz AND hour < $2::timestamptz
GROUP BY 1, 2, 3, 4;

-- name: DayRollupMismatches
-- The UTC days of [$1, $2) whose daily rows disagree with their hourly
-- rows: a row missing on either side, another count of hours or t_hi
-- bounds, or a sum off by more than a millionth (the sums may add in
-- another order).
WITH h AS (
    SELECT date_trunc('day', hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS day, cluster, job_id, host,
           min(t_hi) AS t_hi_min, max(t_hi) AS t_hi_max, count(*) AS hours,
           sum(gpu_seconds) AS gpu_seconds, sum(energy_j) AS energy_j, sum(util_gpu_seconds) AS util_gpu_seconds,
           sum(sampled_seconds) AS sampled_seconds, sum(idle_gpu_seconds) AS idle_gpu_seconds,
           sum(idle_energy_j) AS idle_energy_j, sum(counter_resets) AS counter_resets
    FROM job_gpu_hour
    WHERE hour >= $1::timestamptz AND hour < $2::timestamptz
    GROUP BY 1, 2, 3, 4
),
d AS (
    SELECT * FROM job_host_day WHERE day >= $1::timestamptz AND day < $2::timestamptz
)
SELECT DISTINCT coalesce(h.day, d.day) AS day
FROM h FULL JOIN d
  ON d.day = h.day AND d.cluster = h.cluster AND d.job_id = h.job_id AND d.host = h.host
WHERE h.day IS NULL OR d.day IS NULL
   OR h.hours <> d.hours OR h.t_hi_min <> d.t_hi_min OR h.t_hi_max <> d.t_hi_max
   OR h.counter_resets <> d.counter_resets
   OR abs(h.gpu_seconds - d.gpu_seconds) > 1e-6 * greatest(1, abs(h.gpu_seconds))
   OR abs(h.energy_j - d.energy_j) > 1e-6 * greatest(1, abs(h.energy_j))
   OR abs(h.util_gpu_seconds - d.util_gpu_seconds) > 1e-6 * greatest(1, abs(h.util_gpu_seconds))
   OR abs(h.sampled_seconds - d.sampled_seconds) > 1e-6 * greatest(1, abs(h.sampled_seconds))
   OR abs(h.idle_gpu_seconds - d.idle_gpu_seconds) > 1e-6 * greatest(1, abs(h.idle_gpu_seconds))
   OR abs(h.idle_energy_j - d.idle_energy_j) > 1e-6 * greatest(1, abs(h.idle_energy_j))
ORDER BY 1;

-- Group rollups (energy_group_day, migration 011): the hourly rows summed
-- per UTC day and owner group, by strata_energy_group_days. $1, $2: UTC
-- midnights.

-- name: DeleteEnergyGroupDays
DELETE FROM energy_group_day WHERE day >= $1::timestamptz AND day < $2::timestamptz;

-- name: InsertEnergyGroupDays
INSERT INTO energy_group_day
SELECT * FROM strata_energy_group_days($1::timestamptz, $2::timestamptz);

-- name: ClearDirtyDays
-- Before a rebuild (in its transaction): a job change committed during the
-- rebuild marks its days again, after the rebuild's commit.
DELETE FROM rollup_dirty_day WHERE day >= $1::timestamptz AND day < $2::timestamptz;

-- name: MarkLaterDaysDirty
-- The days from $2 on that hold day rows of the jobs with day rows in
-- [$1, $2): their first day, or a gap before them, may move with a rebuild
-- of [$1, $2). Run before and after the rebuild of the day rows.
INSERT INTO rollup_dirty_day
SELECT DISTINCT d.day
FROM (SELECT DISTINCT cluster, job_id FROM job_host_day
      WHERE day >= $1::timestamptz AND day < $2::timestamptz) c
CROSS JOIN LATERAL (
    SELECT d.day FROM job_host_day d
    WHERE d.job_id = c.job_id AND d.cluster = c.cluster AND d.day >= $2::timestamptz
    OFFSET 0) d
ON CONFLICT DO NOTHING;

-- name: DirtyDays
SELECT day FROM rollup_dirty_day ORDER BY day;

-- name: GroupDayMismatches
-- The UTC days of [$1, $2) whose group rows disagree with what their hourly
-- rows and the job table give (as DayRollupMismatches), or marked dirty.
WITH w AS (
    SELECT * FROM strata_energy_group_days($1::timestamptz, $2::timestamptz)
),
g AS (
    SELECT * FROM energy_group_day WHERE day >= $1::timestamptz AND day < $2::timestamptz
)
SELECT coalesce(w.day, g.day) AS day
FROM w FULL JOIN g
  ON g.day = w.day AND g.cluster = w.cluster AND g.user_name = w.user_name AND g.account = w.account
 AND g.partition = w.partition
WHERE w.day IS NULL OR g.day IS NULL
   OR w.jobs <> g.jobs OR w.jobs_first <> g.jobs_first OR w.jobs_resumed <> g.jobs_resumed
   OR abs(w.gpu_seconds - g.gpu_seconds) > 1e-6 * greatest(1, abs(w.gpu_seconds))
   OR abs(w.energy_j - g.energy_j) > 1e-6 * greatest(1, abs(w.energy_j))
   OR abs(w.util_gpu_seconds - g.util_gpu_seconds) > 1e-6 * greatest(1, abs(w.util_gpu_seconds))
   OR abs(w.sampled_seconds - g.sampled_seconds) > 1e-6 * greatest(1, abs(w.sampled_seconds))
   OR abs(w.idle_gpu_seconds - g.idle_gpu_seconds) > 1e-6 * greatest(1, abs(w.idle_gpu_seconds))
   OR abs(w.idle_energy_j - g.idle_energy_j) > 1e-6 * greatest(1, abs(w.idle_energy_j))
UNION
SELECT day FROM rollup_dirty_day WHERE day >= $1::timestamptz AND day < $2::timestamptz
ORDER BY 1;

-- name: DeleteEnergyJobDays
DELETE FROM energy_job_day WHERE day >= $1::timestamptz AND day < $2::timestamptz;

-- name: InsertEnergyJobDays
INSERT INTO energy_job_day
SELECT * FROM strata_energy_job_days($1::timestamptz, $2::timestamptz);

-- name: JobDayMismatches
-- The UTC days of [$1, $2) whose per-job rows (energy_job_day) disagree with
-- what their hourly rows and the job table give (as GroupDayMismatches).
WITH w AS (
    SELECT * FROM strata_energy_job_days($1::timestamptz, $2::timestamptz)
),
e AS (
    SELECT * FROM energy_job_day WHERE day >= $1::timestamptz AND day < $2::timestamptz
)
SELECT DISTINCT coalesce(w.day, e.day) AS day
FROM w FULL JOIN e
  ON e.day = w.day AND e.cluster = w.cluster AND e.job_id = w.job_id
 AND e.submit_time IS NOT DISTINCT FROM w.submit_time
WHERE w.day IS NULL OR e.day IS NULL
   OR abs(w.gpu_seconds - e.gpu_seconds) > 1e-6 * greatest(1, abs(w.gpu_seconds))
   OR abs(w.energy_j - e.energy_j) > 1e-6 * greatest(1, abs(w.energy_j))
   OR abs(w.util_gpu_seconds - e.util_gpu_seconds) > 1e-6 * greatest(1, abs(w.util_gpu_seconds))
   OR abs(w.sampled_seconds - e.sampled_seconds) > 1e-6 * greatest(1, abs(w.sampled_seconds))
   OR abs(w.idle_gpu_seconds - e.idle_gpu_seconds) > 1e-6 * greatest(1, abs(w.idle_gpu_seconds))
   OR abs(w.idle_energy_j - e.idle_energy_j) > 1e-6 * greatest(1, abs(w.idle_energy_j))
ORDER BY 1;
