-- Report queries (db/reports.go). Reports read job_gpu_hour, the hourly
-- per-job-per-GPU rollup, never gpu_sample; only InsertJobGPUHours (run
-- after ingestion or by `strata report refresh`) and ReportJobGPUSeries
-- (one job's GPUs) read samples.

-- name: DeleteJobGPUHours
DELETE FROM job_gpu_hour WHERE hour >= $1::timestamptz AND hour < $2::timestamptz;

-- name: InsertJobGPUHours
-- $1, $2: hour-aligned refresh window; $3: end of still-open assignments
-- (now, at most $2); $4: idle threshold in percent GPU utilization.
-- This is the one definition of per-job energy (Store.JobEnergyTotal and
-- every report sum these rows). Consecutive samples of a GPU form a
-- segment whose counter delta is spread linearly over it; a negative delta
-- is a counter reset (driver reload): the segment counts the larger of the
-- new counter value and the trapezoid of its two power readings, and the
-- reset is counted once per assignment (in the hour its overlap ends). A
-- segment overlapping n assignments of the same GPU in an hour (a shared
-- GPU) gives each 1/n.
WITH a AS (
    SELECT cluster, job_id, host, gpu_uuid,
           greatest(t_from, $1::timestamptz) AS f,
           least(coalesce(t_to, $3::timestamptz), $2::timestamptz) AS t
    FROM gpu_assignment
    WHERE t_from < $2::timestamptz AND (t_to IS NULL OR t_to > $1::timestamptz)
),
iv AS (
    SELECT gpu_uuid, prev_ts AS s0, ts AS s1, util_gpu, energy_mj < prev_e AS reset,
           CASE WHEN energy_mj >= prev_e THEN (energy_mj - prev_e) / 1000.0
                ELSE greatest(energy_mj / 1000.0, (power_w + prev_p) / 2.0 * date_part('epoch', ts - prev_ts))
           END AS e_j,
           date_part('epoch', ts - prev_ts) AS dur
    FROM (
        SELECT gpu_uuid, ts, energy_mj, util_gpu, power_w,
               lag(ts) OVER w AS prev_ts, lag(energy_mj) OVER w AS prev_e, lag(power_w) OVER w AS prev_p
        FROM gpu_sample
        WHERE ts >= $1::timestamptz - interval '15 minutes'
          AND ts < $2::timestamptz + interval '15 minutes'
          AND gpu_uuid IN (SELECT DISTINCT gpu_uuid FROM a)
        WINDOW w AS (PARTITION BY gpu_uuid ORDER BY ts)
    ) x
    WHERE prev_ts IS NOT NULL AND ts > prev_ts
),
p AS (
    SELECT a.cluster, a.job_id, a.gpu_uuid, h.hour, iv.e_j, iv.util_gpu, iv.dur,
           iv.reset AND h.hour = date_trunc('hour', least(iv.s1, a.t) - interval '1 microsecond') AS reset,
           date_part('epoch', least(iv.s1, a.t, h.hour + interval '1 hour')
                            - greatest(iv.s0, a.f, h.hour)) AS sec,
           count(*) OVER (PARTITION BY iv.gpu_uuid, iv.s0, h.hour) AS sharers
    FROM iv
    JOIN a ON a.gpu_uuid = iv.gpu_uuid AND a.f < iv.s1 AND a.t > iv.s0
    CROSS JOIN LATERAL generate_series(date_trunc('hour', greatest(iv.s0, a.f)),
                                       least(iv.s1, a.t) - interval '1 microsecond',
                                       interval '1 hour') AS h(hour)
),
used AS (
    SELECT cluster, job_id, gpu_uuid, hour,
           sum(e_j * sec / dur / sharers) AS energy_j,
           sum(util_gpu * sec) AS util_gpu_seconds,
           sum(sec) AS sampled_seconds,
           coalesce(sum(sec) FILTER (WHERE util_gpu < $4::float8), 0) AS idle_gpu_seconds,
           coalesce(sum(e_j * sec / dur / sharers) FILTER (WHERE util_gpu < $4::float8), 0) AS idle_energy_j,
           count(*) FILTER (WHERE reset) AS counter_resets
    FROM p WHERE sec > 0
    GROUP BY cluster, job_id, gpu_uuid, hour
),
alloc AS (
    SELECT a.cluster, a.job_id, a.gpu_uuid, min(a.host) AS host, h.hour,
           min(greatest(a.f, h.hour)) AS t_lo,
           max(least(a.t, h.hour + interval '1 hour')) AS t_hi,
           sum(date_part('epoch', least(a.t, h.hour + interval '1 hour') - greatest(a.f, h.hour))) AS gpu_seconds
    FROM a
    CROSS JOIN LATERAL generate_series(date_trunc('hour', a.f), a.t - interval '1 microsecond',
                                       interval '1 hour') AS h(hour)
    WHERE a.t > a.f
    GROUP BY a.cluster, a.job_id, a.gpu_uuid, h.hour
)
INSERT INTO job_gpu_hour (hour, cluster, job_id, gpu_uuid, host, t_lo, t_hi, gpu_seconds, energy_j,
                          util_gpu_seconds, sampled_seconds, idle_gpu_seconds, idle_energy_j, counter_resets)
SELECT al.hour, al.cluster, al.job_id, al.gpu_uuid, al.host, al.t_lo, al.t_hi, al.gpu_seconds,
       coalesce(u.energy_j, 0), coalesce(u.util_gpu_seconds, 0), coalesce(u.sampled_seconds, 0),
       coalesce(u.idle_gpu_seconds, 0), coalesce(u.idle_energy_j, 0), coalesce(u.counter_resets, 0)
FROM alloc al LEFT JOIN used u USING (cluster, job_id, gpu_uuid, hour);

-- name: ReportEnergy
-- $1, $2: window; $3..$6: user/account/partition/job filters (empty: all);
-- $7..$11: group by job/user/account/partition/node (a job brings its
-- cluster, user, account and partition along); $12: bucket
-- ('', 'day' or 'hour'); $13: time zone of the buckets; $14: clusters;
-- $15..$17: the reader's scope (limited; its users; its accounts): a
-- limited scope sees the rows of jobs of its users or accounts only;
-- $18: job states (empty: all).
-- A rollup row belongs to the job of its cluster and id (jobs are keyed by
-- cluster, id and submit time: migration 004) submitted last at or before
-- the row's t_hi, and until the next job with that id was submitted; the
-- first job also takes rows before its submit time (clock skew).
WITH r AS (
    SELECT h.*, coalesce(
               greatest(0, date_part('epoch', least(h.t_hi, $2::timestamptz) - greatest(h.t_lo, $1::timestamptz)))
               / nullif(date_part('epoch', h.t_hi - h.t_lo), 0), 0) AS frac
    FROM job_gpu_hour h
    WHERE h.hour >= date_trunc('hour', $1::timestamptz) AND h.hour < $2::timestamptz
      AND (cardinality($6::bigint[]) = 0 OR h.job_id = ANY ($6::bigint[]))
      AND (cardinality($14::text[]) = 0 OR h.cluster = ANY ($14::text[]))
),
ji AS (
    SELECT j.cluster, j.job_id, j.submit_time, j.name, j.user_name, j.account, j.partition, j.state,
           row_number() OVER w = 1 AS first, lead(j.submit_time) OVER w AS next_submit
    FROM job j
    WHERE (j.cluster, j.job_id) IN (SELECT cluster, job_id FROM r)
    WINDOW w AS (PARTITION BY j.cluster, j.job_id ORDER BY j.submit_time)
)
SELECT CASE WHEN $7::bool THEN r.job_id END AS job_id,
       CASE WHEN $7::bool THEN max(coalesce(j.name, '')) END AS job_name,
       CASE WHEN $7::bool THEN r.cluster END AS cluster,
       CASE WHEN $8::bool OR $7::bool THEN coalesce(j.user_name, '') END AS user_name,
       CASE WHEN $9::bool OR $7::bool THEN coalesce(j.account, '') END AS account,
       CASE WHEN $10::bool OR $7::bool THEN coalesce(j.partition, '') END AS partition,
       CASE WHEN $11::bool THEN r.host END AS host,
       CASE $12::text WHEN 'day' THEN date_trunc('day', r.hour AT TIME ZONE $13::text) AT TIME ZONE $13::text
                      WHEN 'hour' THEN r.hour END AS bucket,
       count(DISTINCT (r.cluster, r.job_id, j.submit_time)) AS jobs,
       sum(r.gpu_seconds * r.frac) AS gpu_seconds,
       sum(r.energy_j * r.frac) AS energy_j,
       sum(r.util_gpu_seconds * r.frac) AS util_gpu_seconds,
       sum(r.sampled_seconds * r.frac) AS sampled_seconds,
       sum(r.idle_gpu_seconds * r.frac) AS idle_gpu_seconds,
       sum(r.idle_energy_j * r.frac) AS idle_energy_j
FROM r LEFT JOIN ji j
  ON j.cluster = r.cluster AND j.job_id = r.job_id
 AND (j.first OR j.submit_time <= r.t_hi) AND (j.next_submit IS NULL OR j.next_submit > r.t_hi)
WHERE r.frac > 0
  AND (cardinality($3::text[]) = 0 OR j.user_name = ANY ($3::text[]))
  AND (cardinality($4::text[]) = 0 OR j.account = ANY ($4::text[]))
  AND (cardinality($5::text[]) = 0 OR j.partition = ANY ($5::text[]))
  AND (NOT $15::bool OR j.user_name = ANY ($16::text[]) OR j.account = ANY ($17::text[]))
  AND (cardinality($18::text[]) = 0 OR j.state = ANY ($18::text[]))
GROUP BY 1, 3, CASE WHEN $7::bool THEN j.submit_time END, 4, 5, 6, 7, 8
ORDER BY 8, 1, 3, CASE WHEN $7::bool THEN j.submit_time END, 4, 5, 6, 7;

-- name: ReportEnergyDaily
-- ReportEnergy's answer (same parameters and rows), reading the daily
-- rollups (job_host_day, migration 009) for the whole UTC days of the window
-- and the hourly rows for the partial days at its edges. Only for reports
-- without buckets or with UTC day buckets (Store.EnergyReport chooses).
-- Whole days are hours with frac 1, so the sums are the same (up to the
-- order of the additions). The day rows are first summed per job (and per
-- node and day when the report groups by them: da); such a sum is used
-- when one job owns all its hours (the owner at its least t_hi owns it at
-- its greatest, hence at every hour between), else its day rows are, each
-- under the same rule, else that day's hourly rows, as ReportEnergy reads
-- them.
--
-- d: the day rows of the whole UTC days of the window, from the first
-- midnight at or after $1 to the last at or before $2 (none when the first
-- is after the last).
WITH d AS (
    SELECT d.* FROM job_host_day d
    WHERE d.day >= date_trunc('day', ($1::timestamptz - interval '1 microsecond') AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '24 hours'
      AND d.day < date_trunc('day', $2::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
      AND (cardinality($6::bigint[]) = 0 OR d.job_id = ANY ($6::bigint[]))
      AND (cardinality($14::text[]) = 0 OR d.cluster = ANY ($14::text[]))
),
da AS (
    SELECT cluster, job_id, CASE WHEN $11::bool THEN host END AS host,
           CASE WHEN $12::text = 'day' THEN day END AS day,
           min(t_hi_min) AS t_hi_min, max(t_hi_max) AS t_hi_max,
           sum(gpu_seconds) AS gpu_seconds, sum(energy_j) AS energy_j, sum(util_gpu_seconds) AS util_gpu_seconds,
           sum(sampled_seconds) AS sampled_seconds, sum(idle_gpu_seconds) AS idle_gpu_seconds, sum(idle_energy_j) AS idle_energy_j
    FROM d GROUP BY 1, 2, 3, 4
),
-- The hours outside the whole days, as two ranges of the hour index: up to
-- the first whole day, and from the end of the last (all of the window's
-- hours once when it has no whole day). The bounds are written out, not
-- taken from a CTE, so that the planner sees constants for the index.
h AS (
    SELECT h.cluster, h.job_id, h.host, h.hour, h.t_lo, h.t_hi, h.gpu_seconds, h.energy_j,
           h.util_gpu_seconds, h.sampled_seconds, h.idle_gpu_seconds, h.idle_energy_j
    FROM job_gpu_hour h
    WHERE ((h.hour >= date_trunc('hour', $1::timestamptz)
            AND h.hour < least($2::timestamptz, date_trunc('day', ($1::timestamptz - interval '1 microsecond') AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '24 hours'))
           OR (h.hour >= greatest(date_trunc('day', $2::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', date_trunc('day', ($1::timestamptz - interval '1 microsecond') AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '24 hours')
               AND h.hour < $2::timestamptz))
      AND (cardinality($6::bigint[]) = 0 OR h.job_id = ANY ($6::bigint[]))
      AND (cardinality($14::text[]) = 0 OR h.cluster = ANY ($14::text[]))
),
ji AS (
    SELECT j.cluster, j.job_id, j.submit_time, j.name, j.user_name, j.account, j.partition, j.state,
           row_number() OVER w = 1 AS first, lead(j.submit_time) OVER w AS next_submit
    FROM job j
    WHERE (j.cluster, j.job_id) IN (SELECT cluster, job_id FROM da UNION SELECT cluster, job_id FROM h)
    WINDOW w AS (PARTITION BY j.cluster, j.job_id ORDER BY j.submit_time)
),
-- A sum (or a day row) belongs to the job that owns its greatest t_hi, and
-- has one owner when that job owns its least t_hi too (or no job has a row).
daj AS (
    SELECT da.*, j.submit_time, j.name, j.user_name, j.account, j.partition, j.state,
           (j.cluster IS NULL OR ((j.first OR j.submit_time <= da.t_hi_min)
                                  AND (j.next_submit IS NULL OR j.next_submit > da.t_hi_min))) AS one_owner
    FROM da LEFT JOIN ji j
      ON j.cluster = da.cluster AND j.job_id = da.job_id
     AND (j.first OR j.submit_time <= da.t_hi_max) AND (j.next_submit IS NULL OR j.next_submit > da.t_hi_max)
),
dj AS (
    SELECT d.*, j.submit_time, j.name, j.user_name, j.account, j.partition, j.state,
           (j.cluster IS NULL OR ((j.first OR j.submit_time <= d.t_hi_min)
                                  AND (j.next_submit IS NULL OR j.next_submit > d.t_hi_min))) AS one_owner
    FROM daj JOIN d
      ON d.cluster = daj.cluster AND d.job_id = daj.job_id
     AND (daj.host IS NULL OR d.host = daj.host) AND (daj.day IS NULL OR d.day = daj.day)
    LEFT JOIN ji j
      ON j.cluster = d.cluster AND j.job_id = d.job_id
     AND (j.first OR j.submit_time <= d.t_hi_max) AND (j.next_submit IS NULL OR j.next_submit > d.t_hi_max)
    WHERE NOT daj.one_owner
),
hr AS (
    SELECT * FROM h
    UNION ALL
    SELECT h.cluster, h.job_id, h.host, h.hour, h.t_lo, h.t_hi, h.gpu_seconds, h.energy_j,
           h.util_gpu_seconds, h.sampled_seconds, h.idle_gpu_seconds, h.idle_energy_j
    FROM dj CROSS JOIN LATERAL (
        -- OFFSET 0 keeps this an index lookup per day row with two owners
        -- (rare: an id reused within a day), never a scan of every hour.
        SELECT * FROM job_gpu_hour h
        WHERE h.hour >= dj.day AND h.hour < dj.day + interval '24 hours' AND h.cluster = dj.cluster
          AND h.job_id = dj.job_id AND h.host = dj.host
        OFFSET 0) h
    WHERE NOT dj.one_owner
),
r AS (
    SELECT hr.cluster, hr.job_id, hr.host, hr.hour, hr.gpu_seconds, hr.energy_j, hr.util_gpu_seconds,
           hr.sampled_seconds, hr.idle_gpu_seconds, hr.idle_energy_j, hr.t_hi, coalesce(
               greatest(0, date_part('epoch', least(hr.t_hi, $2::timestamptz) - greatest(hr.t_lo, $1::timestamptz)))
               / nullif(date_part('epoch', hr.t_hi - hr.t_lo), 0), 0) AS frac
    FROM hr
),
x AS (
    SELECT r.cluster, r.job_id, r.host, r.hour, j.submit_time, j.name, j.user_name, j.account, j.partition,
           j.state, r.gpu_seconds * r.frac AS gpu_seconds, r.energy_j * r.frac AS energy_j,
           r.util_gpu_seconds * r.frac AS util_gpu_seconds, r.sampled_seconds * r.frac AS sampled_seconds,
           r.idle_gpu_seconds * r.frac AS idle_gpu_seconds, r.idle_energy_j * r.frac AS idle_energy_j
    FROM r LEFT JOIN ji j
      ON j.cluster = r.cluster AND j.job_id = r.job_id
     AND (j.first OR j.submit_time <= r.t_hi) AND (j.next_submit IS NULL OR j.next_submit > r.t_hi)
    WHERE r.frac > 0
    UNION ALL
    SELECT cluster, job_id, host, day, submit_time, name, user_name, account, partition, state,
           gpu_seconds, energy_j, util_gpu_seconds, sampled_seconds, idle_gpu_seconds, idle_energy_j
    FROM daj WHERE one_owner
    UNION ALL
    SELECT cluster, job_id, host, day, submit_time, name, user_name, account, partition, state,
           gpu_seconds, energy_j, util_gpu_seconds, sampled_seconds, idle_gpu_seconds, idle_energy_j
    FROM dj WHERE one_owner
)
SELECT CASE WHEN $7::bool THEN x.job_id END AS job_id,
       CASE WHEN $7::bool THEN max(coalesce(x.name, '')) END AS job_name,
       CASE WHEN $7::bool THEN x.cluster END AS cluster,
       CASE WHEN $8::bool OR $7::bool THEN coalesce(x.user_name, '') END AS user_name,
       CASE WHEN $9::bool OR $7::bool THEN coalesce(x.account, '') END AS account,
       CASE WHEN $10::bool OR $7::bool THEN coalesce(x.partition, '') END AS partition,
       CASE WHEN $11::bool THEN x.host END AS host,
       CASE $12::text WHEN 'day' THEN date_trunc('day', x.hour AT TIME ZONE $13::text) AT TIME ZONE $13::text
                      WHEN 'hour' THEN x.hour END AS bucket,
       count(DISTINCT (x.cluster, x.job_id, x.submit_time)) AS jobs,
       sum(x.gpu_seconds) AS gpu_seconds,
       sum(x.energy_j) AS energy_j,
       sum(x.util_gpu_seconds) AS util_gpu_seconds,
       sum(x.sampled_seconds) AS sampled_seconds,
       sum(x.idle_gpu_seconds) AS idle_gpu_seconds,
       sum(x.idle_energy_j) AS idle_energy_j
FROM x
WHERE (cardinality($3::text[]) = 0 OR x.user_name = ANY ($3::text[]))
  AND (cardinality($4::text[]) = 0 OR x.account = ANY ($4::text[]))
  AND (cardinality($5::text[]) = 0 OR x.partition = ANY ($5::text[]))
  AND (NOT $15::bool OR x.user_name = ANY ($16::text[]) OR x.account = ANY ($17::text[]))
  AND (cardinality($18::text[]) = 0 OR x.state = ANY ($18::text[]))
GROUP BY 1, 3, CASE WHEN $7::bool THEN x.submit_time END, 4, 5, 6, 7, 8
ORDER BY 8, 1, 3, CASE WHEN $7::bool THEN x.submit_time END, 4, 5, 6, 7;

-- name: ReportUsageCompleted
-- Jobs that ended inside the window: count, wait and JCT per group.
-- $1, $2: window; $3..$6: filters; $7..$9: group by user/account/partition;
-- $10: clusters; $11..$13: the reader's scope (as ReportEnergy's $15..$17);
-- $14: job states (empty: all).
SELECT CASE WHEN $7::bool THEN j.user_name END AS user_name,
       CASE WHEN $8::bool THEN j.account END AS account,
       CASE WHEN $9::bool THEN j.partition END AS partition,
       count(*) AS completed,
       coalesce(avg(date_part('epoch', j.start_time - j.submit_time)), 0) AS mean_wait,
       coalesce(max(date_part('epoch', j.start_time - j.submit_time)), 0) AS max_wait,
       coalesce(avg(date_part('epoch', j.end_time - j.submit_time)), 0) AS mean_jct
FROM job j
WHERE j.end_time >= $1::timestamptz AND j.end_time < $2::timestamptz
  AND j.start_time IS NOT NULL AND j.submit_time > '-infinity'
  AND (cardinality($3::text[]) = 0 OR j.user_name = ANY ($3::text[]))
  AND (cardinality($4::text[]) = 0 OR j.account = ANY ($4::text[]))
  AND (cardinality($5::text[]) = 0 OR j.partition = ANY ($5::text[]))
  AND (cardinality($6::bigint[]) = 0 OR j.job_id = ANY ($6::bigint[]))
  AND (cardinality($10::text[]) = 0 OR j.cluster = ANY ($10::text[]))
  AND (NOT $11::bool OR j.user_name = ANY ($12::text[]) OR j.account = ANY ($13::text[]))
  AND (cardinality($14::text[]) = 0 OR j.state = ANY ($14::text[]))
GROUP BY 1, 2, 3
ORDER BY 1, 2, 3;

-- name: ReportDecisions
-- $1, $2: window (cycle start); $3: users; $4: partitions; $5: jobs;
-- $6: clusters; $7..$9: the reader's scope (limited, users, accounts): a
-- decision is in it by its user, or by the account of its job (a job row
-- of that id and user).
SELECT d.action, coalesce(r.reason, '') AS reason,
       count(*) AS decisions,
       count(*) FILTER (WHERE d.outcome = 'applied') AS applied,
       count(DISTINCT d.job_id) AS jobs,
       count(DISTINCT d.cycle_id) AS cycles,
       min(c.started_at) AS first, max(c.started_at) AS last
FROM plan_decision d
JOIN plan_cycle c ON c.cycle_id = d.cycle_id
LEFT JOIN LATERAL unnest(CASE WHEN cardinality(d.reasons) = 0 THEN ARRAY[''] ELSE d.reasons END) AS r(reason) ON true
WHERE c.started_at >= $1::timestamptz AND c.started_at < $2::timestamptz
  AND (cardinality($3::text[]) = 0 OR d.user_name = ANY ($3::text[]))
  AND (cardinality($4::text[]) = 0 OR d.partition = ANY ($4::text[]))
  AND (cardinality($5::bigint[]) = 0 OR d.job_id = ANY ($5::bigint[]))
  AND (cardinality($6::text[]) = 0 OR c.cluster = ANY ($6::text[]))
  AND (NOT $7::bool OR d.user_name = ANY ($8::text[])
       OR EXISTS (SELECT 1 FROM job k WHERE k.job_id = d.job_id AND k.user_name = d.user_name
                                        AND k.account = ANY ($9::text[])))
GROUP BY 1, 2
ORDER BY count(*) DESC, 1, 2;

-- name: ReportJob
-- The latest job with id $1 (by submit time, of any cluster: a reused id
-- shows its newest job) in the reader's scope ($2..$4: limited, users,
-- accounts), and from when it owns its id's rows (NULL when it is its
-- cluster's first job with that id: it owns everything before; see
-- ReportEnergy).
SELECT job_id, cluster, name, user_name, account, partition, nullif(submit_time, '-infinity'),
       start_time, end_time,
       CASE WHEN EXISTS (SELECT 1 FROM job k WHERE k.cluster = j.cluster AND k.job_id = j.job_id
                                              AND k.submit_time < j.submit_time)
            THEN j.submit_time END
FROM job j WHERE job_id = $1
  AND (NOT $2::bool OR j.user_name = ANY ($3::text[]) OR j.account = ANY ($4::text[]))
ORDER BY submit_time DESC, cluster
LIMIT 1;

-- The per-job page's queries take the job's owner as $2 (cluster; NULL:
-- any, when the job has no row) and $3 (from when; NULL: always).

-- name: ReportJobAssignments
SELECT job_id, host, gpu_uuid, t_from, t_to
FROM gpu_assignment
WHERE job_id = $1 AND ($2::text IS NULL OR cluster = $2::text)
  AND ($3::timestamptz IS NULL OR t_to IS NULL OR t_to >= $3::timestamptz)
ORDER BY gpu_uuid, t_from;

-- name: ReportJobTotals
SELECT count(*) AS rows,
       coalesce(sum(gpu_seconds), 0), coalesce(sum(energy_j), 0), coalesce(sum(util_gpu_seconds), 0),
       coalesce(sum(sampled_seconds), 0), coalesce(sum(idle_gpu_seconds), 0), coalesce(sum(idle_energy_j), 0)
FROM job_gpu_hour
WHERE job_id = $1 AND ($2::text IS NULL OR cluster = $2::text)
  AND ($3::timestamptz IS NULL OR t_hi >= $3::timestamptz);

-- name: ReportJobGPUs
-- ReportJobTotals per GPU, with the GPU's memory size (bytes; 0: unknown).
SELECT h.gpu_uuid, min(h.host), sum(h.gpu_seconds), sum(h.energy_j), sum(h.util_gpu_seconds),
       sum(h.sampled_seconds), sum(h.idle_gpu_seconds), sum(h.idle_energy_j), coalesce(max(g.mem_total), 0)
FROM job_gpu_hour h LEFT JOIN gpu g ON g.gpu_uuid = h.gpu_uuid
WHERE h.job_id = $1 AND ($2::text IS NULL OR h.cluster = $2::text)
  AND ($3::timestamptz IS NULL OR h.t_hi >= $3::timestamptz)
GROUP BY h.gpu_uuid
ORDER BY min(h.host), h.gpu_uuid;

-- name: ReportJobGPUSeries
-- One job's GPUs over its assignments (a sample describes the period
-- before it, so the one taken at t_from is not the job's), in $4-second
-- bins: per GPU its mean utilization, peak memory used (bytes) and mean
-- power.
WITH a AS (
    SELECT gpu_uuid, t_from, coalesce(t_to, now()) AS t_to FROM gpu_assignment
    WHERE job_id = $1 AND ($2::text IS NULL OR cluster = $2::text)
      AND ($3::timestamptz IS NULL OR t_to IS NULL OR t_to >= $3::timestamptz)
)
SELECT s.gpu_uuid, date_bin(make_interval(secs => $4::float8), s.ts, timestamptz '2000-01-01') AS t,
       avg(s.util_gpu), max(s.mem_used), avg(s.power_w)
FROM a JOIN gpu_sample s ON s.gpu_uuid = a.gpu_uuid AND s.ts > a.t_from AND s.ts <= a.t_to
GROUP BY 1, 2
ORDER BY 1, 2;

-- name: ReportJobDecisions
-- $2: from when (the owner's $3 above); $3..$5: the reader's scope
-- (limited, users, accounts; as ReportDecisions'). Not filtered by
-- cluster: the planner's cycles carry Slurm's ClusterName, job rows the
-- collector's --cluster, which may differ. The last columns (user, job
-- name, partition) name a job that has no job row.
SELECT d.cycle_id, c.started_at, d.action, array_to_string(d.reasons, ','),
       concat_ws('; ', nullif(d.outcome, ''), nullif(d.detail, '')),
       d.user_name, d.job_name, d.partition
FROM plan_decision d JOIN plan_cycle c ON c.cycle_id = d.cycle_id
WHERE d.job_id = $1 AND ($2::timestamptz IS NULL OR c.started_at >= $2::timestamptz)
  AND (NOT $3::bool OR d.user_name = ANY ($4::text[])
       OR EXISTS (SELECT 1 FROM job k WHERE k.job_id = d.job_id AND k.user_name = d.user_name
                                        AND k.account = ANY ($5::text[])))
ORDER BY d.cycle_id;

-- name: ReportFreshness
-- End of the rolled-up time and end of the assignment activity (open
-- assignments count as now), for the staleness warning of the reports.
-- Written to use the indexes (it runs on every report and page view): t_hi
-- lies inside its row's hour, so the latest hour's rows hold max(t_hi);
-- greatest() ignores NULLs.
SELECT (SELECT max(t_hi) FROM job_gpu_hour WHERE hour = (SELECT max(hour) FROM job_gpu_hour)),
       greatest((SELECT max(t_to) FROM gpu_assignment),
                (SELECT now() WHERE EXISTS (SELECT 1 FROM gpu_assignment WHERE t_to IS NULL)));
