-- 003_report_rollups: hourly per-job, per-GPU rollups for `strata report`
-- and `strata serve`. Filled from gpu_sample and gpu_assignment by
-- Store.RefreshReportRollups (after ingestion, or `strata report refresh`);
-- reports never read gpu_sample. Additive sums only, so any grouping can
-- add rows; t_lo/t_hi bound the allocated time inside the hour so that a
-- report window cutting the hour pro-rates the row by its overlap.
CREATE TABLE job_gpu_hour (
    hour             timestamptz      NOT NULL,  -- UTC hour start
    job_id           bigint           NOT NULL,
    gpu_uuid         text             NOT NULL,
    host             text             NOT NULL,
    t_lo             timestamptz      NOT NULL,  -- first allocated instant in the hour
    t_hi             timestamptz      NOT NULL,  -- last allocated instant in the hour
    gpu_seconds      double precision NOT NULL,  -- allocated GPU time
    energy_j         double precision NOT NULL,  -- counter deltas (shared GPU: split equally)
    util_gpu_seconds double precision NOT NULL,  -- Σ util% × seconds over sampled time
    sampled_seconds  double precision NOT NULL,  -- allocated time covered by samples
    idle_gpu_seconds double precision NOT NULL,  -- sampled time below the idle threshold
    idle_energy_j    double precision NOT NULL,
    PRIMARY KEY (hour, job_id, gpu_uuid)
);
CREATE INDEX job_gpu_hour_job_idx ON job_gpu_hour (job_id);
