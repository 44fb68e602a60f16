-- Per-job energy (db/rollups.go) read from job_gpu_hour, the one rollup
-- (InsertJobGPUHours in reports.sql defines it); nothing here recomputes it.

-- name: JobsTouchedSince
SELECT DISTINCT job_id FROM gpu_assignment
WHERE t_to IS NULL OR t_to >= $1
ORDER BY job_id;

-- name: TouchedFrom
-- Where the assignments open or ended at or after $1 begin (NULL: none).
SELECT min(t_from) FROM gpu_assignment
WHERE t_to IS NULL OR t_to >= $1;

-- name: JobEnergyDays
-- One job id's rollups summed per UTC day (every cluster and instance of
-- that id: see Store.JobEnergyDays).
SELECT (hour AT TIME ZONE 'UTC')::date AS day,
       sum(energy_j), sum(gpu_seconds), sum(util_gpu_seconds) / 100.0, sum(idle_gpu_seconds),
       sum(idle_energy_j), sum(sampled_seconds), sum(counter_resets)
FROM job_gpu_hour WHERE job_id = $1
GROUP BY 1 ORDER BY 1;
