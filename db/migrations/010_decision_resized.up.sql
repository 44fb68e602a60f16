-- 010_decision_resized: each decision row says whether its write changes
-- the job's GPU request (decide.Verdict.Resizes), the per-job resize cap's
-- count (query RewriteCounts), instead of matching the stored body's text
-- (issue 33). Rows written before are filled from their body once, here.
ALTER TABLE plan_decision ADD COLUMN resized boolean NOT NULL DEFAULT false;
UPDATE plan_decision SET resized = true WHERE body LIKE '%"tres\_per\_%';
