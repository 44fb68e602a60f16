-- Calibration of the planner from finished jobs (db/calibration.go).

-- name: CalibrationJobs
-- Jobs of cluster $1 ('' = any) that ended after $2 (completed, or stopped
-- before their end: TIMEOUT at their time limit or CANCELLED after a start,
-- censored runs whose real time is a lower bound), oldest first, at
-- most $3, with what the planner's last stored decision before the job
-- started said about it (its catalog model, the GPU type of its partition,
-- and the uncalibrated modelled run time at the decided workers: NULL
-- unless the job ran on that many GPUs; jobs whose decision has no GPU type
-- are left out: recorded before migration 005, or outside a partition), its real run time, and the
-- energy and GPU time of its GPUs' busy samples (utilization at or above
-- the rollup's idle threshold, 5 % by default: job_gpu_hour, the one
-- definition of per-job energy), and its user (one vote per user in the
-- speed factor). A collector without --cluster stores ''
-- and matches any cluster's cycles, as in PredictionReport.
SELECT j.job_id, j.end_time, j.user_name, pd.model, pd.gpu_type,
       CASE WHEN pd.workers = j.gpus THEN pd.model_seconds END,
       extract(epoch FROM j.end_time - j.start_time)::float8,
       coalesce(h.busy_energy, 0)::float8, coalesce(h.busy_seconds, 0)::float8,
       j.state <> 'COMPLETED'
FROM job j
JOIN LATERAL (
    SELECT d.model, d.gpu_type, d.model_seconds, d.workers
    FROM plan_decision d JOIN plan_cycle c ON c.cycle_id = d.cycle_id
    WHERE d.job_id = j.job_id AND (c.cluster = j.cluster OR j.cluster = '')
      AND c.started_at <= j.start_time AND c.started_at >= j.submit_time
    ORDER BY c.started_at DESC
    LIMIT 1) pd ON true
LEFT JOIN LATERAL (
    SELECT sum(greatest(g.energy_j - g.idle_energy_j, 0)) AS busy_energy,
           sum(greatest(g.sampled_seconds - g.idle_gpu_seconds, 0)) AS busy_seconds
    FROM job_gpu_hour g
    WHERE g.cluster = j.cluster AND g.job_id = j.job_id
      AND g.t_hi > j.start_time AND g.t_lo < j.end_time) h ON true
WHERE ($1 = '' OR j.cluster = $1) AND j.state IN ('COMPLETED', 'TIMEOUT', 'CANCELLED') AND pd.gpu_type IS NOT NULL
  AND j.start_time IS NOT NULL AND j.end_time > j.start_time AND j.end_time > $2
ORDER BY j.end_time, j.job_id
LIMIT $3;
