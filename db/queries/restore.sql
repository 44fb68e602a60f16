-- What `strata restore` reads of the audit trail (db/restore.go).

-- name: RestoreTrail
-- $1 cluster, $2 job ids, $3 their submit times. Per job, in cycle order:
-- its first stored decision since its submission (the GPUs, partition and
-- priority the job had before Strata wrote anything) and every write that
-- took effect (outcome applied: the bodies say what Strata last wrote)
-- after the last `strata restore` of the job (whose own rows, policy
-- restore, are left out).
SELECT job_id, cycle_id, requested_gpus, partition, cur_priority, outcome, body, restored
FROM (
    SELECT d.job_id, d.cycle_id, d.requested_gpus, d.partition, d.cur_priority, d.outcome, d.body,
           row_number() OVER (PARTITION BY d.job_id ORDER BY d.cycle_id) AS n,
           coalesce((SELECT max(r.cycle_id) FROM plan_decision r JOIN plan_cycle rc ON rc.cycle_id = r.cycle_id
                     WHERE r.job_id = d.job_id AND rc.cluster = $1 AND rc.policy = 'restore'
                       AND r.outcome = 'applied' AND rc.started_at >= j.submitted), 0) AS restored
    FROM unnest($2::bigint[], $3::timestamptz[]) AS j(job_id, submitted)
    JOIN plan_decision d ON d.job_id = j.job_id
    JOIN plan_cycle c ON c.cycle_id = d.cycle_id
    WHERE c.cluster = $1 AND c.policy <> 'restore' AND c.started_at >= j.submitted
) t
WHERE n = 1 OR (outcome = 'applied' AND cycle_id > restored)
ORDER BY job_id, cycle_id;

-- name: LoweredLimit
-- $1 job id, $2 cluster ('' = any). The latest applied write of Strata's
-- that lowered the job's time limit (a bound claim), unless `strata restore`
-- wrote the job since: `strata explain` keeps telling it while it holds.
SELECT d.cycle_id, c.started_at, d.time_limit_seconds, d.detail
FROM plan_decision d JOIN plan_cycle c USING (cycle_id)
WHERE d.job_id = $1 AND ($2 = '' OR c.cluster = $2) AND d.outcome = 'applied'
  AND d.time_limit_seconds IS NOT NULL AND c.policy <> 'restore'
  AND NOT EXISTS (
      SELECT 1 FROM plan_decision r JOIN plan_cycle rc USING (cycle_id)
      WHERE r.job_id = d.job_id AND rc.cluster = c.cluster AND rc.policy = 'restore'
        AND r.outcome = 'applied' AND r.cycle_id > d.cycle_id)
ORDER BY d.cycle_id DESC
LIMIT 1;
