-- answers: Every cross-check of the service's own totals against the same totals recomputed from the
--   assessment-level rows (every loaded snapshot), with its result: disagreements first, then checks
--   not compared, then the ones that agree. Filter on status = 'disagrees' for the problems only.
-- columns: snapshot_id, project_key, assessment_id (for assessment-level checks), check_name, status
--   (disagrees, not_compared or agrees), service_value, recomputed_value, detail (why it disagrees or
--   was not compared), excluded_assessments (how many assessments whose input slice is flagged by an
--   analytics warning were left out of the recomputation).
-- checks: every check of the metrics layer's metric_consistency (total_findings and each severity,
--   overall_asr, overall_risk_score, avg_risk_score, coverage_pct per framework with its scale,
--   compliance_posture vs the matrix, assessments_by_status, totals of assessments, attacks, trials
--   and reports); per assessment, total_attacks against its attack runs and, for trial lists known to
--   be complete (fewer trials than the snapshot's --trials-limit, not --jailbreaks-only), total_trials
--   against the trials loaded.
-- exclusions: a check whose recomputation lacks input (e.g. an assessment without severity_breakdown,
--   absent in older data or flagged by an analytics warning) is not a disagreement: its status is
--   not_compared and excluded_assessments says how many assessments lacked it. The recomputed
--   avg_risk_score averages the known risk scores: an assessment without an attack result (no run has
--   a best_score) has none and is left out, never averaged in as 0.
WITH runs AS (SELECT snapshot_id, assessment_id, count(*) AS n FROM attack_runs GROUP BY ALL),
trial_counts AS (SELECT snapshot_id, assessment_id, count(*) AS n FROM trials GROUP BY ALL),
complete_trials AS (
  SELECT snapshot_id, coalesce(CAST(options ->> 'trials_limit' AS BIGINT), 0) AS trials_limit FROM snapshots
  WHERE NOT coalesce(CAST(options ->> 'jailbreaks_only' AS BOOLEAN), false)
),
checks AS (
  SELECT snapshot_id, project_key, NULL AS assessment_id, check_name, status, service_value,
         recomputed_value, detail, len(excluded_assessments) AS excluded
  FROM metric_consistency
  UNION ALL
  SELECT x.snapshot_id, x.project_key, x.assessment_id, 'assessment.total_attacks',
         CASE WHEN x.total_attacks IS NULL THEN 'not_compared'
              WHEN x.total_attacks = coalesce(runs.n, 0) THEN 'agrees' ELSE 'disagrees' END,
         CAST(x.total_attacks AS DOUBLE), CAST(coalesce(runs.n, 0) AS DOUBLE),
         CASE WHEN x.total_attacks IS NULL THEN 'the service did not send this total' END, 0
  FROM assessments x LEFT JOIN runs ON runs.snapshot_id = x.snapshot_id AND runs.assessment_id = x.assessment_id
  WHERE NOT list_contains(coalesce(x.erroneous_fields, []), 'attack_runs')
  UNION ALL
  SELECT x.snapshot_id, x.project_key, x.assessment_id, 'assessment.total_trials',
         CASE WHEN x.total_trials IS NULL THEN 'not_compared'
              WHEN x.total_trials = t.n THEN 'agrees' ELSE 'disagrees' END,
         CAST(x.total_trials AS DOUBLE), CAST(t.n AS DOUBLE),
         CASE WHEN x.total_trials IS NULL THEN 'the service did not send this total' END, 0
  FROM assessments x
  JOIN trial_counts t ON t.snapshot_id = x.snapshot_id AND t.assessment_id = x.assessment_id
  JOIN complete_trials c ON c.snapshot_id = x.snapshot_id
  WHERE c.trials_limit = 0 OR t.n < c.trials_limit
)
SELECT snapshot_id, project_key, assessment_id, check_name, status, service_value, recomputed_value, detail,
       excluded AS excluded_assessments
FROM checks
ORDER BY CASE status WHEN 'disagrees' THEN 0 WHEN 'not_compared' THEN 1 ELSE 2 END,
         snapshot_id, project_key, assessment_id NULLS FIRST, check_name;
