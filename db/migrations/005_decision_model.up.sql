-- 005_decision_model: what the time model said about a decided job, so
-- that the planner can be calibrated from finished jobs (`strata run`
-- refreshes the calibration; `strata report calibration` shows it): the
-- GPU type of its partition ('' when the GRES is untyped; NULL when not
-- known: decisions recorded before this migration, or jobs outside a known
-- partition), the hint's catalog model ('' when the time model does not
-- time the job itself) and the uncalibrated modelled run time at the
-- decision's workers (NULL when there is none).
ALTER TABLE plan_decision ADD COLUMN gpu_type text,
                          ADD COLUMN model text NOT NULL DEFAULT '',
                          ADD COLUMN model_seconds double precision;
