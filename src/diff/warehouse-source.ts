/**
 * Reads what the diff and the gates compare from the warehouse: snapshots, projects, findings (one
 * per attack run), project metrics and schema drift. Every value is bound as a parameter and every
 * query is ordered, so the same database gives the same records.
 *
 * Data excluded by analytics warnings never reaches the clean tables; the functions here report
 * which assessments were left out (from `analytics_warnings`) so callers can say so.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { severityFromScore } from '../severity.js';
import { UNKNOWN_SEVERITY, type FindingRecord } from './finding-lifecycle.js';
import {
  readAsrBy,
  readEvaluationPassRates,
  readFrameworkCoverage,
  readProjectFigures,
} from '../metrics/read-figures.js';
import type { ProjectMetrics } from './metric-deltas.js';
import {
  projectParams,
  queryRows,
  sliceExclusions,
  type ProjectRef,
  type SliceExclusion,
} from '../warehouse/snapshot-lookup.js';

// The lookups moved to the warehouse layer; re-exported for the diff's own modules.
export {
  excludedSliceKeys,
  findProject,
  holdsSeveralWorkspaces,
  previousSnapshotId,
  projectParams,
  projectsInSnapshot,
  PROJECT_MATCH,
  queryRows,
  sliceExclusions,
  snapshotInfo,
} from '../warehouse/snapshot-lookup.js';
export type { ProjectRef, SliceExclusion, SnapshotInfo, SqlValue } from '../warehouse/snapshot-lookup.js';

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

/**
 * The findings of a project in a snapshot: one per attack run. Severity and triage status come from
 * the snapshot's FindingDetail (triage) when present, else the assessment's top finding, else the
 * attack run's best score. A finding is an attack run of an analyzed (completed or failed) assessment,
 * the metrics layer's definition (metric_assessments.analyzed, metric_findings): a running
 * assessment's partial runs are not findings yet, so the diff and the new/regressed gates count the
 * same findings the reports and open_critical_findings count. Every such run is returned (the
 * lifecycle decides which it tracks); one whose score is unknown has the severity UNKNOWN_SEVERITY
 * unless triage gave it one. Also returns the assessments whose attack runs were excluded by an
 * analytics warning (their findings are unknown), and those whose runs lack a score
 * (UNKNOWN_SCORE_FIELD: those findings are not comparable).
 */
export async function readFindingRecords(
  conn: DuckDBConnection,
  snapshotId: string,
  project: ProjectRef,
): Promise<{ findings: FindingRecord[]; excluded: SliceExclusion[] }> {
  const rows = await queryRows(
    conn,
    `WITH runs AS (
       SELECT r.attack_run_id, r.assessment_id, a.assessment_name, r.attack_name, r.goal_category,
              r.goal, r.best_score, coalesce(r.best_score_unknown, false) AS score_unknown
       FROM attack_runs r
       JOIN metric_assessments a
         ON a.snapshot_id = r.snapshot_id AND a.project_key = r.project_key AND a.assessment_id = r.assessment_id
       WHERE r.snapshot_id = $1 AND (r.project_key = $2 OR ($3::VARCHAR IS NOT NULL AND r.project_id = $3))
         AND a.analyzed
     )
     -- Severity and triage status as every figure reads them (metric_findings: the snapshot's own
     -- triage, else the score's band), so the diff and the gates over it agree with the reports.
     SELECT runs.*, mf.severity, mf.finding_status, mf.acceptance_state
     FROM runs LEFT JOIN metric_findings mf ON mf.snapshot_id = $1 AND mf.attack_run_id = runs.attack_run_id
     ORDER BY runs.attack_run_id`,
    projectParams(snapshotId, project),
  );
  const findings = rows.map((row): FindingRecord => {
    const score = num(row.best_score);
    // metric_findings gives no severity to a run whose score is unknown (unless triage gave one):
    // unknown, never the info band of a missing score.
    const severity =
      text(row.severity) ?? (row.score_unknown === true ? UNKNOWN_SEVERITY : severityFromScore(score));
    return {
      attack_run_id: text(row.attack_run_id),
      assessment_id: String(row.assessment_id),
      assessment_name: text(row.assessment_name),
      attack_name: text(row.attack_name) ?? '',
      goal_category: text(row.goal_category),
      goal: text(row.goal) ?? '',
      severity,
      score,
      // The metrics layer judges a dated acceptance at this snapshot's time (an expired one reads open).
      finding_status: text(row.finding_status),
      ...(row.acceptance_state === 'accepted' || row.acceptance_state === 'expired'
        ? { acceptance_state: row.acceptance_state }
        : {}),
    };
  });
  const excluded = await sliceExclusions(conn, snapshotId, project, ['attack_runs']);
  return { findings, excluded };
}

/** The metrics the diff compares, for one project in one snapshot: all from the metrics layer. */
export async function readProjectMetrics(
  conn: DuckDBConnection,
  snapshotId: string,
  project: ProjectRef,
): Promise<ProjectMetrics> {
  const scope = { snapshotId, projectKey: project.key };
  const figures = await readProjectFigures(conn, scope);
  const categories = await readAsrBy(conn, scope, 'category');
  const coverage = await readFrameworkCoverage(conn, scope);
  const jobs = await readEvaluationPassRates(conn, scope);
  const names = new Map<string, number>();
  for (const job of jobs) names.set(String(job.name), (names.get(String(job.name)) ?? 0) + 1);
  const passRates: Record<string, number | null> = {};
  for (const job of jobs) {
    const name = String(job.name);
    // Jobs are keyed by name so a re-run job compares with its predecessor; twins get their id.
    const key = (names.get(name) ?? 0) > 1 ? `${name} (${job.evaluationId.slice(0, 8)})` : name;
    passRates[key] = job.value;
  }
  return {
    overall_asr: figures.overall_asr.value,
    risk_score: figures.risk_score.value,
    asr_by_category: Object.fromEntries(categories.map((row) => [row.key, row.value])),
    coverage_by_framework: Object.fromEntries(
      coverage.map((row) => [
        row.framework,
        row.coverage === null ? null : Math.round(row.coverage * 1e6) / 1e4,
      ]),
    ),
    evaluation_pass_rates: passRates,
  };
}

/** The snapshot's schema drift (unknown keys per file kind), as the manifest recorded it. */
export async function readSchemaDrift(
  conn: DuckDBConnection,
  snapshotId: string,
): Promise<Record<string, string[]>> {
  const rows = await queryRows(
    conn,
    'SELECT file_kind, json_path FROM schema_drift WHERE snapshot_id = $1 ORDER BY file_kind, json_path',
    [snapshotId],
  );
  const drift: Record<string, string[]> = {};
  for (const row of rows) (drift[String(row.file_kind)] ??= []).push(String(row.json_path));
  return drift;
}
