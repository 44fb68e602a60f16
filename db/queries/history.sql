-- name: FinishedJobs
-- Jobs that completed (state COMPLETED, so that a cancelled or failed run's
-- cut-short time does not teach the predictor) after $2, oldest first, at
-- most $3: the history the duration predictor learns from.
SELECT user_name, name, partition, gpus, start_time, end_time
FROM job
WHERE ($1 = '' OR cluster = $1) AND state = 'COMPLETED'
  AND start_time IS NOT NULL AND end_time > start_time AND end_time > $2
ORDER BY end_time
LIMIT $3;
