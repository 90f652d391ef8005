/** The executive model of one project in one snapshot, read from the warehouse. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { frameworkTitle, compareFrameworkKeys } from '../frameworks.js';
import type { EvaluationJobRow, ExecutiveModel, Exclusion, SeverityCounts, TopFinding } from '../model.js';
import { executiveNarrative } from '../narrative.js';
import { isoTimestamp, json, num, percentToFraction, queryRows, str } from './query.js';
import type { ProjectScope } from './scope.js';

/** Top findings shown (the API ranks at most 20 per project). */
const TOP_FINDINGS = 20;

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
            f.response, coalesce(t.finding_status, f.finding_status) AS triage_status, coalesce(t.notes, f.notes) AS notes
     FROM findings f LEFT JOIN finding_triage t ON t.attack_run_id = f.attack_run_id
     WHERE f.snapshot_id = $1 AND f.project_key = $2 AND f.origin = 'project_top_finding'
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
    assessmentName: str(row.assessment_name),
    goal: str(row.goal),
    candidate: str(row.candidate),
    response: str(row.response),
    notes: str(row.notes),
  }));
}

/**
 * One pass-rate definition for every job: items passed ÷ dataset size, the ratio the service's own
 * analytics report for finished jobs. Cancelled, failed and running jobs get the same denominator, so
 * items they never evaluated count as not passed (rather than a smaller "decided items" denominator
 * that would make an aborted job look better than a finished one). The service's figure is used only
 * when the item counts are missing; it is the same ratio.
 */
export function evaluationPassRate(
  passed: number | null,
  datasetSize: number | null,
  servicePassRate: number | null,
): number | null {
  if (passed !== null && datasetSize !== null && datasetSize > 0) return passed / datasetSize;
  return servicePassRate;
}

async function evaluationJobs(conn: DuckDBConnection, scope: ProjectScope): Promise<EvaluationJobRow[]> {
  if (scope.project.id === null) return [];
  const rows = await queryRows(
    conn,
    `SELECT evaluation_id, name, job_status, kind, model, ${isoTimestamp('queued_at')} AS queued_at,
            ${isoTimestamp('completed_at')} AS completed_at, dataset_size, items_passed, items_failed,
            items_errored, analytics_pass_rate, error_summary
     FROM evaluation_jobs WHERE snapshot_id = $1 AND project_id = $2
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
      passRate: evaluationPassRate(passed, datasetSize, num(row.analytics_pass_rate)),
      errorSummary: str(row.error_summary),
    };
  });
}

/** Reads everything but data quality and provenance, which the caller adds. */
export async function executiveSections(
  conn: DuckDBConnection,
  scope: ProjectScope,
): Promise<Omit<ExecutiveModel, 'summary' | 'dataQuality' | 'provenance'>> {
  const params = [scope.snapshotId, scope.project.key];
  const [summary] = await queryRows(
    conn,
    `SELECT overall_risk_level, overall_risk_score, overall_asr, total_assessments, total_attacks, total_trials,
            total_findings, critical_findings, high_findings, medium_findings, low_findings,
            severity_distribution::VARCHAR AS severity_distribution,
            ${isoTimestamp('first_assessment_date')} AS first_at, ${isoTimestamp('last_assessment_date')} AS last_at
     FROM executive_summary WHERE snapshot_id = $1 AND project_key = $2`,
    params,
  );
  const bySeverity = severityCounts(summary);

  const trend = await queryRows(
    conn,
    `SELECT assessment_id, assessment_name, ${isoTimestamp('date')} AS date, risk_score, risk_level, overall_asr
     FROM risk_trend WHERE snapshot_id = $1 AND project_key = $2 ORDER BY date NULLS LAST, ordinal`,
    params,
  );
  const categories = await queryRows(
    conn,
    `SELECT key, sum(successful_attacks) AS successful, sum(total_attacks) AS attacks, sum(total_trials) AS trials,
            CASE WHEN sum(total_attacks) > 0 THEN sum(successful_attacks) / sum(total_attacks) END AS asr,
            count(*) FILTER (WHERE successful_attacks IS NULL OR total_attacks IS NULL) AS incomplete
     FROM asr_breakdown WHERE snapshot_id = $1 AND project_key = $2 AND dimension = 'category'
     GROUP BY key ORDER BY asr DESC NULLS LAST, key`,
    params,
  );
  const attacks = await queryRows(
    conn,
    `SELECT attack_name, times_used, success_rate, avg_best_score, total_trials FROM attack_effectiveness
     WHERE snapshot_id = $1 AND project_key = $2 ORDER BY success_rate DESC NULLS LAST, attack_name, ordinal`,
    params,
  );
  const transforms = await queryRows(
    conn,
    `SELECT transform, lift, avg_asr, times_used FROM transform_effectiveness
     WHERE snapshot_id = $1 AND project_key = $2 ORDER BY lift DESC NULLS LAST, transform, ordinal`,
    params,
  );
  const posture = await queryRows(
    conn,
    `SELECT framework, coverage_pct, tested_categories, total_categories, len(failing_categories) AS failing,
            len(passing_categories) AS passing, len(untested_categories) AS untested
     FROM compliance_posture WHERE snapshot_id = $1 AND project_key = $2 ORDER BY framework, ordinal`,
    params,
  );
  const domains = await queryRows(
    conn,
    `SELECT domain, critical_findings, high_findings, medium_findings, total_findings, avg_asr, max_score
     FROM risk_by_domain WHERE snapshot_id = $1 AND project_key = $2 ORDER BY ordinal, domain`,
    params,
  );
  // Each transform's baseline is its ASR minus its lift over that baseline.
  const baselines = transforms.flatMap((row) => {
    const avgAsr = num(row.avg_asr);
    const lift = num(row.lift);
    return avgAsr === null || lift === null ? [] : [avgAsr - lift];
  });

  return {
    kind: 'executive',
    project: scope.project,
    kpis: {
      riskLevel: str(summary?.overall_risk_level),
      riskScore: num(summary?.overall_risk_score),
      overallAsr: num(summary?.overall_asr),
      assessments: num(summary?.total_assessments),
      attacks: num(summary?.total_attacks),
      trials: num(summary?.total_trials),
      totalFindings: num(summary?.total_findings),
      findingsBySeverity: bySeverity,
      firstAssessmentAt: str(summary?.first_at),
      lastAssessmentAt: str(summary?.last_at),
    },
    riskTrend: trend.map((row) => ({
      assessmentId: String(row.assessment_id),
      assessmentName: str(row.assessment_name),
      date: str(row.date),
      riskScore: num(row.risk_score),
      riskLevel: str(row.risk_level),
      overallAsr: num(row.overall_asr),
    })),
    asrByCategory: {
      rows: categories.map((row) => {
        const complete = num(row.incomplete) === 0;
        return {
          category: String(row.key),
          asr: complete ? num(row.asr) : null,
          successfulAttacks: complete ? num(row.successful) : null,
          totalAttacks: complete ? num(row.attacks) : null,
          totalTrials: num(row.trials),
        };
      }),
      excludes: await exclusionsFor(conn, scope, 'asr_by_category'),
    },
    attackEffectiveness: attacks.map((row) => ({
      attack: String(row.attack_name),
      timesUsed: num(row.times_used),
      successRate: num(row.success_rate),
      avgBestScore: num(row.avg_best_score),
      totalTrials: num(row.total_trials),
    })),
    transformLift: {
      baselineAsr:
        baselines.length === 0 ? null : baselines.reduce((sum, value) => sum + value, 0) / baselines.length,
      rows: transforms.map((row) => ({
        transform: String(row.transform),
        lift: num(row.lift),
        avgAsr: num(row.avg_asr),
        timesUsed: num(row.times_used),
      })),
    },
    complianceCoverage: posture
      .sort((a, b) => compareFrameworkKeys(String(a.framework), String(b.framework)))
      .map((row) => ({
        framework: String(row.framework),
        title: frameworkTitle(String(row.framework)),
        coveragePct: percentToFraction(num(row.coverage_pct)),
        testedCategories: num(row.tested_categories),
        totalCategories: num(row.total_categories),
        failing: num(row.failing),
        passing: num(row.passing),
        untested: num(row.untested),
      })),
    riskByDomain: domains.map((row) => ({
      domain: String(row.domain),
      critical: num(row.critical_findings),
      high: num(row.high_findings),
      medium: num(row.medium_findings),
      total: num(row.total_findings),
      avgAsr: num(row.avg_asr),
      maxScore: num(row.max_score),
    })),
    topFindings: await topFindings(conn, scope),
    evaluationJobs: await evaluationJobs(conn, scope),
  };
}

/** Adds the generated summary to the sections. */
export function withExecutiveNarrative(model: Omit<ExecutiveModel, 'summary'>): ExecutiveModel {
  return { ...model, summary: executiveNarrative(model) };
}
