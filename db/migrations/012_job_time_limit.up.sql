-- 012_job_time_limit: each job record keeps the time limit it ran under,
-- from which the duration predictor learns how much of their limits a
-- user's jobs use (planner/history: the limit-share estimate). Jobs
-- recorded before keep NULL (unknown).
ALTER TABLE job ADD COLUMN time_limit_seconds double precision;
