-- answers: Compliance coverage by framework and project (latest snapshots), from the metrics layer
--   (view metric_framework_coverage, the figures the reports and gates show).
-- columns: org, workspace, project_key, framework, total_categories, tested_categories,
--   coverage_pct (0-100), failing_categories, insufficient_evidence_categories, passing_categories,
--   not_tested_categories, service_coverage_pct (compliance_posture, as sent),
--   posture_disagreements (where the service's posture disagrees with the matrix), excluded_assessments.
-- exclusions: compliance_matrix slices named by analytics_warnings are left out (counted in
--   excluded_assessments); an untested category is never passing.
SELECT
  org,
  workspace,
  project_key,
  framework,
  total_categories,
  tested_categories,
  round(100.0 * coverage, 2) AS coverage_pct,
  failing AS failing_categories,
  insufficient_evidence AS insufficient_evidence_categories,
  passing AS passing_categories,
  not_tested AS not_tested_categories,
  service_coverage_pct,
  disagreements AS posture_disagreements,
  len(excluded_assessments) AS excluded_assessments
FROM latest_metric_framework_coverage
ORDER BY org, workspace, project_key, framework;
