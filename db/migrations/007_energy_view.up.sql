-- 007_energy_view: energy_hour, the hourly per-job, per-GPU rollup rows
-- (job_gpu_hour) with their job's name, user, account and partition, by the
-- rule every report uses (migration 004: a row belongs to the job of its
-- cluster and id submitted last at or before the row's t_hi; the first job
-- also takes rows before its submit time). For dashboards (the shipped
-- Grafana energy dashboard reads it through a Postgres data source) and
-- ad-hoc SQL by the read-only role; additive sums only, like the table.
CREATE VIEW energy_hour AS
SELECT h.hour, h.cluster, h.job_id, h.gpu_uuid, h.host,
       coalesce(j.name, '') AS job_name, coalesce(j.user_name, '') AS user_name,
       coalesce(j.account, '') AS account, coalesce(j.partition, '') AS partition,
       h.gpu_seconds, h.energy_j, h.util_gpu_seconds, h.sampled_seconds,
       h.idle_gpu_seconds, h.idle_energy_j
FROM job_gpu_hour h
LEFT JOIN LATERAL (
    SELECT j.name, j.user_name, j.account, j.partition
    FROM job j
    WHERE j.cluster = h.cluster AND j.job_id = h.job_id
    ORDER BY (j.submit_time <= h.t_hi) DESC,
             CASE WHEN j.submit_time <= h.t_hi THEN j.submit_time END DESC,
             j.submit_time
    LIMIT 1
) j ON true;

COMMENT ON VIEW energy_hour IS
    'Hourly per-job, per-GPU energy and GPU time with the job''s user, account and partition (the reports'' attribution rule). Sums: mean utilization = util_gpu_seconds / sampled_seconds.';
