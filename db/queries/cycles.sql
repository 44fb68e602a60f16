-- Audit trail of plan cycles (migration 002_plan_cycles); Go side in cycles.go.

-- name: ReserveCycleID
SELECT nextval(pg_get_serial_sequence('plan_cycle', 'cycle_id'));

-- name: InsertCycle
INSERT INTO plan_cycle (cycle_id, cluster, snapshot_id, policy, enforce, started_at, duration_ms, inputs)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
ON CONFLICT (cycle_id) DO NOTHING;

-- name: RewriteCounts
-- Applied writes that changed the job's GPU request (resized, the guards'
-- verdict): the per-job cap limits resizes, not priority or begin time
-- updates. Only cycles since each job's submission count: Slurm reuses
-- job IDs after its state is wiped (test clusters) or MaxJobId wraps.
SELECT d.job_id, count(*)
FROM unnest($2::bigint[], $3::timestamptz[]) AS j(job_id, submitted)
JOIN plan_decision d ON d.job_id = j.job_id
JOIN plan_cycle c ON c.cycle_id = d.cycle_id
WHERE c.cluster = $1 AND d.outcome = 'applied' AND c.started_at >= j.submitted
  AND d.resized
GROUP BY d.job_id;

-- name: WriteCounts
-- Every write attempted on each job since its submission (outcome applied
-- or failed; signals are counted apart), and the failed ones: the guards'
-- per-job write caps (--max-writes-per-job, --max-failed-writes).
SELECT d.job_id, count(*), count(*) FILTER (WHERE d.outcome = 'failed')
FROM unnest($2::bigint[], $3::timestamptz[]) AS j(job_id, submitted)
JOIN plan_decision d ON d.job_id = j.job_id
JOIN plan_cycle c ON c.cycle_id = d.cycle_id
WHERE c.cluster = $1 AND d.outcome IN ('applied', 'failed') AND c.started_at >= j.submitted
GROUP BY d.job_id;

-- name: PreemptionCounts
-- How often each job was sent its checkpoint signal since $2 (the guard's
-- per-day cap on preemptions).
SELECT d.job_id, count(*)
FROM plan_decision d
JOIN plan_cycle c ON c.cycle_id = d.cycle_id
WHERE c.cluster = $1 AND d.outcome = 'signalled' AND c.started_at >= $2 AND d.job_id = ANY($3::bigint[])
GROUP BY d.job_id;

-- name: DecisionsForJob
SELECT c.cycle_id, c.cluster, c.policy, c.enforce, c.snapshot_id, c.started_at,
       d.job_id, d.user_name, d.partition, d.job_name, d.state, d.requested_gpus, d.cur_priority,
       d.action, d.start_now, d.workers, d.ps, d.gpus_per_node, d.node_count, d.rank, d.priority,
       d.predicted_start, d.predicted_end, d.reasons, d.detail, d.outcome, d.guard, d.body,
       d.outcome_detail, d.alternatives, c.inputs->'settings', d.claimed_seconds, d.time_limit_seconds, d.resized
FROM plan_decision d JOIN plan_cycle c USING (cycle_id)
WHERE d.job_id = $1 AND ($2 = '' OR c.cluster = $2)
ORDER BY c.cycle_id DESC
LIMIT $3;

-- name: LatestCycle
SELECT cycle_id, cluster, snapshot_id, policy, enforce, started_at, duration_ms, inputs
FROM plan_cycle
WHERE ($1 = '' OR cluster = $1)
ORDER BY cycle_id DESC
LIMIT 1;

-- name: PruneCycles
DELETE FROM plan_cycle WHERE started_at < $1;

-- name: LatestSampleTime
SELECT max(ts) FROM gpu_sample WHERE ts > $1;
