-- answers: Compliance coverage by framework and project (latest snapshots): how many categories of each
--   framework were tested in any assessment of the project.
-- columns: org, workspace, project_key (keys are unique only inside a workspace), framework, total_categories, tested_categories, coverage_pct (0-100),
--   failing_categories (tested with ASR > 0), legacy_categories (cells in the older format, whose
--   attacks_used/total_trials are unknown), excluded_assessments.
-- exclusions: compliance_matrix slices named by analytics_warnings are left out (counted in
--   excluded_assessments); legacy cells count as tested/untested by their `tested` flag only.
WITH cells AS (
  SELECT m.snapshot_id, s.org, s.workspace, m.project_id, m.project_key, m.framework, m.tag,
         bool_or(tested) AS tested,
         max(asr) FILTER (WHERE tested) AS max_asr,
         bool_or(legacy) AS legacy
  FROM latest_compliance_matrix m JOIN snapshots s ON s.snapshot_id = m.snapshot_id
  GROUP BY ALL
),
excluded AS (
  SELECT snapshot_id, project_id, count(DISTINCT assessment_id) AS n
  FROM latest_analytics_warnings
  WHERE slice = 'compliance_matrix'
  GROUP BY snapshot_id, project_id
)
SELECT
  c.org,
  c.workspace,
  c.project_key,
  c.framework,
  count(*) AS total_categories,
  count(*) FILTER (WHERE c.tested) AS tested_categories,
  round(100.0 * count(*) FILTER (WHERE c.tested) / count(*), 2) AS coverage_pct,
  count(*) FILTER (WHERE c.tested AND c.max_asr > 0) AS failing_categories,
  count(*) FILTER (WHERE c.legacy) AS legacy_categories,
  coalesce(any_value(e.n), 0) AS excluded_assessments
FROM cells c
LEFT JOIN excluded e ON e.snapshot_id = c.snapshot_id AND e.project_id IS NOT DISTINCT FROM c.project_id
GROUP BY c.org, c.workspace, c.project_key, c.framework
ORDER BY c.org, c.workspace, c.project_key, c.framework;
