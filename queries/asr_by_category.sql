-- answers: Attack success rate by goal category across all projects, latest snapshot of each project,
--   from the metrics layer (view metric_category_asr, the definition reports, diff and gates use).
-- columns: goal_category, projects, assessments, total_attacks, successful_attacks,
--   asr (successful_attacks / total_attacks pooled over assessments, 0-1; unknown when any entry lacks
--   a count), total_trials, best_score, excluded_assessments (assessments left out because an
--   analytics warning flags their asr_by_category), insufficient_evidence_projects.
-- exclusions: asr_by_category slices named by analytics_warnings are erroneous, not empty: they never
--   enter the sums (never zeros) and are counted in excluded_assessments.
SELECT
  goal_category,
  count(DISTINCT org || '/' || workspace || '/' || project_key) AS projects,
  sum(assessments) AS assessments,
  sum(total_attacks) AS total_attacks,
  sum(successful_attacks) AS successful_attacks,
  CASE WHEN count(*) = count(successful_attacks) AND count(*) = count(total_attacks)
       THEN round(sum(successful_attacks) / nullif(sum(total_attacks), 0), 4) END AS asr,
  sum(total_trials) AS total_trials,
  max(best_score) AS best_score,
  (SELECT count(DISTINCT snapshot_id || '/' || assessment_id) FROM latest_analytics_warnings
   WHERE slice = 'asr_by_category') AS excluded_assessments,
  count(*) FILTER (WHERE evidence = 'insufficient_evidence') AS insufficient_evidence_projects
FROM latest_metric_category_asr
GROUP BY goal_category
ORDER BY asr DESC NULLS LAST, goal_category;
