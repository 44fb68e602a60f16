-- 011_group_day_rollups: energy_group_day, the hourly rollups (job_gpu_hour)
-- summed per UTC day and job owner group (cluster, user, account,
-- partition) by the reports' attribution rule (migration 004/007: an hour
-- belongs to the job of its cluster and id submitted last at or before its
-- t_hi; the first job also takes earlier hours). A site of 1,000 GPUs has
-- about 6,000 jobs a day but a few hundred groups: a report by user,
-- account or partition over a year reads about 100,000 rows instead of
-- 2.3 million day rows and their 2 million jobs (issue 35.1).
--
-- Jobs are counted exactly across days: jobs counts the day's jobs (owners
-- with an hour of positive length that day), jobs_first those whose first
-- such hour is that day, jobs_resumed those with hours that day, none the
-- day before and some earlier (a gap of a whole day: the report then reads
-- the day rows, ReportEnergyDaily). Over whole days D1 … D2 without a
-- resumed job after D1 the distinct jobs are Σ jobs_first + (jobs −
-- jobs_first) of D1.
--
-- Derived data, like job_host_day: every refresh of hours rebuilds the
-- days they touch (Store.RefreshReportRollups); a change to a job row that
-- moves hours to another group (its user, account or partition, its submit
-- time, a new job reusing the id, a deleted job) marks the days of its
-- hours in rollup_dirty_day (trigger below), and so does a rebuild for the
-- later days of the jobs it touched (their first day may move); a report
-- over a dirty day reads the day rows instead; the next refresh (or
-- `strata report refresh`) rebuilds dirty days. Job states are not part
-- of a group: a report filtered by state reads the day rows.
CREATE TABLE energy_group_day (
    day              timestamptz      NOT NULL,  -- UTC midnight
    cluster          text             NOT NULL,
    user_name        text             NOT NULL,  -- '' when the hours have no job row
    account          text             NOT NULL,
    partition        text             NOT NULL,
    jobs             integer          NOT NULL,
    jobs_first       integer          NOT NULL,
    jobs_resumed     integer          NOT NULL,
    gpu_seconds      double precision NOT NULL,
    energy_j         double precision NOT NULL,
    util_gpu_seconds double precision NOT NULL,
    sampled_seconds  double precision NOT NULL,
    idle_gpu_seconds double precision NOT NULL,
    idle_energy_j    double precision NOT NULL,
    PRIMARY KEY (day, cluster, user_name, account, partition)
);
COMMENT ON TABLE energy_group_day IS
    'job_gpu_hour summed per UTC day and owner group (derived: rebuilt with the hours it sums; reports by user, account or partition read it for whole days)';

CREATE TABLE rollup_dirty_day (
    day timestamptz PRIMARY KEY  -- UTC midnight whose energy_group_day rows may be stale
);

-- The group rows of the UTC days [lo, hi) as they follow from the hourly
-- rows and the job table: one definition, for the rebuild and the check.
CREATE FUNCTION strata_energy_group_days(lo timestamptz, hi timestamptz)
RETURNS SETOF energy_group_day LANGUAGE sql STABLE AS $$
WITH h AS (
    SELECT date_trunc('day', h.hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS day, h.cluster, h.job_id, h.t_hi,
           h.gpu_seconds, h.energy_j, h.util_gpu_seconds, h.sampled_seconds, h.idle_gpu_seconds, h.idle_energy_j
    FROM public.job_gpu_hour h
    WHERE h.hour >= lo AND h.hour < hi AND h.t_hi > h.t_lo
),
ji AS (
    SELECT j.cluster, j.job_id, j.submit_time, j.user_name, j.account, j.partition,
           row_number() OVER w = 1 AS first, lead(j.submit_time) OVER w AS next_submit
    FROM public.job j
    WHERE (j.cluster, j.job_id) IN (SELECT cluster, job_id FROM h)
    WINDOW w AS (PARTITION BY j.cluster, j.job_id ORDER BY j.submit_time)
),
x AS (
    SELECT h.*, j.submit_time, j.first, j.next_submit, coalesce(j.user_name, '') AS user_name,
           coalesce(j.account, '') AS account, coalesce(j.partition, '') AS partition
    FROM h LEFT JOIN ji j
      ON j.cluster = h.cluster AND j.job_id = h.job_id
     AND (j.first OR j.submit_time <= h.t_hi) AND (j.next_submit IS NULL OR j.next_submit > h.t_hi)
),
o AS (
    SELECT DISTINCT day, cluster, job_id, submit_time, first, next_submit, user_name, account, partition FROM x
),
ob AS (
    SELECT o.*,
           EXISTS (SELECT 1 FROM public.job_gpu_hour p
                   WHERE p.job_id = o.job_id AND p.cluster = o.cluster AND p.hour < o.day AND p.t_hi > p.t_lo
                     AND (o.submit_time IS NULL OR o.first OR p.t_hi >= o.submit_time)
                     AND (o.next_submit IS NULL OR p.t_hi < o.next_submit)) AS before,
           EXISTS (SELECT 1 FROM public.job_gpu_hour p
                   WHERE p.job_id = o.job_id AND p.cluster = o.cluster AND p.t_hi > p.t_lo
                     AND p.hour >= o.day - interval '24 hours' AND p.hour < o.day
                     AND (o.submit_time IS NULL OR o.first OR p.t_hi >= o.submit_time)
                     AND (o.next_submit IS NULL OR p.t_hi < o.next_submit)) AS day_before
    FROM o
),
c AS (
    SELECT day, cluster, user_name, account, partition, count(*)::integer AS jobs,
           (count(*) FILTER (WHERE NOT before))::integer AS jobs_first,
           (count(*) FILTER (WHERE before AND NOT day_before))::integer AS jobs_resumed
    FROM ob GROUP BY 1, 2, 3, 4, 5
),
s AS (
    SELECT day, cluster, user_name, account, partition, sum(gpu_seconds) AS gpu_seconds, sum(energy_j) AS energy_j,
           sum(util_gpu_seconds) AS util_gpu_seconds, sum(sampled_seconds) AS sampled_seconds,
           sum(idle_gpu_seconds) AS idle_gpu_seconds, sum(idle_energy_j) AS idle_energy_j
    FROM x GROUP BY 1, 2, 3, 4, 5
)
SELECT s.day, s.cluster, s.user_name, s.account, s.partition, c.jobs, c.jobs_first, c.jobs_resumed,
       s.gpu_seconds, s.energy_j, s.util_gpu_seconds, s.sampled_seconds, s.idle_gpu_seconds, s.idle_energy_j
FROM s JOIN c USING (day, cluster, user_name, account, partition)
$$;

INSERT INTO energy_group_day
SELECT * FROM strata_energy_group_days('-infinity', 'infinity');

-- energy_job_day: the hourly rows summed per UTC day and owner job
-- (cluster, id and submit time; NULL: the hours have no job row), by the
-- same rule, for reports by job (they join the owner's job row for its
-- name, user, account, partition and state, instead of finding each id's
-- owner among all job rows). Derived, rebuilt and marked dirty with
-- energy_group_day.
CREATE TABLE energy_job_day (
    day              timestamptz      NOT NULL,  -- UTC midnight
    cluster          text             NOT NULL,
    job_id           bigint           NOT NULL,
    submit_time      timestamptz,                -- the owner job's; NULL: no job row
    gpu_seconds      double precision NOT NULL,
    energy_j         double precision NOT NULL,
    util_gpu_seconds double precision NOT NULL,
    sampled_seconds  double precision NOT NULL,
    idle_gpu_seconds double precision NOT NULL,
    idle_energy_j    double precision NOT NULL
);
CREATE INDEX energy_job_day_day_idx ON energy_job_day (day);
COMMENT ON TABLE energy_job_day IS
    'job_gpu_hour summed per UTC day and owner job (derived: rebuilt with the hours it sums; reports by job read it for whole days)';

CREATE FUNCTION strata_energy_job_days(lo timestamptz, hi timestamptz)
RETURNS SETOF energy_job_day LANGUAGE sql STABLE AS $$
WITH h AS (
    SELECT date_trunc('day', h.hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS day, h.cluster, h.job_id, h.t_hi,
           h.gpu_seconds, h.energy_j, h.util_gpu_seconds, h.sampled_seconds, h.idle_gpu_seconds, h.idle_energy_j
    FROM public.job_gpu_hour h
    WHERE h.hour >= lo AND h.hour < hi AND h.t_hi > h.t_lo
),
ji AS (
    SELECT j.cluster, j.job_id, j.submit_time,
           row_number() OVER w = 1 AS first, lead(j.submit_time) OVER w AS next_submit
    FROM public.job j
    WHERE (j.cluster, j.job_id) IN (SELECT cluster, job_id FROM h)
    WINDOW w AS (PARTITION BY j.cluster, j.job_id ORDER BY j.submit_time)
)
SELECT h.day, h.cluster, h.job_id, j.submit_time, sum(h.gpu_seconds), sum(h.energy_j), sum(h.util_gpu_seconds),
       sum(h.sampled_seconds), sum(h.idle_gpu_seconds), sum(h.idle_energy_j)
FROM h LEFT JOIN ji j
  ON j.cluster = h.cluster AND j.job_id = h.job_id
 AND (j.first OR j.submit_time <= h.t_hi) AND (j.next_submit IS NULL OR j.next_submit > h.t_hi)
GROUP BY h.day, h.cluster, h.job_id, j.submit_time
$$;

INSERT INTO energy_job_day
SELECT * FROM strata_energy_job_days('-infinity', 'infinity');

-- A change to job rows that can move hours to another group marks the days
-- of those jobs' hours dirty. Statement triggers with transition tables:
-- one scan per statement (the collector upserts jobs in batches), and a
-- state change alone marks nothing. SECURITY DEFINER: whoever may write
-- job rows may mark days.
CREATE FUNCTION strata_job_groups_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO rollup_dirty_day
        SELECT DISTINCT d.day FROM job_host_day d JOIN (SELECT DISTINCT cluster, job_id FROM n) c
          ON d.job_id = c.job_id AND d.cluster = c.cluster
        ON CONFLICT DO NOTHING;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO rollup_dirty_day
        SELECT DISTINCT d.day FROM job_host_day d JOIN (SELECT DISTINCT cluster, job_id FROM o) c
          ON d.job_id = c.job_id AND d.cluster = c.cluster
        ON CONFLICT DO NOTHING;
    ELSE
        INSERT INTO rollup_dirty_day
        SELECT DISTINCT d.day FROM job_host_day d JOIN (
            (SELECT cluster, job_id, submit_time, user_name, account, partition FROM n
             EXCEPT SELECT cluster, job_id, submit_time, user_name, account, partition FROM o)
            UNION
            (SELECT cluster, job_id, submit_time, user_name, account, partition FROM o
             EXCEPT SELECT cluster, job_id, submit_time, user_name, account, partition FROM n)) c
          ON d.job_id = c.job_id AND d.cluster = c.cluster
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER job_groups_inserted AFTER INSERT ON job REFERENCING NEW TABLE AS n
    FOR EACH STATEMENT EXECUTE FUNCTION strata_job_groups_changed();
CREATE TRIGGER job_groups_updated AFTER UPDATE ON job REFERENCING OLD TABLE AS o NEW TABLE AS n
    FOR EACH STATEMENT EXECUTE FUNCTION strata_job_groups_changed();
CREATE TRIGGER job_groups_deleted AFTER DELETE ON job REFERENCING OLD TABLE AS o
    FOR EACH STATEMENT EXECUTE FUNCTION strata_job_groups_changed();

-- Whoever reads the hourly rollups reads these (as migration 009).
DO $$
DECLARE r text;
BEGIN
    FOR r IN SELECT DISTINCT grantee FROM information_schema.role_table_grants
             WHERE table_schema = 'public' AND table_name = 'job_gpu_hour' AND privilege_type = 'SELECT'
               AND grantee <> current_user AND grantee <> 'PUBLIC'
    LOOP
        EXECUTE format('GRANT SELECT ON public.energy_group_day, public.energy_job_day, public.rollup_dirty_day TO %I', r);
    END LOOP;
END $$;

-- A per-user role (migration 008) reads the groups of its scope: a group
-- is its jobs' user and account, so its rows are exactly its jobs' hours.
CREATE VIEW strata_user.energy_group_day WITH (security_barrier) AS
SELECT g.* FROM public.energy_group_day g
WHERE EXISTS (SELECT 1 FROM strata_user.me m WHERE g.user_name = m.slurm_user OR g.account = ANY (m.accounts));

-- Its own jobs' day rows (the owner's job row in its scope).
CREATE VIEW strata_user.energy_job_day WITH (security_barrier) AS
SELECT e.* FROM public.energy_job_day e
WHERE EXISTS (SELECT 1 FROM public.job j JOIN strata_user.me m ON j.user_name = m.slurm_user OR j.account = ANY (m.accounts)
              WHERE j.cluster = e.cluster AND j.job_id = e.job_id AND j.submit_time = e.submit_time);

CREATE VIEW strata_user.rollup_dirty_day AS SELECT * FROM public.rollup_dirty_day;

-- Roles given a per-user read path before this migration were granted the
-- views that existed then: grant them the new ones too.
DO $$
DECLARE r text;
BEGIN
    FOR r IN SELECT DISTINCT grantee FROM information_schema.role_table_grants
             WHERE table_schema = 'strata_user' AND table_name = 'job_gpu_hour' AND privilege_type = 'SELECT'
               AND grantee <> current_user AND grantee <> 'PUBLIC'
    LOOP
        EXECUTE format('GRANT SELECT ON strata_user.energy_group_day, strata_user.energy_job_day, strata_user.rollup_dirty_day TO %I', r);
    END LOOP;
END $$;
