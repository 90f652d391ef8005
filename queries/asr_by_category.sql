-- answers: Attack success rate by goal category across all projects, latest snapshot of each project.
-- columns: goal_category, projects, assessments, total_attacks, successful_attacks,
--   asr (successful_attacks / total_attacks, 0-1), total_trials, best_score,
--   excluded_assessments (assessments left out because an analytics warning flags their asr_by_category).
-- exclusions: asr_by_category slices named by analytics_warnings are erroneous, not empty: they are
--   absent from latest_asr_breakdown (never zeros) and counted in excluded_assessments.
WITH excluded AS (
  SELECT count(DISTINCT snapshot_id || '/' || assessment_id) AS n
  FROM latest_analytics_warnings
  WHERE slice = 'asr_by_category'
)
SELECT
  b.key AS goal_category,
  count(DISTINCT b.project_id) AS projects,
  count(DISTINCT b.assessment_id) AS assessments,
  sum(b.total_attacks) AS total_attacks,
  sum(b.successful_attacks) AS successful_attacks,
  round(sum(b.successful_attacks) / nullif(sum(b.total_attacks), 0), 4) AS asr,
  sum(b.total_trials) AS total_trials,
  max(b.best_score) AS best_score,
  (SELECT n FROM excluded) AS excluded_assessments
FROM latest_asr_breakdown b
WHERE b.dimension = 'category'
GROUP BY b.key
ORDER BY asr DESC NULLS LAST, goal_category;
