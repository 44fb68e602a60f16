-- name: UpsertAssignments
-- $6: the cluster of every assignment. Only the cluster that opened an
-- assignment can close it (another cluster's collector resuming every open
-- assignment at start must not end this one's).
INSERT INTO gpu_assignment (job_id, host, gpu_uuid, t_from, t_to, cluster)
SELECT j, h, u, f, t, $6::text
FROM unnest($1::bigint[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[]) AS x(j, h, u, f, t)
ON CONFLICT (job_id, gpu_uuid, t_from) DO UPDATE SET
    t_to = coalesce(excluded.t_to, gpu_assignment.t_to),
    host = excluded.host
WHERE gpu_assignment.cluster = excluded.cluster;

-- name: OpenAssignments
SELECT job_id, host, gpu_uuid, t_from
FROM gpu_assignment
WHERE t_to IS NULL AND ($1::text = '' OR host = $1)
ORDER BY job_id, gpu_uuid, t_from;

-- name: JobAssignments
SELECT job_id, host, gpu_uuid, t_from, t_to
FROM gpu_assignment WHERE job_id = $1
ORDER BY gpu_uuid, t_from;

-- name: AdoptJobSubmitTimes
-- $1 ids, $2 their submit times (known), $3 cluster. A job row whose submit
-- time was not known ('-infinity') becomes the job of the first submit time
-- reported for its id, unless that job has a row already.
UPDATE job j SET submit_time = x.sub
FROM unnest($1::bigint[], $2::timestamptz[]) AS x(id, sub)
WHERE j.cluster = $3::text AND j.job_id = x.id AND j.submit_time = '-infinity'
  AND NOT EXISTS (SELECT 1 FROM job k WHERE k.cluster = $3::text AND k.job_id = x.id AND k.submit_time = x.sub);

-- name: UpsertJobs
-- A job is (cluster, id, submit time): a new submit time for an id is a new
-- job (the id was reused); an unknown one (NULL in $9) updates the cluster's
-- latest job of that id, or creates it with submit time '-infinity'.
-- $12: each job's time limit in seconds (NULL: none or not known).
INSERT INTO job (job_id, cluster, name, user_name, account, partition, state, gpus,
                 submit_time, start_time, end_time, time_limit_seconds, updated_at)
SELECT x.id, $1::text, x.n, x.u, x.a, x.p, x.st, x.g,
       coalesce(x.sub, (SELECT max(k.submit_time) FROM job k WHERE k.cluster = $1::text AND k.job_id = x.id),
                '-infinity'),
       x.sta, x.en, x.lim, now()
FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
            $8::int[], $9::timestamptz[], $10::timestamptz[], $11::timestamptz[], $12::float8[])
    AS x(id, n, u, a, p, st, g, sub, sta, en, lim)
ON CONFLICT (cluster, job_id, submit_time) DO UPDATE SET
    name        = excluded.name,
    user_name   = excluded.user_name,
    account     = excluded.account,
    partition   = excluded.partition,
    -- An ended run stays ended when a later report of the same run has no
    -- end (the collector's view from before the end, written after the
    -- daemon recorded it); a new start without an end is a new run (the job
    -- was requeued), which has not ended.
    state       = CASE WHEN excluded.end_time IS NULL AND job.end_time IS NOT NULL
                        AND (excluded.start_time IS NULL OR excluded.start_time = job.start_time)
                       THEN job.state ELSE excluded.state END,
    gpus        = excluded.gpus,
    -- the limit it runs under (NULL in $12: not known, the one kept)
    time_limit_seconds = coalesce(excluded.time_limit_seconds, job.time_limit_seconds),
    start_time  = coalesce(excluded.start_time, job.start_time),
    end_time    = CASE WHEN excluded.end_time IS NOT NULL THEN excluded.end_time
                       WHEN excluded.start_time IS DISTINCT FROM job.start_time AND excluded.start_time IS NOT NULL THEN NULL
                       ELSE job.end_time END,
    updated_at  = now();

-- name: LatestAssignmentTime
-- The latest time an assignment of cluster $1 opened or closed (NULL: none).
SELECT greatest(max(t_from), max(t_to)) FROM gpu_assignment WHERE cluster = $1;
