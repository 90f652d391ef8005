/**
 * The gates' metrics, measured in the warehouse. Each metric returns its value, the exact rows behind
 * it, and the analytics-warning exclusions that shaped it:
 *
 * | metric                              | value                                  | rows                    |
 * |-------------------------------------|----------------------------------------|-------------------------|
 * | new_/regressed_/open_critical_…     | count (diff against previous snapshot) | the findings            |
 * | overall_asr, risk_score             | the service's project figure           | the assessments         |
 * | category.<c>.asr                    | max over assessments (asr_by_category) | each assessment's entry |
 * | min_trials_per_category             | min over categories of summed trials   | each category           |
 * | min_evaluation_pass_rate            | min over the project's evaluation jobs | each job with a rate    |
 * | framework.<f>.failing_categories    | categories failing in compliance_matrix| the failing categories  |
 * | framework.<f>.coverage_pct          | tested / all categories × 100          | the untested categories |
 *
 * Compliance states come from the compliance report's own classifier, so a gate and the report never
 * disagree on whether a category fails.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { projectLifecycle } from '../diff/snapshot-diff.js';
import { isOpen, type FindingLifecycle, type FindingRecord } from '../diff/finding-lifecycle.js';
import {
  PROJECT_MATCH,
  findProject,
  projectParams,
  queryRows,
  readFindingRecords,
  sliceExclusions,
  type ProjectRef,
  type SliceExclusion,
  type SqlValue,
} from '../diff/warehouse-source.js';
import {
  DEFAULT_MIN_TRIALS_FOR_EVIDENCE,
  classifyCategory,
  type ComplianceCell,
} from '../report/compliance-state.js';
import type { GateMetric } from './gate-expression.js';
import type { EvidenceRow, GateMetricProvider, GateScope, MetricMeasurement } from './gates.js';

/** A provider over an open warehouse connection (the caller owns and closes it). */
export function warehouseMetricProvider(conn: DuckDBConnection): GateMetricProvider {
  const lifecycles = new Map<string, Promise<{ lifecycle: FindingLifecycle; excluded: SliceExclusion[] }>>();
  const lifecycleOf = (
    scope: GateScope,
    project: ProjectRef,
  ): Promise<{ lifecycle: FindingLifecycle; excluded: SliceExclusion[] }> => {
    const key = `${scope.previousSnapshotId ?? ''}→${scope.snapshotId}/${project.key}`;
    let cached = lifecycles.get(key);
    if (!cached) {
      cached = projectLifecycle(conn, scope.previousSnapshotId, scope.snapshotId, project);
      lifecycles.set(key, cached);
    }
    return cached;
  };

  return {
    async measure(metric: GateMetric, scope: GateScope): Promise<MetricMeasurement> {
      const project = await findProject(conn, scope.snapshotId, scope.project);
      if (!project) {
        return {
          value: null,
          aggregate: 'value',
          rows: [],
          exclusions: [],
          note: `project ${scope.project} is not in snapshot ${scope.snapshotId}`,
        };
      }
      const params = projectParams(scope.snapshotId, project);
      switch (metric.kind) {
        case 'new_critical_findings':
        case 'new_findings':
        case 'regressed_findings': {
          const { lifecycle, excluded } = await lifecycleOf(scope, project);
          const findings = pickFindings(metric.kind, lifecycle);
          return {
            value: findings.length,
            aggregate: 'count',
            rows: findings.map(({ finding, change }) => findingRow(finding, change)),
            exclusions: excluded,
            note:
              scope.previousSnapshotId === null
                ? 'no previous snapshot: every open finding counts as new'
                : null,
          };
        }
        case 'open_critical_findings': {
          const { findings, excluded } = await readFindingRecords(conn, scope.snapshotId, project);
          const open = findings.filter((f) => isOpen(f) && f.severity === 'critical');
          return {
            value: open.length,
            aggregate: 'count',
            rows: open.map((f) => findingRow(f, 'open')),
            exclusions: excluded,
            note: null,
          };
        }
        case 'overall_asr':
        case 'risk_score':
          return projectFigure(conn, params, project, metric.kind);
        case 'category_asr':
          return categoryAsr(conn, params, project, metric.category);
        case 'min_trials_per_category':
          return minTrialsPerCategory(conn, params, project);
        case 'min_evaluation_pass_rate':
          return minEvaluationPassRate(conn, params);
        case 'framework_failing_categories':
        case 'framework_coverage_pct':
          return frameworkMetric(conn, params, project, metric.kind, metric.framework);
      }
    },
  };
}

function pickFindings(
  kind: 'new_critical_findings' | 'new_findings' | 'regressed_findings',
  lifecycle: FindingLifecycle,
): { finding: FindingRecord; change: string }[] {
  if (kind === 'new_findings') return lifecycle.new.map((finding) => ({ finding, change: 'new' }));
  const regressed = lifecycle.regressed.map((r) => ({
    finding: r.to,
    change: r.reasons.join('; '),
    was: r.from,
  }));
  if (kind === 'regressed_findings') return regressed;
  // New critical: new findings at critical, and findings that became critical (or reopened at critical).
  return [
    ...lifecycle.new.filter((f) => f.severity === 'critical').map((finding) => ({ finding, change: 'new' })),
    ...regressed.filter(
      (r) => r.finding.severity === 'critical' && (r.was.severity !== 'critical' || !isOpen(r.was)),
    ),
  ];
}

function findingRow(finding: FindingRecord, change: string): EvidenceRow {
  return {
    label: `${finding.attack_name} / ${finding.goal_category ?? 'no category'}`,
    value: finding.score,
    fields: {
      attack_run_id: finding.attack_run_id,
      assessment: finding.assessment_name ?? finding.assessment_id,
      severity: finding.severity,
      score: finding.score,
      triage: finding.finding_status,
      change,
    },
  };
}

async function projectFigure(
  conn: DuckDBConnection,
  params: SqlValue[],
  project: ProjectRef,
  kind: 'overall_asr' | 'risk_score',
): Promise<MetricMeasurement> {
  const column = kind === 'overall_asr' ? 'overall_asr' : 'overall_risk_score';
  const summary = await queryRows(
    conn,
    `SELECT ${column} AS value FROM executive_summary WHERE snapshot_id = $1 AND ${PROJECT_MATCH} ORDER BY project_key LIMIT 1`,
    params,
  );
  const assessments = await queryRows(
    conn,
    `SELECT assessment_id, name, status, overall_asr, total_attacks FROM assessments
     WHERE snapshot_id = $1 AND ${PROJECT_MATCH} ORDER BY created_at, assessment_id`,
    params,
  );
  // The value is the service's own project figure, which we cannot recompute without the slices an
  // analytics warning flags; say so rather than claim those assessments were excluded.
  const flagged = await sliceExclusions(conn, String(params[0]), project, ['overall_asr', 'execution_stats']);
  const ids = new Set(flagged.map((f) => f.assessment_id));
  return {
    value: number(summary[0]?.value),
    aggregate: 'value',
    rows: assessments.map((row) => ({
      label: String(row.name ?? row.assessment_id),
      value: number(row.overall_asr),
      fields: {
        assessment_id: String(row.assessment_id),
        status: text(row.status),
        total_attacks: number(row.total_attacks),
      },
    })),
    exclusions: [],
    note:
      ids.size > 0
        ? `the service's project figure; ${ids.size} assessment(s) have an erroneous overall_asr/execution_stats slice it may include`
        : "the service's project figure",
  };
}

async function categoryAsr(
  conn: DuckDBConnection,
  params: SqlValue[],
  project: ProjectRef,
  category: string,
): Promise<MetricMeasurement> {
  const rows = await queryRows(
    conn,
    `SELECT b.assessment_id, a.name, b.asr, b.successful_attacks, b.total_attacks, b.total_trials
     FROM asr_breakdown b
     LEFT JOIN assessments a ON a.snapshot_id = b.snapshot_id AND a.assessment_id = b.assessment_id
     WHERE b.snapshot_id = $1 AND (b.project_key = $2 OR ($3::VARCHAR IS NOT NULL AND b.project_id = $3))
       AND b.dimension = 'category' AND b.key = $4
     ORDER BY b.asr DESC NULLS LAST, b.assessment_id`,
    [...params, category],
  );
  const evidence = rows.map((row) => ({
    label: String(row.name ?? row.assessment_id),
    value: number(row.asr),
    fields: {
      assessment_id: String(row.assessment_id),
      successful_attacks: number(row.successful_attacks),
      total_attacks: number(row.total_attacks),
      total_trials: number(row.total_trials),
    },
  }));
  return {
    value: extreme(evidence, 'max'),
    aggregate: 'max',
    rows: evidence,
    exclusions: await sliceExclusions(conn, String(params[0]), project, ['asr_by_category']),
    note: null,
  };
}

async function minTrialsPerCategory(
  conn: DuckDBConnection,
  params: SqlValue[],
  project: ProjectRef,
): Promise<MetricMeasurement> {
  const rows = await queryRows(
    conn,
    `SELECT key, CASE WHEN count(*) = count(total_trials) THEN sum(total_trials) END AS trials,
            count(DISTINCT assessment_id) AS assessments
     FROM asr_breakdown WHERE snapshot_id = $1 AND ${PROJECT_MATCH} AND dimension = 'category'
     GROUP BY key ORDER BY trials NULLS FIRST, key`,
    params,
  );
  const evidence = rows.map((row) => ({
    label: String(row.key),
    value: number(row.trials),
    fields: { category: String(row.key), assessments: number(row.assessments) },
  }));
  return {
    value: extreme(evidence, 'min'),
    aggregate: 'min',
    rows: evidence,
    exclusions: await sliceExclusions(conn, String(params[0]), project, ['asr_by_category']),
    note: evidence.some((row) => row.value === null)
      ? 'categories with an unknown trial count are not counted'
      : null,
  };
}

async function minEvaluationPassRate(conn: DuckDBConnection, params: SqlValue[]): Promise<MetricMeasurement> {
  const rows = await queryRows(
    conn,
    `SELECT evaluation_id, name, job_status, analytics_pass_rate AS pass_rate FROM evaluation_jobs
     WHERE snapshot_id = $1 AND ${PROJECT_MATCH} AND analytics_pass_rate IS NOT NULL
     ORDER BY analytics_pass_rate, name, evaluation_id`,
    params,
  );
  const evidence = rows.map((row) => ({
    label: String(row.name),
    value: number(row.pass_rate),
    fields: { evaluation_id: String(row.evaluation_id), status: text(row.job_status) },
  }));
  return { value: extreme(evidence, 'min'), aggregate: 'min', rows: evidence, exclusions: [], note: null };
}

async function frameworkMetric(
  conn: DuckDBConnection,
  params: SqlValue[],
  project: ProjectRef,
  kind: 'framework_failing_categories' | 'framework_coverage_pct',
  framework: string,
): Promise<MetricMeasurement> {
  const cells = await queryRows(
    conn,
    `SELECT tag, assessment_id, tested, asr, max_severity, total_trials, attacks_used FROM compliance_matrix
     WHERE snapshot_id = $1 AND ${PROJECT_MATCH} AND framework = $4 ORDER BY tag, assessment_id`,
    [...params, framework],
  );
  const byTag = new Map<string, ComplianceCell[]>();
  for (const row of cells) {
    const list = byTag.get(String(row.tag)) ?? [];
    list.push({
      assessmentId: String(row.assessment_id),
      tested: row.tested === true,
      asr: number(row.asr),
      maxSeverity: text(row.max_severity),
      totalTrials: number(row.total_trials),
      attacksUsed: Array.isArray(row.attacks_used) ? row.attacks_used.map(String) : null,
    });
    byTag.set(String(row.tag), list);
  }
  const verdicts = [...byTag.entries()].map(([tag, list]) => ({
    tag,
    verdict: classifyCategory(list, DEFAULT_MIN_TRIALS_FOR_EVIDENCE),
  }));
  const exclusions = await sliceExclusions(conn, String(params[0]), project, ['compliance_matrix']);
  const categoryRow = ({ tag, verdict }: (typeof verdicts)[number]): EvidenceRow => ({
    label: tag,
    value: verdict.maxAsr,
    fields: {
      state: verdict.state,
      max_severity: verdict.maxSeverity,
      total_trials: verdict.totalTrials,
      assessments_tested: verdict.assessmentsTested,
    },
  });
  if (verdicts.length === 0)
    return {
      value: null,
      aggregate: 'value',
      rows: [],
      exclusions,
      note: `no compliance data for ${framework}`,
    };
  if (kind === 'framework_failing_categories') {
    const failing = verdicts.filter((v) => v.verdict.state === 'failing');
    return {
      value: failing.length,
      aggregate: 'count',
      rows: failing.map(categoryRow),
      exclusions,
      note: null,
    };
  }
  const untested = verdicts.filter((v) => v.verdict.state === 'not_tested');
  const coverage = ((verdicts.length - untested.length) / verdicts.length) * 100;
  return {
    value: Math.round(coverage * 100) / 100,
    aggregate: 'value',
    rows: untested.map(categoryRow),
    exclusions,
    note: `${verdicts.length - untested.length} of ${verdicts.length} categories tested; rows are the untested ones`,
  };
}

function extreme(rows: readonly EvidenceRow[], which: 'min' | 'max'): number | null {
  const values = rows.map((row) => row.value).filter((value): value is number => value !== null);
  if (values.length === 0) return null;
  return which === 'min' ? Math.min(...values) : Math.max(...values);
}

function number(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
