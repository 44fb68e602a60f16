-- 001_init: GPUs, day-partitioned samples, jobs, GPU assignments, per-job
-- energy rollups. Applied in one transaction by `strata db migrate`.

CREATE TABLE gpu (
    gpu_uuid     text PRIMARY KEY,
    host         text        NOT NULL,
    device_index integer     NOT NULL,
    minor        integer     NOT NULL,
    bus_id       text        NOT NULL DEFAULT '',
    mem_total    bigint      NOT NULL DEFAULT 0,
    first_seen   timestamptz NOT NULL,
    last_seen    timestamptz NOT NULL
);
CREATE INDEX gpu_host_idx ON gpu (host);

-- Raw readings, keyed by (GPU, time): the key makes re-inserting a batch
-- (spool replay after an uncertain commit) harmless. energy_mj is the raw
-- cumulative counter; job energy is computed from its deltas.
CREATE TABLE gpu_sample (
    ts        timestamptz NOT NULL,
    gpu_uuid  text        NOT NULL,
    host      text        NOT NULL,
    util_gpu  real        NOT NULL,
    util_mem  real        NOT NULL,
    power_w   real        NOT NULL,
    energy_mj bigint      NOT NULL,
    mem_used  bigint      NOT NULL,
    pids      integer[],
    source    text        NOT NULL,
    PRIMARY KEY (gpu_uuid, ts)
) PARTITION BY RANGE (ts);

-- strata_ensure_sample_partition creates the partition of one UTC day if it
-- does not exist and returns its name. Safe under concurrency.
CREATE FUNCTION strata_ensure_sample_partition(day date) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    part text := 'gpu_sample_' || to_char(day, 'YYYYMMDD');
    lo   timestamptz := (day::timestamp AT TIME ZONE 'UTC');
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext(part));
    IF to_regclass(part) IS NULL THEN
        EXECUTE format('CREATE TABLE %I PARTITION OF gpu_sample FOR VALUES FROM (%L) TO (%L)',
                       part, lo, lo + interval '1 day');
    END IF;
    RETURN part;
END $$;

-- strata_drop_sample_partitions drops every daily sample partition of a day
-- before cutoff and returns the names dropped.
CREATE FUNCTION strata_drop_sample_partitions(cutoff date) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
    part text;
BEGIN
    FOR part IN
        SELECT c.relname FROM pg_inherits i
        JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'gpu_sample'::regclass
          AND c.relname ~ '^gpu_sample_[0-9]{8}$'
          AND to_date(substr(c.relname, 12), 'YYYYMMDD') < cutoff
        ORDER BY c.relname
    LOOP
        EXECUTE format('DROP TABLE %I', part);
        RETURN NEXT part;
    END LOOP;
END $$;

-- Slurm jobs, shaped for reports grouped by user/account/partition/day.
CREATE TABLE job (
    job_id      bigint PRIMARY KEY,
    cluster     text        NOT NULL DEFAULT '',
    name        text        NOT NULL DEFAULT '',
    user_name   text        NOT NULL DEFAULT '',
    account     text        NOT NULL DEFAULT '',
    partition   text        NOT NULL DEFAULT '',
    state       text        NOT NULL DEFAULT '',
    gpus        integer     NOT NULL DEFAULT 0,
    submit_time timestamptz,
    start_time  timestamptz,
    end_time    timestamptz,
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX job_user_idx ON job (user_name);
CREATE INDEX job_account_idx ON job (account);

-- Which job held which GPU when; t_to is NULL while the job holds it.
CREATE TABLE gpu_assignment (
    job_id   bigint      NOT NULL,
    host     text        NOT NULL,
    gpu_uuid text        NOT NULL,
    t_from   timestamptz NOT NULL,
    t_to     timestamptz,
    PRIMARY KEY (job_id, gpu_uuid, t_from),
    CHECK (t_to IS NULL OR t_to >= t_from)
);
CREATE INDEX gpu_assignment_gpu_idx ON gpu_assignment (gpu_uuid, t_from);
CREATE INDEX gpu_assignment_open_idx ON gpu_assignment (host) WHERE t_to IS NULL;
CREATE INDEX gpu_assignment_to_idx ON gpu_assignment (t_to);

-- Per-job, per-UTC-day energy rollups. Sums (not means) so that reports can
-- add rows of any grouping: mean utilisation = util_gpu_seconds / gpu_seconds.
CREATE TABLE job_energy (
    job_id           bigint           NOT NULL,
    day              date             NOT NULL,
    energy_j         double precision NOT NULL,
    gpu_seconds      double precision NOT NULL,
    util_gpu_seconds double precision NOT NULL,
    idle_gpu_seconds double precision NOT NULL,
    idle_energy_j    double precision NOT NULL,
    covered_seconds  double precision NOT NULL,
    counter_resets   integer          NOT NULL,
    computed_at      timestamptz      NOT NULL DEFAULT now(),
    PRIMARY KEY (job_id, day)
);
CREATE INDEX job_energy_day_idx ON job_energy (day);
