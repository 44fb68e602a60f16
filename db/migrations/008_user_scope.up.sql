-- 008_user_scope: a per-user read path in the database, as sacct scopes
-- jobs: a Postgres role listed in strata_user_scope reads, through the
-- views of schema strata_user (named as the tables they filter), only the
-- jobs of its Slurm user and of the accounts it coordinates, and the
-- rows that belong to them: telemetry, rollups, decisions. The tables in
-- public, the writers (daemon, collector) and the read-only admin role
-- (strata_read) are untouched: views, not row-level security, because
-- COPY FROM (how samples and decisions are written) is refused on a table
-- with row-level security to every role that is not its owner, and
-- because views work on every Postgres Strata supports (13+).
--
-- An admin gives a user a role (docs/operations.md, "Per-user database
-- access"; this migration creates no role, as the migrating role may not
-- be allowed to):
--   CREATE ROLE alice LOGIN;                  -- no grant on public's tables
--   GRANT USAGE ON SCHEMA strata_user TO alice;
--   GRANT SELECT ON ALL TABLES IN SCHEMA strata_user TO alice;
--   GRANT SELECT ON strata_schema_version TO alice;
--   ALTER ROLE alice SET search_path = strata_user, public;
--   INSERT INTO strata_user_scope VALUES ('alice', 'alice', '{}');
-- A role that is not listed sees no job through the views. The views list
-- their tables' columns as of this migration: one that adds a column to
-- such a table re-creates its view.

CREATE TABLE strata_user_scope (
    db_role    text   PRIMARY KEY,          -- a Postgres role name (current_user)
    slurm_user text   NOT NULL DEFAULT '',  -- its Slurm user ('' = none)
    accounts   text[] NOT NULL DEFAULT '{}' -- Slurm accounts it coordinates
);
COMMENT ON TABLE strata_user_scope IS
    'Per-user database access: the Slurm user and accounts whose jobs each Postgres role sees through schema strata_user';

CREATE SCHEMA strata_user;

-- The reader's own mapping (one row, or none).
CREATE VIEW strata_user.me WITH (security_barrier) AS
SELECT nullif(slurm_user, '') AS slurm_user, accounts
FROM public.strata_user_scope WHERE db_role = current_user;

CREATE VIEW strata_user.job WITH (security_barrier) AS
SELECT j.* FROM public.job j
WHERE EXISTS (SELECT 1 FROM strata_user.me m
              WHERE j.user_name = m.slurm_user OR j.account = ANY (m.accounts));

-- A rollup row or assignment belongs to the job of its cluster and id
-- submitted last at or before it (the reports' rule, migration 004/007).
CREATE VIEW strata_user.job_gpu_hour WITH (security_barrier) AS
SELECT h.* FROM public.job_gpu_hour h
WHERE EXISTS (
    SELECT 1 FROM (SELECT j.user_name, j.account FROM public.job j
                   WHERE j.cluster = h.cluster AND j.job_id = h.job_id
                   ORDER BY (j.submit_time <= h.t_hi) DESC,
                            CASE WHEN j.submit_time <= h.t_hi THEN j.submit_time END DESC, j.submit_time
                   LIMIT 1) o
    JOIN strata_user.me m ON o.user_name = m.slurm_user OR o.account = ANY (m.accounts));

CREATE VIEW strata_user.gpu_assignment WITH (security_barrier) AS
SELECT a.* FROM public.gpu_assignment a
WHERE EXISTS (
    SELECT 1 FROM (SELECT j.user_name, j.account FROM public.job j
                   WHERE j.cluster = a.cluster AND j.job_id = a.job_id
                   ORDER BY (j.submit_time <= a.t_from) DESC,
                            CASE WHEN j.submit_time <= a.t_from THEN j.submit_time END DESC, j.submit_time
                   LIMIT 1) o
    JOIN strata_user.me m ON o.user_name = m.slurm_user OR o.account = ANY (m.accounts));

-- Samples of a GPU while one of the reader's jobs held it.
CREATE VIEW strata_user.gpu_sample WITH (security_barrier) AS
SELECT s.* FROM public.gpu_sample s
WHERE EXISTS (SELECT 1 FROM strata_user.gpu_assignment a
              WHERE a.gpu_uuid = s.gpu_uuid AND s.ts > a.t_from AND (a.t_to IS NULL OR s.ts <= a.t_to));

-- Decisions by their user, or by the account of their job (a job row of
-- that id and user).
CREATE VIEW strata_user.plan_decision WITH (security_barrier) AS
SELECT d.* FROM public.plan_decision d
WHERE EXISTS (SELECT 1 FROM strata_user.me m
              WHERE d.user_name = m.slurm_user
                 OR EXISTS (SELECT 1 FROM public.job k WHERE k.job_id = d.job_id AND k.user_name = d.user_name
                                                       AND k.account = ANY (m.accounts)));

CREATE VIEW strata_user.energy_hour WITH (security_barrier) AS
SELECT e.* FROM public.energy_hour e
WHERE EXISTS (SELECT 1 FROM strata_user.me m WHERE e.user_name = m.slurm_user OR e.account = ANY (m.accounts));

-- Cycles (counts and settings, no user's data) and GPUs (inventory) are
-- the same for everyone.
CREATE VIEW strata_user.plan_cycle AS SELECT * FROM public.plan_cycle;
CREATE VIEW strata_user.gpu AS SELECT * FROM public.gpu;
