-- name: NodeActivity
-- Busy GPUs per host and interval, for the power-down advice: for each
-- interval [b, b + $3) of the window [$1, $2) (b = $1 + k·$3), how many
-- distinct GPUs of the host a job held at some time in it. Open assignments
-- count up to $2. Only intervals with a busy GPU are returned. Reads
-- gpu_assignment only (never gpu_sample).
SELECT a.host, b.b AS bucket, count(DISTINCT a.gpu_uuid)::int AS busy_gpus
FROM gpu_assignment a
CROSS JOIN LATERAL generate_series(
    date_bin($3::interval, greatest(a.t_from, $1::timestamptz), $1::timestamptz),
    least(coalesce(a.t_to, $2::timestamptz), $2::timestamptz),
    $3::interval) AS b(b)
WHERE a.t_from < $2::timestamptz AND (a.t_to IS NULL OR a.t_to > $1::timestamptz)
  AND b.b < least(coalesce(a.t_to, $2::timestamptz), $2::timestamptz)
GROUP BY a.host, b.b
ORDER BY a.host, b.b;

-- name: NodeInventory
-- Every host the collector has seen a GPU of since $2: its GPU count, when
-- it last reported a sample (gpu.last_seen), when a job last held one of its
-- GPUs before $1 (an open assignment: $1; NULL when never), and whether a
-- job holds one at $1.
SELECT g.host, count(*)::int AS gpus, max(g.last_seen) AS last_seen,
       (SELECT max(coalesce(least(a.t_to, $1::timestamptz), $1::timestamptz))
        FROM gpu_assignment a WHERE a.host = g.host AND a.t_from <= $1::timestamptz) AS last_busy,
       EXISTS (SELECT 1 FROM gpu_assignment a
               WHERE a.host = g.host AND a.t_from <= $1::timestamptz
                 AND (a.t_to IS NULL OR a.t_to > $1::timestamptz)) AS busy
FROM gpu g
GROUP BY g.host
HAVING max(g.last_seen) >= $2::timestamptz
ORDER BY g.host;
