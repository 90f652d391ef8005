-- answers: Overall ASR of each project across all loaded snapshots (trend over time).
-- columns: org, workspace, project_key, snapshot_id, fetched_at, snapshot_status,
--   overall_asr (the metrics layer's recomputed figure: successful / evaluated attacks, pooled),
--   service_overall_asr (executive_summary.overall_asr), service_avg_asr (summary avg_asr),
--   attack_weighted_asr (each assessment's ASR weighted by its attacks with a result, which is the
--   pooled overall_asr itself: the same figure, kept for scripts that read this column; it once
--   weighted by total_attacks, attacks without a result included, and so disagreed with overall_asr),
--   successful_attacks and evaluated_attacks (its numerator and denominator),
--   assessments, excluded_assessments (analyzed assessments whose overall_asr or attack_runs an
--   analytics warning flags, left out of the figure).
-- exclusions: attacks without a result (no best_score) count in neither numerator nor denominator;
--   flagged assessments never enter the sums (never zeros) and are counted in excluded_assessments;
--   while an attack run's best_score is unknown the figure and its counts are NULL.
WITH f AS (
  -- Every figure read from metric_project_figures, the one definition reports, diff and gates use.
  SELECT snapshot_id, project_key,
         any_value(value) FILTER (WHERE figure = 'overall_asr') AS overall_asr,
         any_value(numerator) FILTER (WHERE figure = 'overall_asr') AS successful_attacks,
         any_value(denominator) FILTER (WHERE figure = 'overall_asr') AS evaluated_attacks,
         any_value(len(excluded_assessments)) FILTER (WHERE figure = 'overall_asr') AS excluded_assessments,
         any_value(value) FILTER (WHERE figure = 'assessments') AS assessments
  FROM metric_project_figures
  WHERE figure IN ('overall_asr', 'assessments')
  GROUP BY snapshot_id, project_key
)
SELECT
  s.org,
  s.workspace,
  p.project_key,
  s.snapshot_id,
  s.fetched_at,
  s.status AS snapshot_status,
  round(f.overall_asr, 4) AS overall_asr,
  e.overall_asr AS service_overall_asr,
  p.avg_asr AS service_avg_asr,
  round(f.overall_asr, 4) AS attack_weighted_asr,
  CAST(f.successful_attacks AS BIGINT) AS successful_attacks,
  CAST(f.evaluated_attacks AS BIGINT) AS evaluated_attacks,
  CAST(coalesce(f.assessments, 0) AS BIGINT) AS assessments,
  coalesce(f.excluded_assessments, 0) AS excluded_assessments
FROM projects p
JOIN snapshots s ON s.snapshot_id = p.snapshot_id
LEFT JOIN executive_summary e ON e.snapshot_id = p.snapshot_id AND e.project_id IS NOT DISTINCT FROM p.project_id
LEFT JOIN f ON f.snapshot_id = p.snapshot_id AND f.project_key = p.project_key
WHERE p.manifest_status = 'ok'
ORDER BY s.org, s.workspace, p.project_key, s.fetched_at, s.snapshot_id;
