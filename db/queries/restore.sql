-- What `strata restore` reads of the audit trail (db/restore.go).

-- name: RestoreTrail
-- $1 cluster, $2 job ids, $3 their submit times. Per job, in cycle order:
-- its first stored decision since its submission (the GPUs, partition and
-- priority the job had before Strata wrote anything) and every write that
-- took effect (outcome applied: the bodies say what Strata last wrote).
-- Rows of `strata restore` itself (policy restore) are left out.
SELECT job_id, cycle_id, requested_gpus, partition, cur_priority, outcome, body
FROM (
    SELECT d.job_id, d.cycle_id, d.requested_gpus, d.partition, d.cur_priority, d.outcome, d.body,
           row_number() OVER (PARTITION BY d.job_id ORDER BY d.cycle_id) AS n
    FROM unnest($2::bigint[], $3::timestamptz[]) AS j(job_id, submitted)
    JOIN plan_decision d ON d.job_id = j.job_id
    JOIN plan_cycle c ON c.cycle_id = d.cycle_id
    WHERE c.cluster = $1 AND c.policy <> 'restore' AND c.started_at >= j.submitted
) t
WHERE n = 1 OR outcome = 'applied'
ORDER BY job_id, cycle_id;
