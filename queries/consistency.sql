-- answers: Where the service's own totals disagree with totals recomputed from the assessment-level
--   rows (every loaded snapshot). An empty result means everything agrees.
-- columns: snapshot_id, project_key, assessment_id (for assessment-level checks), check_name,
--   service_value, recomputed_value, excluded_assessments (assessments whose input slice is flagged by
--   an analytics warning and was left out of the recomputation).
-- checks: executive_summary total_assessments / total_attacks / total_trials / total_reports /
--   critical_findings / high_findings against the assessments, their reports and severity_breakdown;
--   assessments_by_status against assessment statuses; per assessment, total_attacks against its
--   attack runs and, for trial lists known to be complete (fewer trials than the snapshot's
--   --trials-limit, not --jailbreaks-only), total_trials against the trials loaded.
-- exclusions: a check whose recomputation lacks input (e.g. an assessment without severity_breakdown,
--   absent in older data or flagged by an analytics warning) is not a disagreement: it is left out,
--   and excluded_assessments says how many assessments lacked it.
WITH a AS (
  SELECT snapshot_id, project_id, any_value(project_key) AS project_key,
         count(*) AS assessments,
         sum(total_attacks) AS total_attacks,
         sum(total_trials) AS total_trials,
         -- Recomputed only when every assessment has a severity_breakdown (absent or flagged: unknown).
         CASE WHEN count(severity_breakdown) = count(*) THEN sum(CAST(severity_breakdown ->> 'critical' AS BIGINT)) END AS critical,
         CASE WHEN count(severity_breakdown) = count(*) THEN sum(CAST(severity_breakdown ->> 'high' AS BIGINT)) END AS high,
         count(*) - count(severity_breakdown) AS severity_excluded
  FROM assessments GROUP BY snapshot_id, project_id
),
r AS (SELECT snapshot_id, project_id, count(*) AS reports FROM reports GROUP BY ALL),
status_service AS (
  SELECT p.snapshot_id, p.project_id, p.project_key, s.key AS status, CAST(s.value AS DOUBLE) AS n
  FROM projects p, json_each(p.assessments_by_status) s
),
status_loaded AS (SELECT snapshot_id, project_id, status, count(*) AS n FROM assessments GROUP BY ALL),
runs AS (SELECT snapshot_id, assessment_id, count(*) AS n FROM attack_runs GROUP BY ALL),
trial_counts AS (SELECT snapshot_id, assessment_id, count(*) AS n FROM trials GROUP BY ALL),
complete_trials AS (
  SELECT snapshot_id, coalesce(CAST(options ->> 'trials_limit' AS BIGINT), 0) AS trials_limit FROM snapshots
  WHERE NOT coalesce(CAST(options ->> 'jailbreaks_only' AS BOOLEAN), false)
),
checks AS (
  SELECT e.snapshot_id, e.project_key, NULL AS assessment_id, c.check_name, c.service_value, c.recomputed_value, c.excluded
  FROM executive_summary e
  LEFT JOIN a ON a.snapshot_id = e.snapshot_id AND a.project_id IS NOT DISTINCT FROM e.project_id
  LEFT JOIN r ON r.snapshot_id = e.snapshot_id AND r.project_id IS NOT DISTINCT FROM e.project_id,
  LATERAL (VALUES
    ('total_assessments', CAST(e.total_assessments AS DOUBLE), CAST(coalesce(a.assessments, 0) AS DOUBLE), 0),
    ('total_attacks', CAST(e.total_attacks AS DOUBLE), CAST(a.total_attacks AS DOUBLE), 0),
    ('total_trials', CAST(e.total_trials AS DOUBLE), CAST(a.total_trials AS DOUBLE), 0),
    ('total_reports', CAST(e.total_reports AS DOUBLE), CAST(coalesce(r.reports, 0) AS DOUBLE), 0),
    ('critical_findings', CAST(e.critical_findings AS DOUBLE), CAST(a.critical AS DOUBLE), coalesce(a.severity_excluded, 0)),
    ('high_findings', CAST(e.high_findings AS DOUBLE), CAST(a.high AS DOUBLE), coalesce(a.severity_excluded, 0))
  ) c(check_name, service_value, recomputed_value, excluded)
  UNION ALL
  SELECT coalesce(sv.snapshot_id, sl.snapshot_id), coalesce(sv.project_key, p.project_key), NULL,
         'assessments_by_status.' || coalesce(sv.status, sl.status), coalesce(sv.n, 0), CAST(coalesce(sl.n, 0) AS DOUBLE), 0
  FROM status_service sv
  FULL JOIN status_loaded sl ON sl.snapshot_id = sv.snapshot_id AND sl.project_id IS NOT DISTINCT FROM sv.project_id AND sl.status = sv.status
  LEFT JOIN projects p ON p.snapshot_id = sl.snapshot_id AND p.project_id IS NOT DISTINCT FROM sl.project_id
  UNION ALL
  SELECT x.snapshot_id, x.project_key, x.assessment_id, 'assessment.total_attacks',
         CAST(x.total_attacks AS DOUBLE), CAST(coalesce(runs.n, 0) AS DOUBLE), 0
  FROM assessments x LEFT JOIN runs ON runs.snapshot_id = x.snapshot_id AND runs.assessment_id = x.assessment_id
  WHERE NOT list_contains(coalesce(x.erroneous_fields, []), 'attack_runs')
  UNION ALL
  SELECT x.snapshot_id, x.project_key, x.assessment_id, 'assessment.total_trials',
         CAST(x.total_trials AS DOUBLE), CAST(t.n AS DOUBLE), 0
  FROM assessments x
  JOIN trial_counts t ON t.snapshot_id = x.snapshot_id AND t.assessment_id = x.assessment_id
  JOIN complete_trials c ON c.snapshot_id = x.snapshot_id
  WHERE c.trials_limit = 0 OR t.n < c.trials_limit
)
SELECT snapshot_id, project_key, assessment_id, check_name, service_value, recomputed_value, excluded AS excluded_assessments
FROM checks
WHERE abs(service_value - recomputed_value) > 1e-9
ORDER BY snapshot_id, project_key, assessment_id NULLS FIRST, check_name;
