-- name: FinishedJobs
-- Jobs that completed (state COMPLETED, so that a cancelled or failed run's
-- cut-short time does not teach the predictor) after $2, oldest first, at
-- most $3: the history the duration predictor learns from, with the time
-- limit each ran under (0: none or not recorded).
SELECT user_name, name, partition, gpus, start_time, end_time, coalesce(time_limit_seconds, 0)
FROM job
WHERE ($1 = '' OR cluster = $1) AND state = 'COMPLETED'
  AND start_time IS NOT NULL AND end_time > start_time AND end_time > $2
ORDER BY end_time
LIMIT $3;

-- name: PredictionReport
-- Each job that completed (or was stopped at its time limit: TIMEOUT) in
-- [$1, $2) with the run time the planner predicted for it at its last
-- decision before it started (predicted end − predicted start), the
-- prediction before its user's record corrected it (NULL: none), and its
-- real run time, with the decision's reasons (which say where the
-- prediction came from), its account, id, end time, whether it timed out,
-- and the GPUs it ran on against the decided workers, and the decision's catalog
-- model and GPU type ('' when not known). Filters: users $3, partitions $4,
-- clusters $5 (empty = all). A collector without --cluster stores '' and
-- matches any cluster's cycles.
SELECT j.user_name, j.partition, pd.reasons,
       extract(epoch FROM pd.predicted_end - pd.predicted_start)::float8,
       extract(epoch FROM j.end_time - j.start_time)::float8,
       j.account, j.job_id, j.end_time, pd.claimed_seconds, j.state = 'TIMEOUT', pd.workers = j.gpus,
       coalesce(pd.model, ''), coalesce(pd.gpu_type, '')
FROM job j
JOIN LATERAL (
    SELECT d.reasons, d.predicted_start, d.predicted_end, d.claimed_seconds, d.workers, d.model, d.gpu_type
    FROM plan_decision d JOIN plan_cycle c ON c.cycle_id = d.cycle_id
    WHERE d.job_id = j.job_id AND (c.cluster = j.cluster OR j.cluster = '')
      AND c.started_at <= j.start_time AND c.started_at >= j.submit_time
      AND d.predicted_start IS NOT NULL AND d.predicted_end > d.predicted_start
    ORDER BY c.started_at DESC
    LIMIT 1) pd ON true
WHERE j.state IN ('COMPLETED', 'TIMEOUT') AND j.start_time IS NOT NULL AND j.end_time > j.start_time
  AND j.end_time >= $1 AND j.end_time < $2
  AND (cardinality($3::text[]) = 0 OR j.user_name = ANY($3::text[]))
  AND (cardinality($4::text[]) = 0 OR j.partition = ANY($4::text[]))
  AND (cardinality($5::text[]) = 0 OR j.cluster = ANY($5::text[]))
ORDER BY j.end_time, j.job_id;
