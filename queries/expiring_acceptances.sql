-- answers: Dated risk acceptances to act on, in each project's newest snapshot: those ending within 30
--   days of the snapshot's fetch time (its as-of date) and those already over, whose findings count as
--   open again. The same rows as the executive report's "Risk acceptances to review" section.
-- columns: org, workspace, project_key, attack_run_id (the finding), attack_name, goal_category,
--   severity, state (expired: the finding is open again; expiring: the acceptance still holds),
--   accepted_by (owner), reason, accepted_until (the last day it holds, YYYY-MM-DD, UTC), days_left
--   (whole days from the snapshot's fetch time to the end of the acceptance; negative once over).
-- exclusions: accepted_risk without a dated acceptance (it never ends; the finding stays open) and
--   acceptances ending more than 30 days after the snapshot; findings of an assessment whose slices
--   an analytics warning flags (not counted in any figure). Expired first, then by end date.
SELECT
  f.org,
  f.workspace,
  f.project_key,
  f.attack_run_id,
  f.attack_name,
  f.goal_category,
  f.severity,
  CASE f.acceptance_state WHEN 'expired' THEN 'expired' ELSE 'expiring' END AS state,
  f.accepted_by,
  f.acceptance_reason AS reason,
  f.accepted_until,
  CAST(floor(epoch(f.expires_at - s.fetched_at) / 86400) AS BIGINT) AS days_left
FROM latest_metric_findings f
JOIN snapshots s ON s.snapshot_id = f.snapshot_id
WHERE f.counted
  AND (f.acceptance_state = 'expired'
       OR (f.acceptance_state = 'accepted' AND f.expires_at <= s.fetched_at + INTERVAL 30 DAY))
ORDER BY f.acceptance_state = 'accepted', f.expires_at, f.org, f.workspace, f.project_key, f.attack_run_id;
