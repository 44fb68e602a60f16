-- name: UpsertAssignments
INSERT INTO gpu_assignment (job_id, host, gpu_uuid, t_from, t_to)
SELECT j, h, u, f, t
FROM unnest($1::bigint[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[]) AS x(j, h, u, f, t)
ON CONFLICT (job_id, gpu_uuid, t_from) DO UPDATE SET
    t_to = coalesce(excluded.t_to, gpu_assignment.t_to),
    host = excluded.host;

-- name: OpenAssignments
SELECT job_id, host, gpu_uuid, t_from
FROM gpu_assignment
WHERE t_to IS NULL AND ($1::text = '' OR host = $1)
ORDER BY job_id, gpu_uuid, t_from;

-- name: JobAssignments
SELECT job_id, host, gpu_uuid, t_from, t_to
FROM gpu_assignment WHERE job_id = $1
ORDER BY gpu_uuid, t_from;

-- name: UpsertJobs
INSERT INTO job (job_id, cluster, name, user_name, account, partition, state, gpus,
                 submit_time, start_time, end_time, updated_at)
SELECT id, c, n, u, a, p, st, g, sub, sta, en, now()
FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
            $8::int[], $9::timestamptz[], $10::timestamptz[], $11::timestamptz[])
    AS x(id, c, n, u, a, p, st, g, sub, sta, en)
ON CONFLICT (job_id) DO UPDATE SET
    cluster     = excluded.cluster,
    name        = excluded.name,
    user_name   = excluded.user_name,
    account     = excluded.account,
    partition   = excluded.partition,
    state       = excluded.state,
    gpus        = excluded.gpus,
    submit_time = coalesce(excluded.submit_time, job.submit_time),
    start_time  = coalesce(excluded.start_time, job.start_time),
    end_time    = coalesce(excluded.end_time, job.end_time),
    updated_at  = now();
