/** The executive model of one project in one snapshot, read from the warehouse. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { frameworkTitle, compareFrameworkKeys } from '../../taxonomy/frameworks.js';
import type {
  EvaluationJobRow,
  ExecutiveModel,
  Exclusion,
  FrameworkCoverage,
  SeverityCounts,
  TopFinding,
} from '../model.js';
import { executiveNarrative } from '../narrative.js';
import {
  readAsrBy,
  readFrameworkCoverage,
  readProjectFigures,
  readSliceExclusions,
  readTransformLift,
  readTrend,
  type FrameworkCoverageFigure,
  type ProjectFigures,
} from '../../metrics/read-figures.js';
import { readGoalAsr, readRiskByDomain } from '../../metrics/read-domains-goals.js';
import { figureScope } from './metrics.js';
import { EVALUATION_OUTCOME_STATES } from '../../warehouse/metric-views.js';
import { quoteLiteral } from '../../warehouse/sql.js';
import { isoTimestamp, json, num, queryRows, str, strings } from './query.js';
import type { ProjectScope } from './scope.js';

/** Top findings shown (the API ranks at most 20 per project). */
const TOP_FINDINGS = 20;
/** Goals listed in "ASR by goal" (worst first); the rest are counted, so a long tail never floods the report. */
export const GOAL_ROWS = 15;

/** Assessments whose `slice` was excluded by an analytics warning, by name (or id), sorted. */
export async function exclusionsFor(
  conn: DuckDBConnection,
  scope: ProjectScope,
  slice: string,
): Promise<Exclusion[]> {
  const rows = await queryRows(
    conn,
    `SELECT DISTINCT coalesce(a.name, w.assessment_id) AS label
     FROM analytics_warnings w
     LEFT JOIN assessments a ON a.snapshot_id = w.snapshot_id AND a.project_key = w.project_key AND a.assessment_id = w.assessment_id
     WHERE w.snapshot_id = $1 AND w.project_key = $2 AND w.slice = $3 ORDER BY label`,
    [scope.snapshotId, scope.project.key, slice],
  );
  return rows.length === 0 ? [] : [{ field: slice, assessments: rows.map((row) => String(row.label)) }];
}

/**
 * The service's severity breakdown from an executive_summary row: the `*_findings` columns, each
 * falling back to `severity_distribution` where the column is null (info has no column).
 */
export function severityCounts(row: Record<string, unknown> | undefined): SeverityCounts {
  const distribution = json(row?.severity_distribution) as Record<string, unknown> | null;
  const fromDistribution = (level: string): number | null => {
    const value = distribution?.[level];
    return typeof value === 'number' ? value : null;
  };
  return {
    critical: num(row?.critical_findings) ?? fromDistribution('critical'),
    high: num(row?.high_findings) ?? fromDistribution('high'),
    medium: num(row?.medium_findings) ?? fromDistribution('medium'),
    low: num(row?.low_findings) ?? fromDistribution('low'),
    info: fromDistribution('info'),
  };
}

async function topFindings(conn: DuckDBConnection, scope: ProjectScope): Promise<TopFinding[]> {
  const rows = await queryRows(
    conn,
    `SELECT f.rank, f.severity, f.attack_name, f.goal_category, f.score, f.assessment_name, f.goal, f.candidate,
            f.response, coalesce(t.notes, f.notes) AS notes,
            -- A dated risk acceptance as the metrics layer judges it at this snapshot's time; else the
            -- status the figures count the finding under (an untriaged finding is open), not a blank.
            CASE m.acceptance_state
              WHEN 'accepted' THEN 'accepted_risk until ' || m.accepted_until
              WHEN 'expired' THEN 'open (acceptance ended ' || m.accepted_until || ')'
              ELSE coalesce(m.finding_status, t.finding_status, f.finding_status) END AS triage_status,
            -- Open as the figures count it, so "Fix first" never asks to fix what they leave out.
            m.is_open
     FROM findings f
     LEFT JOIN snapshot_finding_triage t ON t.snapshot_id = f.snapshot_id AND t.attack_run_id = f.attack_run_id
     LEFT JOIN metric_findings m ON m.snapshot_id = f.snapshot_id AND m.attack_run_id = f.attack_run_id
     WHERE f.snapshot_id = $1 AND f.project_key = $2 AND f.origin = 'project_top_finding'
       AND NOT EXISTS (SELECT 1 FROM analytics_warnings w WHERE w.snapshot_id = f.snapshot_id
                       AND w.project_key = f.project_key AND w.assessment_id = f.assessment_id AND w.slice = 'top_findings')
     ORDER BY f.rank NULLS LAST, f.ordinal LIMIT ${TOP_FINDINGS}`,
    [scope.snapshotId, scope.project.key],
  );
  return rows.map((row, index) => ({
    rank: num(row.rank) ?? index + 1,
    severity: str(row.severity) ?? 'unknown',
    attack: str(row.attack_name) ?? 'unknown',
    goalCategory: str(row.goal_category),
    score: num(row.score),
    triageStatus: str(row.triage_status),
    open: typeof row.is_open === 'boolean' ? row.is_open : null,
    assessmentName: str(row.assessment_name),
    goal: str(row.goal),
    candidate: str(row.candidate),
    response: str(row.response),
    notes: str(row.notes),
  }));
}

/** Item counts of an evaluation job by outcome state (item_counts), null where unknown. */
export type EvaluationOutcomeCounts = Readonly<
  Record<(typeof EVALUATION_OUTCOME_STATES)[number], number | null>
>;

/**
 * The pass-rate rule of the metrics layer (view metric_evaluation_pass_rates), in TypeScript for
 * hand-built models: items passed ÷ dataset size once every item has an outcome (the outcome counts
 * add up to the dataset size), else null: a queued, running or cancelled job has no pass rate yet,
 * never 0. The service's pass_rate counts only when the item counts are unknown and its analytics
 * summary is final (`serviceStatus` completed or failed).
 */
export function evaluationPassRate(job: {
  items: EvaluationOutcomeCounts;
  datasetSize: number | null;
  servicePassRate: number | null;
  serviceStatus: string | null;
}): number | null {
  const counts = EVALUATION_OUTCOME_STATES.map((state) => job.items[state]);
  if (counts.some((count) => count === null)) {
    const final = job.serviceStatus === 'completed' || job.serviceStatus === 'failed';
    return final ? job.servicePassRate : null;
  }
  const withOutcome = counts.reduce<number>((sum, count) => sum + (count ?? 0), 0);
  const { datasetSize } = job;
  if (datasetSize === null || datasetSize <= 0 || withOutcome !== datasetSize) return null;
  return (job.items.passed ?? 0) / datasetSize;
}

async function evaluationJobs(conn: DuckDBConnection, scope: ProjectScope): Promise<EvaluationJobRow[]> {
  if (scope.project.id === null) return [];
  const rows = await queryRows(
    conn,
    `SELECT evaluation_id, name, job_status, kind, model, ${isoTimestamp('queued_at')} AS queued_at,
            ${isoTimestamp('completed_at')} AS completed_at, dataset_size, items_passed, items_failed,
            items_errored, items_infra_error, items_timed_out, items_cancelled, error_summary,
            (SELECT m.pass_rate FROM metric_evaluation_pass_rates m WHERE m.snapshot_id = e.snapshot_id
               AND m.project_key = e.project_key AND m.evaluation_id = e.evaluation_id) AS pass_rate
     FROM evaluation_jobs e
     WHERE e.snapshot_id = $1 AND e.project_id = $2
     ORDER BY queued_at NULLS LAST, evaluation_id`,
    [scope.snapshotId, scope.project.id],
  );
  return rows.map((row) => {
    const passed = num(row.items_passed);
    const failed = num(row.items_failed);
    const errored = num(row.items_errored);
    const datasetSize = num(row.dataset_size);
    return {
      id: String(row.evaluation_id),
      name: str(row.name) ?? String(row.evaluation_id),
      status: str(row.job_status) ?? 'unknown',
      kind: str(row.kind),
      model: str(row.model),
      queuedAt: str(row.queued_at),
      completedAt: str(row.completed_at),
      datasetSize,
      passed,
      failed,
      errored,
      infraError: num(row.items_infra_error),
      timedOut: num(row.items_timed_out),
      cancelled: num(row.items_cancelled),
      passRate: num(row.pass_rate),
      errorSummary: str(row.error_summary),
    };
  });
}

/** TAXONOMY risk bands of a 0–10 score. */
export function riskLevelOf(score: number | null): string | null {
  if (score === null) return null;
  if (score >= 8) return 'critical';
  if (score >= 6) return 'high';
  if (score >= 3) return 'medium';
  return 'low';
}

/** Severity counts from the metrics layer's findings figures. */
export function figureSeverities(figures: ProjectFigures): SeverityCounts {
  return {
    critical: figures.findings_critical.value,
    high: figures.findings_high.value,
    medium: figures.findings_medium.value,
    low: figures.findings_low.value,
    info: figures.findings_info.value,
  };
}

/** Coverage rows from the metrics layer (the matrix), never from the service's compliance_posture. */
export function coverageRows(coverage: readonly FrameworkCoverageFigure[]): FrameworkCoverage[] {
  return [...coverage]
    .sort((a, b) => compareFrameworkKeys(a.framework, b.framework))
    .map((row) => ({
      framework: row.framework,
      title: frameworkTitle(row.framework),
      coveragePct: row.coverage,
      testedCategories: row.testedCategories,
      totalCategories: row.totalCategories,
      failing: row.failing,
      passing: row.passing,
      insufficientEvidence: row.insufficientEvidence,
      untested: row.notTested,
      disagreements: row.disagreements,
    }));
}

/** Assessments (by name, else id) named in a figure's exclusion list, as a report Exclusion. */
async function namedExclusion(
  conn: DuckDBConnection,
  scope: ProjectScope,
  field: string,
  ids: readonly string[],
): Promise<Exclusion[]> {
  if (ids.length === 0) return [];
  const names = await queryRows(
    conn,
    `SELECT assessment_id, name FROM assessments WHERE snapshot_id = $1 AND project_key = $2`,
    [scope.snapshotId, scope.project.key],
  );
  const byId = new Map(names.map((row) => [String(row.assessment_id), str(row.name)]));
  return [{ field, assessments: ids.map((id) => byId.get(id) ?? id).sort() }];
}

/**
 * Per warned slice, the analyzed assessments (by name, else id) it left out of an aggregate built from
 * attack runs: exactly the assessments metric_assessments flags, so the disclosure matches the figure.
 */
async function analyzedExclusions(
  conn: DuckDBConnection,
  scope: ProjectScope,
  slices: readonly string[],
): Promise<Exclusion[]> {
  const rows = await queryRows(
    conn,
    `SELECT slice, list(DISTINCT coalesce(assessment_name, assessment_id) ORDER BY coalesce(assessment_name, assessment_id)) AS names
     FROM (SELECT assessment_name, assessment_id, unnest(warned_slices) AS slice FROM metric_assessments
           WHERE snapshot_id = $1 AND project_key = $2 AND analyzed)
     WHERE slice IN (${slices.map(quoteLiteral).join(', ')}) GROUP BY slice ORDER BY slice`,
    [scope.snapshotId, scope.project.key],
  );
  return rows.map((row) => ({ field: String(row.slice), assessments: strings(row.names) ?? [] }));
}

/** Reads everything but data quality and provenance, which the caller adds. */
export async function executiveSections(
  conn: DuckDBConnection,
  scope: ProjectScope,
): Promise<Omit<ExecutiveModel, 'summary' | 'dataQuality' | 'provenance'>> {
  const params = [scope.snapshotId, scope.project.key];
  const key = figureScope(scope);
  const figures = await readProjectFigures(conn, key);
  const [summary] = await queryRows(
    conn,
    `SELECT ${isoTimestamp('first_assessment_date')} AS first_at, ${isoTimestamp('last_assessment_date')} AS last_at
     FROM executive_summary WHERE snapshot_id = $1 AND project_key = $2`,
    params,
  );
  const trend = await readTrend(conn, key);
  const categories = await readAsrBy(conn, key, 'category');
  const attacks = await readAsrBy(conn, key, 'attack');
  const transforms = await readTransformLift(conn, key);
  const coverage = await readFrameworkCoverage(conn, key);
  const domains = await readRiskByDomain(conn, key);
  const goals = await readGoalAsr(conn, key);
  const overall = figures.overall_asr;
  const riskScore = figures.risk_score.value;

  return {
    kind: 'executive',
    project: scope.project,
    kpis: {
      riskLevel: riskLevelOf(riskScore),
      riskScore,
      overallAsr: overall.value,
      overallAsrSuccessful: overall.numerator ?? null,
      overallAsrAttacks: overall.denominator ?? null,
      openFindings: figures.findings_open.value,
      assessments: figures.assessments.value,
      attacks: figures.attacks.value,
      trials: figures.trials.value,
      totalFindings: figures.findings_total.value,
      findingsBySeverity: figureSeverities(figures),
      firstAssessmentAt: str(summary?.first_at),
      lastAssessmentAt: str(summary?.last_at),
    },
    riskTrend: trend.map((point) => ({
      assessmentId: point.assessmentId,
      assessmentName: point.assessmentName,
      date: point.date,
      riskScore: point.riskScore,
      riskLevel: riskLevelOf(point.riskScore),
      overallAsr: point.asr,
    })),
    asrByCategory: {
      rows: categories.map((row) => ({
        category: row.key,
        asr: row.value,
        successfulAttacks: row.numerator,
        totalAttacks: row.denominator,
        totalTrials: row.trials,
      })),
      excludes: await namedExclusion(
        conn,
        scope,
        'asr_by_category',
        await sliceIds(conn, scope, 'asr_by_category'),
      ),
    },
    attackEffectiveness: attacks.map((row) => ({
      attack: row.key,
      timesUsed: row.denominator,
      successRate: row.value,
      avgBestScore: row.avgBestScore,
      totalTrials: row.trials,
    })),
    transformLift: {
      baselineAsr: transforms.baselineAsr,
      rows: transforms.rows.map((row) => ({
        transform: row.key,
        lift: row.lift,
        avgAsr: row.value,
        timesUsed: row.denominator,
      })),
    },
    complianceCoverage: coverageRows(coverage),
    riskByDomain: domains.map((row) => ({
      domain: row.domain,
      critical: row.critical,
      high: row.high,
      medium: row.medium,
      total: row.total,
      avgAsr: row.avgAsr,
      maxScore: row.maxScore,
      successfulAttacks: row.numerator,
      attacks: row.denominator,
      serviceTotal: row.service.total,
      serviceAvgAsr: row.service.avgAsr,
    })),
    riskByDomainExcludes: await analyzedExclusions(conn, scope, [
      'attack_runs',
      'overall_asr',
      'severity_breakdown',
    ]),
    goalAsr: {
      rows: goals.slice(0, GOAL_ROWS).map((row) => ({
        goalCategory: row.goalCategory,
        goal: row.goal,
        asr: row.value,
        successfulAttacks: row.numerator,
        attacks: row.denominator,
        trials: row.trials,
        evidence: row.evidence,
        serviceAsr: row.serviceAsr,
      })),
      more: Math.max(0, goals.length - GOAL_ROWS),
      excludes: await analyzedExclusions(conn, scope, ['attack_runs', 'overall_asr']),
    },
    topFindings: await topFindings(conn, scope),
    evaluationJobs: await evaluationJobs(conn, scope),
  };
}

async function sliceIds(conn: DuckDBConnection, scope: ProjectScope, slice: string): Promise<string[]> {
  return (await readSliceExclusions(conn, figureScope(scope), slice)).map((row) => row.id);
}

/** Adds the generated summary to the sections. */
export function withExecutiveNarrative(model: Omit<ExecutiveModel, 'summary'>): ExecutiveModel {
  return { ...model, summary: executiveNarrative(model) };
}
