-- answers: The most severe findings still open, across projects (latest snapshots), after triage.
-- columns: org, workspace, project_key (keys are unique only inside a workspace), severity (triaged severity when a triage changed it), score, attack_name,
--   goal_category, goal, assessment_name, attack_run_id, finding_status, finding_type, triage_notes.
-- exclusions: findings triaged to any status other than open (false_positive, accepted_risk,
--   remediated, incorrect_scoring), per the newest FindingDetail seen (view finding_triage).
--   Project top findings only (the service lists at most 20 per project); findings of an assessment
--   whose top_findings slice is flagged by an analytics warning are left out.
SELECT
  s.org,
  s.workspace,
  f.project_key,
  coalesce(t.severity, f.severity) AS severity,
  f.score,
  f.attack_name,
  f.goal_category,
  f.goal,
  f.assessment_name,
  f.attack_run_id,
  coalesce(t.finding_status, 'open') AS finding_status,
  coalesce(t.finding_type, f.finding_type) AS finding_type,
  t.notes AS triage_notes
FROM latest_findings f
JOIN snapshots s ON s.snapshot_id = f.snapshot_id
LEFT JOIN finding_triage t ON t.attack_run_id = f.attack_run_id
WHERE f.origin = 'project_top_finding'
  AND NOT EXISTS (SELECT 1 FROM analytics_warnings w WHERE w.snapshot_id = f.snapshot_id
                  AND w.project_key = f.project_key AND w.assessment_id = f.assessment_id AND w.slice = 'top_findings')
  AND coalesce(t.finding_status, 'open') = 'open'
ORDER BY
  CASE coalesce(t.severity, f.severity)
    WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 WHEN 'info' THEN 4 ELSE 5
  END,
  f.score DESC NULLS LAST,
  s.org,
  s.workspace,
  f.project_key,
  f.attack_run_id
LIMIT 100;
