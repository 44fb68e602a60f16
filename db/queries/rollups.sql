-- name: DeleteRollups
DELETE FROM job_energy WHERE job_id = ANY($1::bigint[]);

-- name: InsertRollups
-- Per job and UTC day: energy from counter deltas of the job's GPUs over the
-- job's intervals. Each pair of consecutive samples of a GPU is a segment;
-- a segment contributes the part of its delta that overlaps the interval
-- (linear interpolation). A negative delta is a counter reset (driver
-- reload): the segment counts the larger of the new counter value and the
-- trapezoid of its two power readings. Open assignments end at $2.
-- Samples more than 10 minutes outside an interval are not read.
WITH a AS (
    SELECT job_id, gpu_uuid, t_from, coalesce(t_to, $2::timestamptz) AS t_to
    FROM gpu_assignment
    WHERE job_id = ANY($1::bigint[]) AND coalesce(t_to, $2::timestamptz) > t_from
),
d AS (
    SELECT a.job_id, a.gpu_uuid, g.day::date AS day,
           greatest(a.t_from, g.day) AS f, least(a.t_to, g.day + interval '1 day') AS t
    FROM a CROSS JOIN LATERAL generate_series(date_trunc('day', a.t_from), a.t_to, interval '1 day') AS g(day)
    WHERE least(a.t_to, g.day + interval '1 day') > greatest(a.t_from, g.day)
),
held AS (
    SELECT job_id, day, sum(extract(epoch FROM t - f)) AS gpu_seconds
    FROM d GROUP BY job_id, day
),
seg AS (
    SELECT d.job_id, d.day, d.f, d.t, s.ts, s.energy_mj, s.power_w, s.util_gpu,
           lag(s.ts) OVER w AS prev_ts, lag(s.energy_mj) OVER w AS prev_e, lag(s.power_w) OVER w AS prev_p
    FROM d JOIN gpu_sample s
      ON s.gpu_uuid = d.gpu_uuid
     AND s.ts >= d.f - interval '10 minutes' AND s.ts <= d.t + interval '10 minutes'
    WINDOW w AS (PARTITION BY d.job_id, d.gpu_uuid, d.f ORDER BY s.ts)
),
c AS (
    SELECT job_id, day, util_gpu, energy_mj < prev_e AS reset,
           greatest(0, extract(epoch FROM least(ts, t) - greatest(prev_ts, f))) AS ov,
           extract(epoch FROM ts - prev_ts) AS len,
           CASE WHEN energy_mj >= prev_e THEN (energy_mj - prev_e) / 1000.0
                ELSE greatest(energy_mj / 1000.0, (power_w + prev_p) / 2.0 * extract(epoch FROM ts - prev_ts))
           END AS seg_j
    FROM seg
    WHERE prev_ts IS NOT NULL AND ts > f AND prev_ts < t AND ts > prev_ts
),
e AS (
    SELECT job_id, day,
           sum(seg_j * ov / len)                                  AS energy_j,
           sum(ov)                                                AS covered,
           sum(util_gpu * ov) / 100.0                             AS util_s,
           coalesce(sum(ov) FILTER (WHERE util_gpu < 1), 0)       AS idle_s,
           coalesce(sum(seg_j * ov / len) FILTER (WHERE util_gpu < 1), 0) AS idle_j,
           count(*) FILTER (WHERE reset AND ov > 0)               AS resets
    FROM c GROUP BY job_id, day
)
INSERT INTO job_energy (job_id, day, energy_j, gpu_seconds, util_gpu_seconds, idle_gpu_seconds,
                        idle_energy_j, covered_seconds, counter_resets, computed_at)
SELECT held.job_id, held.day, coalesce(e.energy_j, 0), held.gpu_seconds, coalesce(e.util_s, 0),
       coalesce(e.idle_s, 0), coalesce(e.idle_j, 0), coalesce(e.covered, 0), coalesce(e.resets, 0), now()
FROM held LEFT JOIN e USING (job_id, day);

-- name: JobsTouchedSince
SELECT DISTINCT job_id FROM gpu_assignment
WHERE t_to IS NULL OR t_to >= $1
ORDER BY job_id;

-- name: JobEnergyDays
SELECT job_id, day, energy_j, gpu_seconds, util_gpu_seconds, idle_gpu_seconds, idle_energy_j,
       covered_seconds, counter_resets
FROM job_energy WHERE job_id = $1 ORDER BY day;
