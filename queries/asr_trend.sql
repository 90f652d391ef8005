-- answers: Overall ASR of each project across all loaded snapshots (trend over time).
-- columns: org, workspace, project_key, snapshot_id, fetched_at, snapshot_status,
--   overall_asr (the metrics layer's recomputed figure: successful / evaluated attacks, pooled),
--   service_overall_asr (executive_summary.overall_asr), service_avg_asr (summary avg_asr),
--   attack_weighted_asr (sum(overall_asr * total_attacks) / sum(total_attacks) over the assessments),
--   assessments, excluded_assessments (assessments whose overall_asr is unknown or flagged erroneous).
-- exclusions: assessments with a NULL overall_asr (absent, or named by an analytics warning) are left
--   out of attack_weighted_asr, never counted as 0.
WITH per_snapshot AS (
  SELECT snapshot_id, project_id,
         count(*) AS assessments,
         count(*) FILTER (WHERE overall_asr IS NULL OR total_attacks IS NULL) AS excluded_assessments,
         sum(overall_asr * total_attacks) / nullif(sum(total_attacks) FILTER (WHERE overall_asr IS NOT NULL), 0) AS weighted
  FROM assessments
  GROUP BY snapshot_id, project_id
)
SELECT
  s.org,
  s.workspace,
  p.project_key,
  s.snapshot_id,
  s.fetched_at,
  s.status AS snapshot_status,
  round(f.value, 4) AS overall_asr,
  e.overall_asr AS service_overall_asr,
  p.avg_asr AS service_avg_asr,
  round(a.weighted, 4) AS attack_weighted_asr,
  coalesce(a.assessments, 0) AS assessments,
  coalesce(a.excluded_assessments, 0) AS excluded_assessments
FROM projects p
JOIN snapshots s ON s.snapshot_id = p.snapshot_id
LEFT JOIN executive_summary e ON e.snapshot_id = p.snapshot_id AND e.project_id IS NOT DISTINCT FROM p.project_id
LEFT JOIN metric_project_figures f ON f.snapshot_id = p.snapshot_id AND f.project_key = p.project_key AND f.figure = 'overall_asr'
LEFT JOIN per_snapshot a ON a.snapshot_id = p.snapshot_id AND a.project_id IS NOT DISTINCT FROM p.project_id
WHERE p.manifest_status = 'ok'
ORDER BY s.org, s.workspace, p.project_key, s.fetched_at, s.snapshot_id;
