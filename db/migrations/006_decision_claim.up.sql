-- 006_decision_claim: what each user's record of claims needs (issue 22).
-- claimed_seconds is the predicted run time before the user's own record
-- corrected it (planner.Decision.Claimed; NULL when no correction applied:
-- the prediction is predicted_end − predicted_start), so that the record
-- compares real run times with what the hint claimed, never with its own
-- correction. time_limit_seconds is the time limit Strata lowered the job
-- to when its claim bound it (Decision.TimeLimit; NULL: none).
ALTER TABLE plan_decision ADD COLUMN claimed_seconds double precision,
                          ADD COLUMN time_limit_seconds double precision;
