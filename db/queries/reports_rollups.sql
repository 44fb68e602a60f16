-- Report queries that read the group and per-job day rollups
-- (energy_group_day, energy_job_day: migration 011) for the whole UTC days
-- of a window (db/reports_groups.go chooses them); the other report
-- queries are in reports.sql.

-- name: ReportGroupDaysUsable
-- Whether the group rollups answer a report over the whole UTC days
-- [$1, $2) exactly: no day in it is marked dirty, and (with $3, when jobs
-- are counted across days) no day after the first holds a job with a gap
-- of a whole day (jobs_resumed: such a job would be counted twice).
SELECT NOT EXISTS (SELECT 1 FROM rollup_dirty_day WHERE day >= $1::timestamptz AND day < $2::timestamptz)
   AND NOT ($3::bool AND EXISTS (SELECT 1 FROM energy_group_day
                                 WHERE day > $1::timestamptz AND day < $2::timestamptz AND jobs_resumed > 0));

-- name: ReportEnergyGroups
-- ReportEnergy grouped by user, account and/or partition (or none), with
-- or without UTC day buckets, without job or state filters: the group
-- rollups (energy_group_day, migration 011) for the whole UTC days [$14,
-- $15) of the window, the hourly rows (pro-rated, by ReportEnergy's rule)
-- for the hours outside them. Used when ReportGroupDaysUsable says so.
-- $1, $2: window; $3..$5: user/account/partition filters; $6..$8: group by
-- user/account/partition; $9: bucket ('' or 'day'); $10: clusters;
-- $11..$13: the reader's scope; $14, $15: the whole days (UTC midnights,
-- $14 < $15).
--
-- Jobs: a day bucket counts its day's jobs; without buckets the whole
-- days hold Σ jobs_first + (jobs − jobs_first) of the first day (no gap,
-- ReportGroupDaysUsable), and the hours outside add their jobs that have no
-- hour in the whole days.
WITH g AS (
    SELECT g.* FROM energy_group_day g
    WHERE g.day >= $14::timestamptz AND g.day < $15::timestamptz
      AND (cardinality($10::text[]) = 0 OR g.cluster = ANY ($10::text[]))
      AND (cardinality($3::text[]) = 0 OR g.user_name = ANY ($3::text[]))
      AND (cardinality($4::text[]) = 0 OR g.account = ANY ($4::text[]))
      AND (cardinality($5::text[]) = 0 OR g.partition = ANY ($5::text[]))
      AND (NOT $11::bool OR g.user_name = ANY ($12::text[]) OR g.account = ANY ($13::text[]))
),
h AS (
    SELECT h.* FROM job_gpu_hour h
    WHERE ((h.hour >= date_trunc('hour', $1::timestamptz) AND h.hour < $14::timestamptz)
           OR (h.hour >= $15::timestamptz AND h.hour < $2::timestamptz))
      AND (cardinality($10::text[]) = 0 OR h.cluster = ANY ($10::text[]))
),
ji AS (
    SELECT j.cluster, j.job_id, j.submit_time, j.user_name, j.account, j.partition,
           row_number() OVER w = 1 AS first, lead(j.submit_time) OVER w AS next_submit
    FROM job j
    WHERE (j.cluster, j.job_id) IN (SELECT cluster, job_id FROM h)
    WINDOW w AS (PARTITION BY j.cluster, j.job_id ORDER BY j.submit_time)
),
e AS (
    SELECT h.cluster, h.job_id, j.submit_time, j.first, j.next_submit, h.hour,
           coalesce(j.user_name, '') AS user_name, coalesce(j.account, '') AS account,
           coalesce(j.partition, '') AS partition, h.gpu_seconds * f.frac AS gpu_seconds,
           h.energy_j * f.frac AS energy_j, h.util_gpu_seconds * f.frac AS util_gpu_seconds,
           h.sampled_seconds * f.frac AS sampled_seconds, h.idle_gpu_seconds * f.frac AS idle_gpu_seconds,
           h.idle_energy_j * f.frac AS idle_energy_j
    FROM h
    CROSS JOIN LATERAL (SELECT coalesce(
               greatest(0, date_part('epoch', least(h.t_hi, $2::timestamptz) - greatest(h.t_lo, $1::timestamptz)))
               / nullif(date_part('epoch', h.t_hi - h.t_lo), 0), 0) AS frac) f
    LEFT JOIN ji j
      ON j.cluster = h.cluster AND j.job_id = h.job_id
     AND (j.first OR j.submit_time <= h.t_hi) AND (j.next_submit IS NULL OR j.next_submit > h.t_hi)
    WHERE f.frac > 0
),
ef AS (
    SELECT * FROM e
    WHERE (cardinality($3::text[]) = 0 OR e.user_name = ANY ($3::text[]))
      AND (cardinality($4::text[]) = 0 OR e.account = ANY ($4::text[]))
      AND (cardinality($5::text[]) = 0 OR e.partition = ANY ($5::text[]))
      AND (NOT $11::bool OR e.user_name = ANY ($12::text[]) OR e.account = ANY ($13::text[]))
),
-- The outside hours' jobs, and whether each has an hour in the whole days
-- (then the whole days count it already).
eo AS (
    SELECT o.*, EXISTS (
               SELECT 1 FROM job_gpu_hour p
               WHERE p.job_id = o.job_id AND p.cluster = o.cluster AND p.t_hi > p.t_lo
                 AND p.hour >= $14::timestamptz AND p.hour < $15::timestamptz
                 AND (o.submit_time IS NULL OR o.first OR p.t_hi >= o.submit_time)
                 AND (o.next_submit IS NULL OR p.t_hi < o.next_submit)) AS in_days
    FROM (SELECT DISTINCT cluster, job_id, submit_time, first, next_submit, user_name, account, partition,
                 CASE WHEN $9::text = 'day' THEN date_trunc('day', hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' END AS bucket
          FROM ef) o
),
x AS (
    SELECT user_name, account, partition, day AS bucket,
           CASE WHEN $9::text = 'day' THEN jobs
                WHEN day = $14::timestamptz THEN jobs
                ELSE jobs_first END AS jobs,
           gpu_seconds, energy_j, util_gpu_seconds, sampled_seconds, idle_gpu_seconds, idle_energy_j
    FROM g
    UNION ALL
    SELECT user_name, account, partition, date_trunc('day', hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', 0,
           gpu_seconds, energy_j, util_gpu_seconds, sampled_seconds, idle_gpu_seconds, idle_energy_j
    FROM ef
    UNION ALL
    SELECT user_name, account, partition, bucket, 1, 0, 0, 0, 0, 0, 0
    FROM eo WHERE $9::text = 'day' OR NOT in_days
)
SELECT NULL::bigint AS job_id, NULL::text AS job_name, NULL::text AS cluster,
       CASE WHEN $6::bool THEN x.user_name END AS user_name,
       CASE WHEN $7::bool THEN x.account END AS account,
       CASE WHEN $8::bool THEN x.partition END AS partition,
       NULL::text AS host,
       CASE WHEN $9::text = 'day' THEN x.bucket END AS bucket,
       sum(x.jobs) AS jobs,
       sum(x.gpu_seconds) AS gpu_seconds,
       sum(x.energy_j) AS energy_j,
       sum(x.util_gpu_seconds) AS util_gpu_seconds,
       sum(x.sampled_seconds) AS sampled_seconds,
       sum(x.idle_gpu_seconds) AS idle_gpu_seconds,
       sum(x.idle_energy_j) AS idle_energy_j
FROM x
GROUP BY 4, 5, 6, 8
ORDER BY 8, 4, 5, 6;

-- name: ReportEnergyJobs
-- ReportEnergy grouped by job (with its cluster, user, account and
-- partition; with or without UTC day buckets; not by node or hour): the
-- per-job rollups (energy_job_day, migration 011) for the whole UTC days
-- [$13, $14) of the window, the hourly rows (pro-rated, by ReportEnergy's
-- rule) for the hours outside them, each sum joined to its owner's job row
-- for the name, user, account, partition and state. Used when no day of
-- [$13, $14) is marked dirty (ReportGroupDaysUsable). $1, $2: window;
-- $3..$6: user/account/partition/job filters; $7: bucket ('' or 'day');
-- $8: clusters; $9..$11: the reader's scope; $12: job states; $13, $14:
-- the whole days (UTC midnights, $13 < $14).
WITH w AS (
    SELECT e.cluster, e.job_id, e.submit_time, CASE WHEN $7::text = 'day' THEN e.day END AS bucket,
           sum(e.gpu_seconds) AS gpu_seconds, sum(e.energy_j) AS energy_j, sum(e.util_gpu_seconds) AS util_gpu_seconds,
           sum(e.sampled_seconds) AS sampled_seconds, sum(e.idle_gpu_seconds) AS idle_gpu_seconds,
           sum(e.idle_energy_j) AS idle_energy_j
    FROM energy_job_day e
    WHERE e.day >= $13::timestamptz AND e.day < $14::timestamptz
      AND (cardinality($6::bigint[]) = 0 OR e.job_id = ANY ($6::bigint[]))
      AND (cardinality($8::text[]) = 0 OR e.cluster = ANY ($8::text[]))
    GROUP BY 1, 2, 3, 4
),
h AS (
    SELECT h.* FROM job_gpu_hour h
    WHERE ((h.hour >= date_trunc('hour', $1::timestamptz) AND h.hour < $13::timestamptz)
           OR (h.hour >= $14::timestamptz AND h.hour < $2::timestamptz))
      AND (cardinality($6::bigint[]) = 0 OR h.job_id = ANY ($6::bigint[]))
      AND (cardinality($8::text[]) = 0 OR h.cluster = ANY ($8::text[]))
),
ji AS (
    SELECT j.cluster, j.job_id, j.submit_time,
           row_number() OVER w = 1 AS first, lead(j.submit_time) OVER w AS next_submit
    FROM job j
    WHERE (j.cluster, j.job_id) IN (SELECT cluster, job_id FROM h)
    WINDOW w AS (PARTITION BY j.cluster, j.job_id ORDER BY j.submit_time)
),
u AS (
    SELECT * FROM w
    UNION ALL
    SELECT h.cluster, h.job_id, j.submit_time,
           CASE WHEN $7::text = 'day' THEN date_trunc('day', h.hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' END,
           h.gpu_seconds * f.frac, h.energy_j * f.frac, h.util_gpu_seconds * f.frac, h.sampled_seconds * f.frac,
           h.idle_gpu_seconds * f.frac, h.idle_energy_j * f.frac
    FROM h
    CROSS JOIN LATERAL (SELECT coalesce(
               greatest(0, date_part('epoch', least(h.t_hi, $2::timestamptz) - greatest(h.t_lo, $1::timestamptz)))
               / nullif(date_part('epoch', h.t_hi - h.t_lo), 0), 0) AS frac) f
    LEFT JOIN ji j
      ON j.cluster = h.cluster AND j.job_id = h.job_id
     AND (j.first OR j.submit_time <= h.t_hi) AND (j.next_submit IS NULL OR j.next_submit > h.t_hi)
    WHERE f.frac > 0
),
-- One sum per job (and day), then its job row by the primary key: an index
-- lookup per job (OFFSET 0 keeps it one), not a hash of every job row.
g AS (
    SELECT cluster, job_id, submit_time, bucket, sum(gpu_seconds) AS gpu_seconds, sum(energy_j) AS energy_j,
           sum(util_gpu_seconds) AS util_gpu_seconds, sum(sampled_seconds) AS sampled_seconds,
           sum(idle_gpu_seconds) AS idle_gpu_seconds, sum(idle_energy_j) AS idle_energy_j
    FROM u GROUP BY 1, 2, 3, 4
),
x AS (
    SELECT g.*, j.name, j.user_name, j.account, j.partition, j.state
    FROM g LEFT JOIN LATERAL (
        SELECT j.name, j.user_name, j.account, j.partition, j.state FROM job j
        WHERE j.cluster = g.cluster AND j.job_id = g.job_id AND j.submit_time = g.submit_time
        OFFSET 0) j ON true
)
SELECT x.job_id, coalesce(x.name, '') AS job_name, x.cluster,
       coalesce(x.user_name, '') AS user_name, coalesce(x.account, '') AS account,
       coalesce(x.partition, '') AS partition, NULL::text AS host, x.bucket,
       1::bigint AS jobs, x.gpu_seconds, x.energy_j, x.util_gpu_seconds, x.sampled_seconds,
       x.idle_gpu_seconds, x.idle_energy_j
FROM x
WHERE (cardinality($3::text[]) = 0 OR x.user_name = ANY ($3::text[]))
  AND (cardinality($4::text[]) = 0 OR x.account = ANY ($4::text[]))
  AND (cardinality($5::text[]) = 0 OR x.partition = ANY ($5::text[]))
  AND (NOT $9::bool OR x.user_name = ANY ($10::text[]) OR x.account = ANY ($11::text[]))
  AND (cardinality($12::text[]) = 0 OR x.state = ANY ($12::text[]))
ORDER BY x.bucket, x.job_id, x.cluster, x.submit_time, 4, 5, 6;
