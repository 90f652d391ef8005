-- answers: The most severe findings still open, across projects (latest snapshots), after triage: one
--   row per finding (view latest_findings, the findings the reports' open-findings figure counts).
-- columns: org, workspace, project_key (keys are unique only inside a workspace), severity (triaged
--   severity when a triage changed it), scored_severity (from the score), score, attack_name,
--   goal_category, goal, assessment_name, attack_run_id, finding_status, finding_type, triage_notes,
--   warned_slices (the finding's assessment slices an analytics warning flags; top-finding text from a
--   flagged top_findings slice is not used).
-- exclusions: findings triaged false_positive or remediated, per the snapshot's own FindingDetail
--   (view snapshot_finding_triage); findings of an assessment whose attack_runs or severity_breakdown slice is flagged
--   by an analytics warning (not counted in any figure). The 100 most severe.
SELECT
  org,
  workspace,
  project_key,
  severity,
  scored_severity,
  best_score AS score,
  attack_name,
  goal_category,
  goal,
  assessment_name,
  attack_run_id,
  finding_status,
  finding_type,
  triage_notes,
  warned_slices
FROM latest_findings
WHERE is_open AND counted
ORDER BY
  CASE severity
    WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 WHEN 'info' THEN 4 ELSE 5
  END,
  best_score DESC NULLS LAST,
  org,
  workspace,
  project_key,
  attack_run_id
LIMIT 100;
