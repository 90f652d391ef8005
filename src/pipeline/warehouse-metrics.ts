/**
 * The gates' metrics, read from the metrics layer (src/metrics/read-figures.ts), so a gate and the
 * report show the same value for the same snapshot. Each metric returns its value, the exact rows
 * behind it, and the analytics-warning exclusions that shaped it:
 *
 * | metric                              | value                                  | rows                    |
 * |-------------------------------------|----------------------------------------|-------------------------|
 * | new_/regressed_/open_critical_…     | count (diff against previous snapshot) | the findings            |
 * | overall_asr, risk_score             | recomputed (metric_project_figures)    | the assessments         |
 * | open_critical_findings              | open critical findings (metric_findings)| the findings           |
 * | category.<c>.asr                    | pooled ASR (metric_category_asr)       | the category            |
 * | min_trials_per_category             | min over categories of summed trials   | each category           |
 * | min_evaluation_pass_rate            | min over the jobs with a pass rate     | each job with a rate    |
 * | framework.<f>.failing_categories    | categories failing in compliance_matrix| the failing categories  |
 * | framework.<f>.coverage_pct          | tested / all categories × 100          | the untested categories |
 *
 * Compliance states come from metric_compliance_categories, as in the compliance report.
 *
 * A count that findings of unknown severity (their attack run lacks its required best_score) could
 * belong to carries them as `unknownSeverity` (finding-count-gates.ts decides which could, from the
 * lifecycle's not-comparable findings; for open_critical_findings every open one could be critical),
 * so the gate is unknown unless its verdict holds whatever they turn out to be.
 *
 * Below the minimum sample (MIN_TRIALS_FOR_EVIDENCE, the views' `evidence` / `insufficient_evidence`
 * state) a measurement carries `insufficient`, so the gate is "insufficient evidence", never pass or
 * fail: a category ASR always; a compliance gate when its under-sampled categories could change it.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { projectLifecycle } from '../diff/snapshot-diff.js';
import type { FindingLifecycle, FindingRecord } from '../diff/finding-lifecycle.js';
import {
  excludedSliceKeys,
  findProject,
  projectParams,
  sliceExclusions,
  type ProjectRef,
  type SliceExclusion,
  type SqlValue,
} from '../warehouse/snapshot-lookup.js';
import {
  MIN_TRIALS_FOR_EVIDENCE,
  readAsrBy,
  readComplianceCategories,
  readEvaluationPassRates,
  readFrameworkCoverage,
  readOpenFindings,
  readProjectFigures,
  readTrend,
  rows as readRows,
  type FigureScope,
  type PassRateFigure,
  type Row,
} from '../metrics/read-figures.js';
import { countOf } from '../number-format.js';
import {
  couldCountFindings,
  notComparableChange,
  pickFindings,
  unknownSeverityReason,
} from './finding-count-gates.js';
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
          const unscored = couldCountFindings(metric.kind, lifecycle).map(notComparableChange);
          return {
            value: findings.length,
            aggregate: 'count',
            rows: findings.map(({ finding, change }) => findingRow(finding, change)),
            exclusions: excluded,
            note:
              scope.previousSnapshotId === null
                ? 'no previous snapshot: every open finding counts as new'
                : null,
            ...(unscored.length === 0
              ? {}
              : {
                  unknownSeverity: {
                    rows: unscored.map(({ finding, change }) => findingRow(finding, change)),
                    reason: unknownSeverityReason(metric.kind, unscored.length),
                  },
                }),
          };
        }
        case 'open_critical_findings': {
          const figureScope = { snapshotId: scope.snapshotId, projectKey: project.key };
          const open = await readOpenFindings(conn, figureScope, 'critical');
          const unscored = await openFindingsOfUnknownSeverity(conn, figureScope);
          return {
            value: open.rows.length,
            aggregate: 'count',
            rows: open.rows.map((row) => openFindingRow(row, 'critical')),
            exclusions: await sliceExclusions(conn, scope.snapshotId, project, [
              'attack_runs',
              'severity_breakdown',
            ]),
            note: null,
            ...(unscored.length === 0
              ? {}
              : {
                  unknownSeverity: {
                    rows: unscored.map((row) => openFindingRow(row, 'unknown')),
                    reason: unknownSeverityReason('open_critical_findings', unscored.length),
                  },
                }),
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
          return minEvaluationPassRate(conn, params, project);
        case 'framework_failing_categories':
        case 'framework_coverage_pct':
          return frameworkMetric(conn, params, project, metric.kind, metric.framework);
      }
    },
  };
}

/** A row of open_critical_findings: an open finding of metric_findings. */
function openFindingRow(row: Row, severity: 'critical' | 'unknown'): EvidenceRow {
  const score = typeof row.best_score === 'number' ? row.best_score : null;
  return {
    label: `${String(row.attack_name)} / ${typeof row.goal_category === 'string' ? row.goal_category : 'no category'}`,
    value: score,
    fields: {
      attack_run_id: typeof row.attack_run_id === 'string' ? row.attack_run_id : null,
      assessment: String(row.assessment_name ?? row.assessment_id),
      severity,
      score,
      triage: typeof row.finding_status === 'string' ? row.finding_status : null,
      change: 'open',
    },
  };
}

/**
 * The open findings (counted, as readOpenFindings reads them) whose severity is unknown: the metrics
 * layer gives none to a run whose score is unknown unless triage set one. Any of them could be critical.
 */
function openFindingsOfUnknownSeverity(conn: DuckDBConnection, scope: FigureScope): Promise<Row[]> {
  return readRows(
    conn,
    `SELECT attack_run_id, assessment_id, assessment_name, attack_name, goal_category, best_score, finding_status
     FROM metric_findings WHERE snapshot_id = $1 AND project_key = $2 AND counted AND is_open AND severity IS NULL
     ORDER BY attack_run_id`,
    [scope.snapshotId, scope.projectKey],
  );
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
  const scope = { snapshotId: String(params[0]), projectKey: project.key };
  const figure = (await readProjectFigures(conn, scope))[kind];
  const trend = await readTrend(conn, scope);
  return {
    value: figure.value,
    aggregate: 'value',
    rows: trend.map((point) => ({
      label: point.assessmentName ?? point.assessmentId,
      value: kind === 'overall_asr' ? point.asr : point.riskScore,
      fields: {
        assessment_id: point.assessmentId,
        successful_attacks: point.numerator,
        attacks: point.denominator,
      },
    })),
    exclusions: await sliceExclusions(conn, scope.snapshotId, project, ['overall_asr', 'attack_runs']),
    note:
      figure.numerator !== undefined && figure.denominator !== undefined
        ? `recomputed: ${figure.numerator} of ${figure.denominator} attacks succeeded`
        : null,
  };
}

async function categoryAsr(
  conn: DuckDBConnection,
  params: SqlValue[],
  project: ProjectRef,
  category: string,
): Promise<MetricMeasurement> {
  const scope = { snapshotId: String(params[0]), projectKey: project.key };
  const row = (await readAsrBy(conn, scope, 'category')).find((entry) => entry.key === category);
  const exclusions = await sliceExclusions(conn, scope.snapshotId, project, ['asr_by_category']);
  if (!row) return categoryWithoutAsr(conn, scope.snapshotId, project, category, exclusions);
  const insufficient =
    row.evidence === 'insufficient_evidence'
      ? {
          insufficient: {
            bound: null,
            reason:
              row.trials === null || row.numerator === null || row.denominator === null
                ? 'a trial or attack count is unknown'
                : `${row.trials} ${row.trials === 1 ? 'trial' : 'trials'}, fewer than the ${MIN_TRIALS_FOR_EVIDENCE} needed`,
          },
        }
      : {};
  return {
    value: row.value,
    aggregate: 'value',
    rows: [
      {
        label: row.key,
        value: row.value,
        fields: {
          successful_attacks: row.numerator,
          total_attacks: row.denominator,
          total_trials: row.trials,
          evidence: row.evidence,
        },
      },
    ],
    exclusions,
    note:
      row.evidence === 'insufficient_evidence'
        ? `pooled over assessments; insufficient evidence (fewer than ${MIN_TRIALS_FOR_EVIDENCE} trials or a count unknown)`
        : 'pooled over assessments (successful attacks / attacks)',
    ...insufficient,
  };
}

/**
 * A category with no ASR. Its data was excluded only if an excluded assessment could have held it
 * (excludedSliceKeys, the diff's rule): one whose attack runs carry that goal category, or one the
 * warehouse cannot tell. Otherwise no analyzed assessment tested it and the exclusions did not touch
 * it, so the gate has no data ("unknown (no data)"), not "all data excluded" by an assessment that
 * never ran the category.
 */
async function categoryWithoutAsr(
  conn: DuckDBConnection,
  snapshotId: string,
  project: ProjectRef,
  category: string,
  exclusions: SliceExclusion[],
): Promise<MetricMeasurement> {
  const none = { value: null, aggregate: 'value' as const, rows: [] };
  if (exclusions.length === 0) return { ...none, exclusions, note: `no ASR for ${category}` };
  const { asr_by_category: couldHold } = await excludedSliceKeys(conn, snapshotId, project, [
    'asr_by_category',
  ]);
  if (couldHold === undefined || couldHold === null || couldHold.includes(category))
    return { ...none, exclusions, note: `no ASR for ${category}` };
  const excluded = new Set(exclusions.map((e) => e.assessment_id)).size;
  return {
    ...none,
    exclusions: [],
    note:
      `no ASR for ${category}: no analyzed assessment tested it, and the ` +
      `${countOf(excluded, 'assessment', 'assessments')} excluded for an erroneous asr_by_category ` +
      `${excluded === 1 ? 'has' : 'have'} no attack run of that category`,
  };
}

async function minTrialsPerCategory(
  conn: DuckDBConnection,
  params: SqlValue[],
  project: ProjectRef,
): Promise<MetricMeasurement> {
  const scope = { snapshotId: String(params[0]), projectKey: project.key };
  const rows = await readAsrBy(conn, scope, 'category');
  const evidence = rows
    .map((row) => ({ label: row.key, value: row.trials, fields: { category: row.key } }))
    .sort((a, b) => (a.value ?? -1) - (b.value ?? -1) || (a.label < b.label ? -1 : 1));
  return {
    value: extreme(evidence, 'min'),
    aggregate: 'min',
    rows: evidence,
    exclusions: await sliceExclusions(conn, scope.snapshotId, project, ['asr_by_category']),
    note: evidence.some((row) => row.value === null)
      ? 'categories with an unknown trial count are not counted'
      : null,
  };
}

async function minEvaluationPassRate(
  conn: DuckDBConnection,
  params: SqlValue[],
  project: ProjectRef,
): Promise<MetricMeasurement> {
  const rates = await readEvaluationPassRates(conn, {
    snapshotId: String(params[0]),
    projectKey: project.key,
  });
  const evidence = rates
    .filter((rate) => rate.value !== null)
    .map((rate) => ({
      label: rate.name ?? rate.evaluationId,
      value: rate.value,
      fields: { evaluation_id: rate.evaluationId, status: rate.status },
    }))
    .sort((a, b) => (a.value ?? 0) - (b.value ?? 0) || (a.label < b.label ? -1 : 1));
  return {
    value: extreme(evidence, 'min'),
    aggregate: 'min',
    rows: evidence,
    exclusions: [],
    note: jobsWithoutPassRate(rates.filter((rate) => rate.value === null)),
  };
}

/**
 * Says how many jobs the minimum leaves out, and why: a job has no pass rate until every item has an
 * outcome (metric_evaluation_pass_rates), so a queued, running or cancelled job is not a 0.
 */
function jobsWithoutPassRate(jobs: readonly PassRateFigure[]): string | null {
  if (jobs.length === 0) return null;
  const byStatus = new Map<string, number>();
  for (const { status } of jobs) {
    const key = status ?? 'unknown status';
    byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
  }
  const statuses = [...byStatus]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([status, count]) => `${count} ${status}`)
    .join(', ');
  return (
    `${countOf(jobs.length, 'job', 'jobs')} without a pass rate ${jobs.length === 1 ? 'is' : 'are'} not ` +
    `counted (${statuses}): a job has one only once every item has an outcome`
  );
}

async function frameworkMetric(
  conn: DuckDBConnection,
  params: SqlValue[],
  project: ProjectRef,
  kind: 'framework_failing_categories' | 'framework_coverage_pct',
  framework: string,
): Promise<MetricMeasurement> {
  const scope = { snapshotId: String(params[0]), projectKey: project.key };
  const categories = (await readComplianceCategories(conn, scope)).filter((c) => c.framework === framework);
  const exclusions = await sliceExclusions(conn, scope.snapshotId, project, ['compliance_matrix']);
  const categoryRow = (category: (typeof categories)[number]): EvidenceRow => ({
    label: category.tag,
    value: category.maxAsr,
    fields: {
      state: category.state,
      current_state: category.currentState,
      max_severity: category.maxSeverity,
      total_trials: category.totalTrials,
      assessments_tested: category.assessmentsTested,
    },
  });
  if (categories.length === 0)
    return {
      value: null,
      aggregate: 'value',
      rows: [],
      exclusions,
      note: `no compliance data for ${framework}`,
    };
  // Tested, but too few trials (or a count unknown) to call passing: may be failing, may not count as tested.
  const weak = categories.filter((c) => c.state === 'insufficient_evidence');
  const weakReason = `${weak.length} of ${categories.length} categories have fewer than ${MIN_TRIALS_FOR_EVIDENCE} trials or an unknown count: ${weak.map((c) => c.tag).join(', ')}`;
  if (kind === 'framework_failing_categories') {
    const failing = categories.filter((c) => c.state === 'failing');
    return {
      value: failing.length,
      aggregate: 'count',
      rows: failing.map(categoryRow),
      exclusions,
      note: null,
      ...(weak.length > 0
        ? { insufficient: { bound: failing.length + weak.length, reason: weakReason } }
        : {}),
    };
  }
  const coverage = (await readFrameworkCoverage(conn, scope)).find((c) => c.framework === framework);
  const untested = categories.filter((c) => c.state === 'not_tested');
  const evidenced = categories.length - untested.length - weak.length;
  return {
    value:
      coverage?.coverage === null || coverage === undefined
        ? null
        : Math.round(coverage.coverage * 1e6) / 1e4,
    aggregate: 'value',
    rows: untested.map(categoryRow),
    exclusions,
    note: `${categories.length - untested.length} of ${categories.length} categories tested; rows are the untested ones`,
    ...(weak.length > 0
      ? {
          insufficient: {
            bound: Math.round((evidenced / categories.length) * 1e6) / 1e4,
            reason: weakReason,
          },
        }
      : {}),
  };
}

function extreme(rows: readonly EvidenceRow[], which: 'min' | 'max'): number | null {
  const values = rows.map((row) => row.value).filter((value): value is number => value !== null);
  if (values.length === 0) return null;
  return which === 'min' ? Math.min(...values) : Math.max(...values);
}
