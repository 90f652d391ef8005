-- answers: Where the service's own totals disagree with totals recomputed from the assessment-level
--   rows (every loaded snapshot). An empty result means everything agrees.
-- columns: snapshot_id, project_key, assessment_id (for assessment-level checks), check_name,
--   service_value, recomputed_value, excluded_assessments (assessments whose input slice is flagged by
--   an analytics warning and was left out of the recomputation).
-- checks: every check of the metrics layer's metric_consistency that disagrees (total_findings and each
--   severity, overall_asr, overall_risk_score, avg_risk_score, coverage_pct per framework with its
--   scale, compliance_posture vs the matrix, assessments_by_status, totals of assessments, attacks,
--   trials and reports); per assessment, total_attacks against its
--   attack runs and, for trial lists known to be complete (fewer trials than the snapshot's
--   --trials-limit, not --jailbreaks-only), total_trials against the trials loaded.
-- exclusions: a check whose recomputation lacks input (e.g. an assessment without severity_breakdown,
--   absent in older data or flagged by an analytics warning) is not a disagreement: it is left out,
--   and excluded_assessments says how many assessments lacked it.
WITH runs AS (SELECT snapshot_id, assessment_id, count(*) AS n FROM attack_runs GROUP BY ALL),
trial_counts AS (SELECT snapshot_id, assessment_id, count(*) AS n FROM trials GROUP BY ALL),
complete_trials AS (
  SELECT snapshot_id, coalesce(CAST(options ->> 'trials_limit' AS BIGINT), 0) AS trials_limit FROM snapshots
  WHERE NOT coalesce(CAST(options ->> 'jailbreaks_only' AS BOOLEAN), false)
),
checks AS (
  SELECT snapshot_id, project_key, NULL AS assessment_id, check_name, service_value,
         recomputed_value, len(excluded_assessments) AS excluded
  FROM metric_consistency WHERE status = 'disagrees'
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
WHERE assessment_id IS NULL OR abs(service_value - recomputed_value) > 1e-9
ORDER BY snapshot_id, project_key, assessment_id NULLS FIRST, check_name;
