/**
 * `latest_findings`: one row per finding (attack run) of each project's newest snapshot, with its
 * triage status as that snapshot holds it (snapshot-triage.ts). The `findings` table holds every
 * origin of a finding (project top finding, assessment top finding, FindingDetail, journal line), so
 * counting its rows counts a finding up to three times and shows the triage status of whichever row
 * is read; the raw rows stay reachable as `latest_finding_rows`. The figures (severity, open or not,
 * counted) are the metrics layer's (`latest_metric_findings`), so a query over this view gives the
 * numbers the reports show.
 *
 * The descriptive text (candidate, response, …) is taken per field from the same snapshot's rows,
 * FindingDetail first, then the project's and the assessment's top finding; a top finding of an
 * assessment whose `top_findings` slice an analytics warning flags gives no text (it comes from the
 * erroneous slice), and the row says which of its assessment's finding slices were warned.
 */

/** Assessment slices that shape a finding row: its run, its severity count, its top-finding text. */
const FINDING_SLICES = ['attack_runs', 'severity_breakdown', 'top_findings'];

const WARNED = `[${FINDING_SLICES.map((slice) => `'${slice}'`).join(', ')}]`;

/** Text fields read from the finding's rows, per field, in the order of ORIGIN_PRIORITY. */
const TEXT_FIELDS = ['candidate', 'response', 'transformed_prompt', 'judge_reasoning'];

/** FindingDetail is the fullest body; the project's top finding carries the rank. */
const ORIGIN_PRIORITY = `CASE r.origin WHEN 'finding_detail' THEN 1 WHEN 'project_top_finding' THEN 2
  WHEN 'assessment_top_finding' THEN 3 ELSE 4 END`;

const firstOf = (field: string): string =>
  `(list(r.${field} ORDER BY ${ORIGIN_PRIORITY}, r.ordinal) FILTER (WHERE r.${field} IS NOT NULL))[1] AS ${field}`;

const LATEST_FINDINGS = `
CREATE OR REPLACE VIEW latest_findings AS
WITH text AS (
  SELECT r.snapshot_id, r.attack_run_id,
         min(r.rank) FILTER (WHERE r.origin = 'project_top_finding') AS top_finding_rank,
         (list(r.finding_type ORDER BY ${ORIGIN_PRIORITY}, r.ordinal) FILTER (WHERE r.finding_type IS NOT NULL))[1] AS finding_type,
         ${TEXT_FIELDS.map(firstOf).join(',\n         ')}
  FROM latest_finding_rows r
  LEFT JOIN metric_assessments a
    ON a.snapshot_id = r.snapshot_id AND a.project_key = r.project_key AND a.assessment_id = r.assessment_id
  WHERE r.attack_run_id IS NOT NULL
    AND NOT (r.origin IN ('project_top_finding', 'assessment_top_finding')
             AND list_contains(coalesce(a.warned_slices, []::VARCHAR[]), 'top_findings'))
  GROUP BY ALL
)
SELECT f.snapshot_id, f.org, f.workspace, f.project_id, f.project_key, f.assessment_id, f.assessment_name,
       f.attack_run_id, f.attack_name, f.goal, f.goal_category, f.severity, f.scored_severity, f.best_score,
       f.finding_status, f.is_open, f.counted,
       list_sort(list_intersect(a.warned_slices, ${WARNED})) AS warned_slices,
       len(list_intersect(a.warned_slices, ${WARNED})) > 0 AS from_warned_slice,
       coalesce(t.finding_type, x.finding_type) AS finding_type, t.notes AS triage_notes, t.as_of AS triaged_at,
       x.top_finding_rank, ${TEXT_FIELDS.map((field) => `x.${field}`).join(', ')}
FROM latest_metric_findings f
JOIN metric_assessments a ON a.snapshot_id = f.snapshot_id AND a.project_key = f.project_key AND a.assessment_id = f.assessment_id
LEFT JOIN snapshot_finding_triage t ON t.snapshot_id = f.snapshot_id AND t.attack_run_id = f.attack_run_id
LEFT JOIN text x ON x.snapshot_id = f.snapshot_id AND x.attack_run_id = f.attack_run_id`;

/** The finding views, after the metrics layer's (they read latest_metric_findings). */
export function findingViewStatements(): string[] {
  return [LATEST_FINDINGS];
}
