/**
 * The one typed reader of the metrics layer (the warehouse's metric_* views, see
 * src/warehouse/metric-views.ts). Reports, `diff` and gates read every figure through these
 * functions, so a figure has one definition and every output shows the same number:
 *
 *   warehouse tables ─▶ metric_* views (SQL, one definition each) ─▶ read-figures.ts ─▶ report / diff / gates
 *
 * A figure is `{ value, numerator?, denominator?, source, excluded_assessments }`: `source` is
 * `recomputed` (from assessment-level rows) or `service` (the service's own value, used only where no
 * recomputation exists); `excluded_assessments` lists the assessments an analytics warning left out.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { MIN_TRIALS_FOR_EVIDENCE } from '../warehouse/metric-views.js';

export { MIN_TRIALS_FOR_EVIDENCE };

/** The project figures every report shows (JSON report `figures` keys). */
export const FIGURE_NAMES = [
  'overall_asr',
  'risk_score',
  'avg_risk_score',
  'findings_critical',
  'findings_high',
  'findings_medium',
  'findings_low',
  'findings_info',
  'findings_total',
  'findings_open',
  'assessments',
  'attacks',
  'trials',
  'reports',
] as const;
export type FigureName = (typeof FIGURE_NAMES)[number];

export interface Figure {
  value: number | null;
  numerator?: number;
  denominator?: number;
  source: 'recomputed' | 'service';
  excluded_assessments: string[];
  /** The service's own value, kept as the cross-check (not part of the JSON figure). */
  service_value: number | null;
}

export type ProjectFigures = Record<FigureName, Figure>;

/** One project in one snapshot (project keys are unique within a snapshot). */
export interface FigureScope {
  snapshotId: string;
  projectKey: string;
}

export type Row = Record<string, unknown>;

/** Connections inside withMetricReadsCached, with the reads done so far (query and parameters → rows). */
const cachedReads = new WeakMap<DuckDBConnection, Map<string, Promise<Row[]>>>();

/**
 * Runs `work` with this module's reads on `conn` done once per query and parameters: a report reads a
 * project's figures, coverage and consistency checks from several sections, and each metric view
 * costs DuckDB tens of milliseconds to plan however small the data. Only for work that does not write
 * to the database between its reads (building a report model, evaluating gates). Nested calls share
 * the outer cache.
 */
export async function withMetricReadsCached<T>(conn: DuckDBConnection, work: () => Promise<T>): Promise<T> {
  if (cachedReads.has(conn)) return work();
  cachedReads.set(conn, new Map());
  try {
    return await work();
  } finally {
    cachedReads.delete(conn);
  }
}

/** Query rows with BigInt and Date values made plain (numbers, ISO strings). */
export async function rows(conn: DuckDBConnection, sql: string, params: (string | number)[]): Promise<Row[]> {
  const cache = cachedReads.get(conn);
  if (cache === undefined) return readRows(conn, sql, params);
  const key = JSON.stringify([sql, params]);
  let found = cache.get(key);
  if (found === undefined) {
    found = readRows(conn, sql, params);
    cache.set(key, found);
    found.catch(() => cache.delete(key));
  }
  // A fresh array each time: a caller may sort or filter what it was given.
  return [...(await found)];
}

async function readRows(conn: DuckDBConnection, sql: string, params: (string | number)[]): Promise<Row[]> {
  const reader = await conn.runAndReadAll(sql, params);
  return reader.getRowObjectsJS().map((row) => {
    const plain: Row = {};
    for (const [key, value] of Object.entries(row)) plain[key] = toPlain(value);
    return plain;
  });
}

function toPlain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return value.toISOString().replace(/\.000Z$/u, 'Z');
  if (Array.isArray(value)) return value.map(toPlain);
  return value;
}

export const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;
export const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
export const ids = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);
const iso = (column: string): string => `strftime(${column}, '%Y-%m-%dT%H:%M:%SZ')`;

/** A figure with numerator/denominator only when both are known. */
function figure(row: Row | undefined): Figure {
  const value = num(row?.value);
  const numerator = num(row?.numerator);
  const denominator = num(row?.denominator);
  return {
    value,
    ...(numerator !== null && denominator !== null ? { numerator, denominator } : {}),
    source: 'recomputed',
    excluded_assessments: ids(row?.excluded_assessments),
    service_value: num(row?.service_value),
  };
}

const WHERE = 'snapshot_id = $1 AND project_key = $2';
const params = (scope: FigureScope): string[] => [scope.snapshotId, scope.projectKey];

/** Every project figure of one project in one snapshot. */
export async function readProjectFigures(
  conn: DuckDBConnection,
  scope: FigureScope,
): Promise<ProjectFigures> {
  const found = await rows(
    conn,
    `SELECT figure, value, numerator, denominator, service_value, excluded_assessments
     FROM metric_project_figures WHERE ${WHERE} ORDER BY figure`,
    params(scope),
  );
  const byName = new Map(found.map((row) => [String(row.figure), row]));
  return Object.fromEntries(FIGURE_NAMES.map((name) => [name, figure(byName.get(name))])) as ProjectFigures;
}

/** A pooled ASR of one key (goal category, attack or transform). */
export interface AsrFigure {
  key: string;
  value: number | null;
  numerator: number | null;
  denominator: number | null;
  trials: number | null;
  /** measured, or insufficient_evidence below MIN_TRIALS_FOR_EVIDENCE trials (or a count unknown). */
  evidence: 'measured' | 'insufficient_evidence';
  avgBestScore: number | null;
  excluded_assessments: string[];
}

const ASR_VIEWS = {
  category: ['metric_category_asr', 'goal_category'],
  attack: ['metric_attack_asr', 'attack_name'],
  transform: ['metric_transform_asr', 'transform'],
} as const;

/** Pooled ASR per goal category, attack or transform, worst first. */
export async function readAsrBy(
  conn: DuckDBConnection,
  scope: FigureScope,
  dimension: keyof typeof ASR_VIEWS,
): Promise<AsrFigure[]> {
  const [view, key] = ASR_VIEWS[dimension];
  const found = await rows(
    conn,
    `SELECT ${key} AS key, asr, successful_attacks, total_attacks, total_trials, evidence, avg_best_score, excluded_assessments
     FROM ${view} WHERE ${WHERE} ORDER BY asr DESC NULLS LAST, ${key}`,
    params(scope),
  );
  return found.map((row) => ({
    key: String(row.key),
    value: num(row.asr),
    numerator: num(row.successful_attacks),
    denominator: num(row.total_attacks),
    trials: num(row.total_trials),
    evidence: row.evidence === 'measured' ? 'measured' : 'insufficient_evidence',
    avgBestScore: num(row.avg_best_score),
    excluded_assessments: ids(row.excluded_assessments),
  }));
}

/** Excluded assessments of a slice in the project (even when no row of the slice survived). */
export async function readSliceExclusions(
  conn: DuckDBConnection,
  scope: FigureScope,
  slice: string,
): Promise<{ id: string; name: string | null }[]> {
  const found = await rows(
    conn,
    `SELECT DISTINCT w.assessment_id AS id, a.name FROM analytics_warnings w
     LEFT JOIN assessments a ON a.snapshot_id = w.snapshot_id AND a.project_key = w.project_key AND a.assessment_id = w.assessment_id
     WHERE w.snapshot_id = $1 AND w.project_key = $2 AND w.slice = $3 ORDER BY w.assessment_id`,
    [...params(scope), slice],
  );
  return found.map((row) => ({ id: String(row.id), name: str(row.name) }));
}

export interface TransformLift {
  /** ASR of the attack runs with no transform applied (metric_transform_lift); null when unknown. */
  baselineAsr: number | null;
  rows: (AsrFigure & { lift: number | null })[];
}

/**
 * Transform ASR and lift against the pooled no-transform baseline, both as metric_transform_lift
 * defines them (the baseline is the same on every row of a project; unknown without any row).
 */
export async function readTransformLift(conn: DuckDBConnection, scope: FigureScope): Promise<TransformLift> {
  const found = await rows(
    conn,
    `SELECT transform AS key, asr, successful_attacks, total_attacks, total_trials, evidence, avg_best_score,
            excluded_assessments, baseline_asr, lift
     FROM metric_transform_lift WHERE ${WHERE} ORDER BY lift DESC NULLS LAST, transform`,
    params(scope),
  );
  const lifted = found.map((row) => ({
    key: String(row.key),
    value: num(row.asr),
    numerator: num(row.successful_attacks),
    denominator: num(row.total_attacks),
    trials: num(row.total_trials),
    evidence: row.evidence === 'measured' ? ('measured' as const) : ('insufficient_evidence' as const),
    avgBestScore: num(row.avg_best_score),
    excluded_assessments: ids(row.excluded_assessments),
    lift: num(row.lift),
  }));
  return { baselineAsr: num(found[0]?.baseline_asr), rows: lifted };
}

export type CategoryState = 'failing' | 'passing' | 'insufficient_evidence' | 'not_tested';

export interface ComplianceCategoryFigure {
  framework: string;
  tag: string;
  state: CategoryState;
  currentState: CategoryState;
  lastTestedAt: string | null;
  maxAsr: number | null;
  maxSeverity: string | null;
  totalTrials: number | null;
  attacksUsed: string[] | null;
  assessmentsTested: number;
}

/** Every category of every framework in the matrix, classified at `minTrials` (the one SQL rule). */
export async function readComplianceCategories(
  conn: DuckDBConnection,
  scope: FigureScope,
  minTrials: number = MIN_TRIALS_FOR_EVIDENCE,
): Promise<ComplianceCategoryFigure[]> {
  const found = await rows(
    conn,
    `SELECT framework, tag, assessments_tested, total_trials, max_asr, max_severity, attacks_used,
            metric_compliance_state(assessments_tested > 0, any_success, all_asr_known, total_trials, $3::BIGINT) AS state,
            metric_compliance_state(current_assessment_id IS NOT NULL, current_asr > 0, current_asr IS NOT NULL,
                                    current_trials, $3::BIGINT) AS current_state,
            ${iso('last_tested_at')} AS last_tested_at
     FROM metric_compliance_categories WHERE ${WHERE} ORDER BY framework, tag`,
    [...params(scope), minTrials],
  );
  return found.map((row) => ({
    framework: String(row.framework),
    tag: String(row.tag),
    state: String(row.state) as CategoryState,
    currentState: String(row.current_state) as CategoryState,
    lastTestedAt: str(row.last_tested_at),
    maxAsr: num(row.max_asr),
    maxSeverity: str(row.max_severity),
    totalTrials: num(row.total_trials),
    attacksUsed: Array.isArray(row.attacks_used) ? row.attacks_used.map(String) : null,
    assessmentsTested: num(row.assessments_tested) ?? 0,
  }));
}

export interface FrameworkCoverageFigure {
  framework: string;
  /** tested / all categories, 0–1. */
  coverage: number | null;
  testedCategories: number;
  totalCategories: number;
  failing: number;
  passing: number;
  insufficientEvidence: number;
  notTested: number;
  /** The service's coverage_pct as sent (0–100 by the spec), null when the posture lacks the framework. */
  serviceCoveragePct: number | null;
  /** Where the service's posture disagrees with the matrix (never a green on its word). */
  disagreements: string[];
  excluded_assessments: string[];
}

export async function readFrameworkCoverage(
  conn: DuckDBConnection,
  scope: FigureScope,
): Promise<FrameworkCoverageFigure[]> {
  const found = await rows(
    conn,
    `SELECT * FROM metric_framework_coverage WHERE ${WHERE} ORDER BY framework`,
    params(scope),
  );
  return found.map((row) => ({
    framework: String(row.framework),
    coverage: num(row.coverage),
    testedCategories: num(row.tested_categories) ?? 0,
    totalCategories: num(row.total_categories) ?? 0,
    failing: num(row.failing) ?? 0,
    passing: num(row.passing) ?? 0,
    insufficientEvidence: num(row.insufficient_evidence) ?? 0,
    notTested: num(row.not_tested) ?? 0,
    serviceCoveragePct: num(row.service_coverage_pct),
    disagreements: ids(row.disagreements),
    excluded_assessments: ids(row.excluded_assessments),
  }));
}

export interface TrendFigure {
  assessmentId: string;
  assessmentName: string | null;
  date: string | null;
  asr: number | null;
  numerator: number | null;
  denominator: number | null;
  riskScore: number | null;
  excluded: boolean;
}

export async function readTrend(conn: DuckDBConnection, scope: FigureScope): Promise<TrendFigure[]> {
  const found = await rows(
    conn,
    `SELECT assessment_id, assessment_name, ${iso('date')} AS date, asr, successful_attacks, evaluated_attacks, risk_score, excluded
     FROM metric_trend WHERE ${WHERE} ORDER BY date NULLS LAST, assessment_id`,
    params(scope),
  );
  return found.map((row) => ({
    assessmentId: String(row.assessment_id),
    assessmentName: str(row.assessment_name),
    date: str(row.date),
    asr: num(row.asr),
    numerator: num(row.successful_attacks),
    denominator: num(row.evaluated_attacks),
    riskScore: num(row.risk_score),
    excluded: row.excluded === true,
  }));
}

export interface PassRateFigure {
  evaluationId: string;
  name: string | null;
  status: string | null;
  value: number | null;
  numerator: number | null;
  denominator: number | null;
  source: 'recomputed' | 'service' | null;
}

export async function readEvaluationPassRates(
  conn: DuckDBConnection,
  scope: FigureScope,
): Promise<PassRateFigure[]> {
  const found = await rows(
    conn,
    `SELECT evaluation_id, name, job_status, pass_rate, numerator, denominator, source
     FROM metric_evaluation_pass_rates WHERE ${WHERE} ORDER BY name, evaluation_id`,
    params(scope),
  );
  return found.map((row) => ({
    evaluationId: String(row.evaluation_id),
    name: str(row.name),
    status: str(row.job_status),
    value: num(row.pass_rate),
    numerator: num(row.numerator),
    denominator: num(row.denominator),
    source: row.source === 'recomputed' || row.source === 'service' ? row.source : null,
  }));
}

export interface ConsistencyCheck {
  check: string;
  service_value: number | null;
  recomputed_value: number | null;
  status: 'agrees' | 'disagrees' | 'not_compared';
  detail: string | null;
}

/**
 * Every service total beside its recomputation: disagreements first, then checks not compared, then
 * the ones that agree, each group by check name (an auditor reads the problems first). A check not
 * compared says why in `detail` (metric_consistency: the service sent no value, or the recomputation
 * left out assessments whose slice an analytics warning flags, as a partial sum is no cross-check).
 */
export async function readConsistency(
  conn: DuckDBConnection,
  scope: FigureScope,
): Promise<ConsistencyCheck[]> {
  const found = await rows(
    conn,
    `SELECT check_name, service_value, recomputed_value, status, detail
     FROM metric_consistency
     WHERE ${WHERE}
     ORDER BY CASE status WHEN 'disagrees' THEN 0 WHEN 'not_compared' THEN 1 ELSE 2 END, check_name`,
    params(scope),
  );
  return found.map((row) => ({
    check: String(row.check_name),
    service_value: num(row.service_value),
    recomputed_value: num(row.recomputed_value),
    status: String(row.status) as ConsistencyCheck['status'],
    detail: str(row.detail),
  }));
}

/** Open findings (attack runs) of a severity, after triage, with the assessments left out. */
export async function readOpenFindings(
  conn: DuckDBConnection,
  scope: FigureScope,
  severity: string,
): Promise<{ rows: Row[]; excluded_assessments: string[] }> {
  const found = await rows(
    conn,
    `SELECT attack_run_id, assessment_id, assessment_name, attack_name, goal_category, severity, best_score, finding_status
     FROM metric_findings WHERE ${WHERE} AND counted AND is_open AND severity = $3
     ORDER BY best_score DESC NULLS LAST, attack_run_id`,
    [...params(scope), severity],
  );
  const figures = await readProjectFigures(conn, scope);
  return { rows: found, excluded_assessments: figures.findings_open.excluded_assessments };
}
