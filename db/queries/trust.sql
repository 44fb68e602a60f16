-- Each user's record of predicted against real run times (db/trust.go).

-- name: TrustOutcomes
-- Jobs of cluster $1 ('' = any) that finished after $2 (completed, or
-- stopped at their time limit: TIMEOUT), oldest first, at most $3, with a
-- user, and with what the planner predicted for them at its last decision
-- before they started: the prediction before the user's record corrected
-- it (claimed_seconds, else predicted end − predicted start), only when
-- the job ran on the decided number of GPUs, its GPUs (the record
-- weighs jobs by GPU-hours), and whether that prediction was not the
-- hint's (the decision's reasons lack $4, planner.ReasonModelled:
-- trust.Outcome.NoClaim, left out of the record). A collector without
-- --cluster stores '' and matches any cluster's cycles.
SELECT j.user_name, j.account, j.job_id, j.end_time,
       coalesce(pd.claimed_seconds, extract(epoch FROM pd.predicted_end - pd.predicted_start))::float8,
       extract(epoch FROM j.end_time - j.start_time)::float8,
       j.state = 'TIMEOUT', j.gpus, NOT ($4 = ANY(pd.reasons))
FROM job j
JOIN LATERAL (
    SELECT d.claimed_seconds, d.predicted_start, d.predicted_end, d.workers, d.reasons
    FROM plan_decision d JOIN plan_cycle c ON c.cycle_id = d.cycle_id
    WHERE d.job_id = j.job_id AND (c.cluster = j.cluster OR j.cluster = '')
      AND c.started_at <= j.start_time AND c.started_at >= j.submit_time
      AND d.predicted_start IS NOT NULL AND d.predicted_end > d.predicted_start
    ORDER BY c.started_at DESC
    LIMIT 1) pd ON true
WHERE ($1 = '' OR j.cluster = $1) AND j.state IN ('COMPLETED', 'TIMEOUT') AND j.user_name <> ''
  AND j.start_time IS NOT NULL AND j.end_time > j.start_time AND j.end_time > $2
  AND pd.workers = j.gpus
ORDER BY j.end_time, j.job_id
LIMIT $3;

-- name: TrustRunning
-- The running jobs $2 (ids), submitted at $3 and started at $4 on $5 GPUs,
-- of cluster $1 ('' = any cluster's cycles), each with what the planner
-- predicted for its run at its last decision before it started (as
-- TrustOutcomes: before the user's record corrected it, only when the job
-- runs on the decided number of GPUs) and whether that prediction was not
-- the hint's (the decision's reasons lack $6, planner.ReasonModelled).
-- A job with no such decision is left out.
SELECT r.id,
       coalesce(pd.claimed_seconds, extract(epoch FROM pd.predicted_end - pd.predicted_start))::float8,
       NOT ($6 = ANY(pd.reasons))
FROM unnest($2::bigint[], $3::timestamptz[], $4::timestamptz[], $5::int[]) AS r(id, sub, sta, g)
JOIN LATERAL (
    SELECT d.claimed_seconds, d.predicted_start, d.predicted_end, d.workers, d.reasons
    FROM plan_decision d JOIN plan_cycle c ON c.cycle_id = d.cycle_id
    WHERE d.job_id = r.id AND ($1 = '' OR c.cluster = $1)
      AND c.started_at <= r.sta AND c.started_at >= r.sub
      AND d.predicted_start IS NOT NULL AND d.predicted_end > d.predicted_start
    ORDER BY c.started_at DESC
    LIMIT 1) pd ON true
WHERE pd.workers = r.g
ORDER BY r.id;
