-- 002_plan_cycles: the audit trail of `strata run` / `strata plan`. One row
-- per plan cycle, one row per stored decision. `strata explain JOBID` and
-- `strata report decisions` read these; a read-only role is enough for them.

CREATE TABLE plan_cycle (
    cycle_id    bigserial PRIMARY KEY,   -- the C of "strata: ... cycle=C"
    cluster     text        NOT NULL,
    snapshot_id text        NOT NULL,
    policy      text        NOT NULL,
    enforce     boolean     NOT NULL,
    started_at  timestamptz NOT NULL,
    duration_ms double precision NOT NULL,
    inputs      jsonb       NOT NULL     -- db.CycleInputs
);
CREATE INDEX plan_cycle_cluster_idx ON plan_cycle (cluster, started_at DESC);

-- A daemon stores a job's decision when it differs from the last one it
-- stored for that job (or anything was written), so a job's rows are the
-- history of what Strata decided for it.
CREATE TABLE plan_decision (
    cycle_id        bigint      NOT NULL REFERENCES plan_cycle (cycle_id) ON DELETE CASCADE,
    job_id          bigint      NOT NULL,
    user_name       text        NOT NULL DEFAULT '',
    partition       text        NOT NULL DEFAULT '',
    job_name        text        NOT NULL DEFAULT '',
    state           text        NOT NULL DEFAULT '',
    requested_gpus  integer     NOT NULL DEFAULT 0,
    cur_priority    bigint      NOT NULL DEFAULT 0,
    action          text        NOT NULL,              -- planner.Action
    start_now       boolean     NOT NULL DEFAULT false,
    workers         integer     NOT NULL DEFAULT 0,
    ps              integer     NOT NULL DEFAULT 0,
    gpus_per_node   integer     NOT NULL DEFAULT 0,
    node_count      integer     NOT NULL DEFAULT 0,
    rank            integer     NOT NULL DEFAULT 0,
    priority        bigint      NOT NULL DEFAULT 0,
    predicted_start timestamptz,
    predicted_end   timestamptz,
    reasons         text[]      NOT NULL,              -- planner.Reason codes
    detail          text        NOT NULL DEFAULT '',
    outcome         text        NOT NULL,              -- slurm.Outcome or kept/held/not-sent
    guard           text        NOT NULL DEFAULT '',
    body            text        NOT NULL DEFAULT '',
    outcome_detail  text        NOT NULL DEFAULT '',
    alternatives    jsonb,                             -- []db.Alternative
    PRIMARY KEY (cycle_id, job_id)
);
CREATE INDEX plan_decision_job_idx ON plan_decision (job_id, cycle_id DESC);
CREATE INDEX plan_decision_applied_idx ON plan_decision (job_id) WHERE outcome = 'applied';
