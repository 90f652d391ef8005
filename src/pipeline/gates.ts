/**
 * Gate evaluation: each configured gate is measured for each project in scope through a
 * `GateMetricProvider` (the warehouse in production), compared with its threshold, and turned into a
 * result that carries the rows behind the value.
 *
 * Every project the snapshot lists is in scope of a gate without a project filter, one whose summary
 * failed to fetch (a partial night) included: its gates are "unknown (no data)" and trip (gate-scope.ts
 * finds such projects), never left out as if the project did not exist.
 *
 * Data excluded by analytics warnings is never silent: a gate that passed over partly excluded data
 * says `pass (excludes 1 assessment with erroneous asr_by_category)`, and a gate whose data was all
 * excluded (or absent) is `unknown`, which trips the run unless `on_unknown_gate: warn`.
 *
 * A count gate whose count may hold findings of unknown severity (their attack run lacks its required
 * best_score; see finding-count-gates.ts) knows only a range of counts: its verdict stands when it is
 * the same over the whole range (`open_critical_findings <= 0` with a known critical fails whatever
 * the others are), and otherwise it is `unknown`, which trips like any unknown gate.
 *
 * A gate whose verdict rests on too small a sample (a category ASR below MIN_TRIALS_FOR_EVIDENCE
 * trials; a compliance gate that would decide otherwise if its under-sampled categories went the other
 * way) is `insufficient_evidence`: never pass or fail, and it does not trip.
 */
import { compareGate, type GateExpression, type GateMetric, type GateOperator } from './gate-expression.js';

/** A value a row field may hold; rows are printed in reports and serialized to JSON as is. */
export type EvidenceValue = string | number | boolean | null;

/** One row behind a metric: an assessment, a finding, a category, an evaluation job. */
export interface EvidenceRow {
  /** Short human label, e.g. the finding's attack and goal category. Untrusted: escape when printing. */
  label: string;
  /** The row's own value of the metric, for min/max metrics; null when the row only counts. */
  value: number | null;
  /** The row's identifying columns (ids, names, severity, …), in display order. */
  fields: Record<string, EvidenceValue>;
}

/** A slice of an assessment left out of a metric because an analytics warning marks it erroneous. */
export interface MetricExclusion {
  assessment_id: string;
  field: string;
  reason: string;
}

/**
 * A measured metric. `aggregate` says how rows relate to the value: `count` (the value is the number
 * of rows), `min`/`max` (the value is the smallest/largest row value), or `value` (the rows are the
 * source records of a single figure).
 */
export interface MetricMeasurement {
  value: number | null;
  aggregate: 'count' | 'min' | 'max' | 'value';
  rows: EvidenceRow[];
  exclusions: MetricExclusion[];
  /** Context the reader needs, e.g. "no previous snapshot: every open finding counts as new". */
  note: string | null;
  /**
   * Present when part of the data is below the minimum sample: `bound` is the value with the
   * under-sampled part taken the other way (a category that may be failing, a category that does not
   * count as tested), or null when the whole value is under-sampled. A verdict stands only when value
   * and bound agree; `reason` says what is under-sampled.
   */
  insufficient?: { bound: number | null; reason: string };
  /**
   * Present on a count when findings of unknown severity (their attack run lacks its required
   * best_score and no triage gave one) could belong to it: `rows` are those findings. The value
   * counts none of them and none belongs for sure, so the count lies between the value and the value
   * plus their number; a verdict stands only when it is the same over that range, else the gate is
   * unknown. `reason` says how many there are, why, and what they could be.
   */
  unknownSeverity?: { rows: EvidenceRow[]; reason: string };
}

/** Which data a gate is measured on. */
export interface GateScope {
  snapshotId: string;
  /** The snapshot the diff-based metrics compare against; null on the first run. */
  previousSnapshotId: string | null;
  /** Project key (slug) as in the snapshot. */
  project: string;
}

/** Source of metric values; implemented over the warehouse (warehouse-metrics.ts) and in tests. */
export interface GateMetricProvider {
  measure(metric: GateMetric, scope: GateScope): Promise<MetricMeasurement>;
}

/** insufficient_evidence: the sample is below the minimum, so neither pass nor fail (never trips). */
export type GateStatus = 'pass' | 'fail' | 'unknown' | 'insufficient_evidence';

/** The outcome of one gate on one project. Field order is the JSON report's order. */
export interface GateResult {
  gate: string;
  project: string;
  status: GateStatus;
  /** Status with its qualifier, e.g. `pass (excludes 1 assessment with erroneous asr_by_category)`. */
  status_text: string;
  /**
   * Whether this result makes the run exit with code 4 (fail, or unknown under on_unknown_gate: trip;
   * insufficient evidence never trips).
   */
  trips: boolean;
  value: number | null;
  /**
   * Present when findings of unknown severity make the count a range: `min` is the known count (also
   * `value`, unless the range leaves the gate unknown and `value` is null), `max` that count with every
   * one of them counted.
   */
  value_range?: { min: number; max: number };
  op: GateOperator;
  threshold: number;
  note: string | null;
  excluded: MetricExclusion[];
  rows_total: number;
  /**
   * For a failed gate, the rows that tripped it; for a count left unknown by findings of unknown
   * severity, those findings; empty otherwise.
   */
  tripping_rows: EvidenceRow[];
}

export interface GateToEvaluate {
  expression: GateExpression;
  /** Limit to this project; null: every project in scope. */
  project: string | null;
}

/**
 * A project the snapshot lists but holds no data of (its summary request failed on a partial night):
 * its gates are unknown, never measured and never dropped.
 */
export interface ProjectWithoutData {
  key: string;
  id: string | null;
  /** Names the project (by name where known) and says what failed; the gate's note. */
  note: string;
}

export interface EvaluateGatesOptions {
  snapshotId: string;
  previousSnapshotId: string | null;
  /** Projects in scope, in report order, those in `withoutData` included. */
  projects: readonly string[];
  /** Projects of the snapshot without data (gate-scope.ts): a gate on one is "unknown (no data)". */
  withoutData?: readonly ProjectWithoutData[] | undefined;
  onUnknown: 'trip' | 'warn';
}

/** Evaluates every gate on every project it applies to, in config order then project order. */
export async function evaluateGates(
  gates: readonly GateToEvaluate[],
  provider: GateMetricProvider,
  options: EvaluateGatesOptions,
): Promise<GateResult[]> {
  const results: GateResult[] = [];
  for (const gate of gates) {
    const projects = gate.project === null ? options.projects : [gate.project];
    // A gate with nothing to measure is unknown, never dropped: a gate list that silently shrinks
    // would let an empty snapshot (or a scope that matches nothing) pass.
    if (projects.length === 0) {
      results.push(judgeGate(gate.expression, NO_PROJECT, NOTHING_IN_SCOPE, options.onUnknown));
      continue;
    }
    for (const project of projects) {
      // A project without data is unknown: measuring it would read an empty project and pass.
      const lacking = options.withoutData?.find((p) => p.key === project || p.id === project);
      if (lacking !== undefined) {
        results.push(judgeGate(gate.expression, lacking.key, noData(lacking), options.onUnknown));
        continue;
      }
      const scope: GateScope = {
        snapshotId: options.snapshotId,
        previousSnapshotId: options.previousSnapshotId,
        project,
      };
      const measurement = await provider.measure(gate.expression.metric, scope);
      results.push(judgeGate(gate.expression, project, measurement, options.onUnknown));
    }
  }
  return results;
}

/** The project label of a gate that had no project in scope to be measured on. */
export const NO_PROJECT = '(no project)';

const NOTHING_IN_SCOPE: MetricMeasurement = {
  value: null,
  aggregate: 'value',
  rows: [],
  exclusions: [],
  note: 'No project in scope: the snapshot holds none of the configured projects (or none at all).',
};

function noData(project: ProjectWithoutData): MetricMeasurement {
  return { value: null, aggregate: 'value', rows: [], exclusions: [], note: project.note };
}

/** Compares one measurement with its gate. Pure: the unit the gate report is built from. */
export function judgeGate(
  expression: GateExpression,
  project: string,
  measurement: MetricMeasurement,
  onUnknown: 'trip' | 'warn',
): GateResult {
  const { value, exclusions } = measurement;
  const exclusionText = describeExclusions(exclusions);
  const excludes = exclusions.length > 0 ? [`excludes ${exclusionText}`] : [];
  const unscored = measurement.unknownSeverity;
  const range =
    value !== null && unscored !== undefined && unscored.rows.length > 0
      ? { min: value, max: value + unscored.rows.length }
      : null;
  const rangeText =
    range === null || unscored === undefined
      ? ''
      : `${unscored.reason}: the count is between ${range.min} and ${range.max}`;
  let status: GateStatus;
  let statusText: string;
  if (value === null) {
    status = 'unknown';
    statusText =
      exclusions.length > 0 ? `unknown (all data excluded: ${exclusionText})` : 'unknown (no data)';
  } else if (range !== null && verdictOverRange(expression, range) === null) {
    status = 'unknown';
    statusText = `unknown (${[rangeText, ...excludes].join('; ')})`;
  } else if (
    measurement.insufficient !== undefined &&
    !verdictStands(expression, value, measurement.insufficient.bound)
  ) {
    status = 'insufficient_evidence';
    const qualifiers = [
      measurement.insufficient.reason,
      ...(exclusions.length > 0 ? [`excludes ${exclusionText}`] : []),
    ];
    statusText = `insufficient evidence (${qualifiers.join('; ')})`;
  } else {
    status = compareGate(value, expression.op, expression.threshold) ? 'pass' : 'fail';
    const qualifiers = [
      ...(range === null
        ? []
        : [`${rangeText}, and every count in it ${status === 'pass' ? 'passes' : 'fails'}`]),
      ...excludes,
    ];
    statusText = qualifiers.length > 0 ? `${status} (${qualifiers.join('; ')})` : status;
  }
  const trips = status === 'fail' || (status === 'unknown' && onUnknown === 'trip');
  const unknownByRange = status === 'unknown' && range !== null;
  return {
    gate: expression.text,
    project,
    status,
    status_text: statusText,
    trips,
    value: unknownByRange ? null : value,
    ...(range === null ? {} : { value_range: range }),
    op: expression.op,
    threshold: expression.threshold,
    note: measurement.note,
    excluded: exclusions,
    rows_total: measurement.rows.length,
    tripping_rows:
      status === 'fail'
        ? trippingRows(expression, measurement)
        : unknownByRange
          ? (unscored?.rows ?? [])
          : [],
  };
}

/**
 * The verdict every whole count from `min` to `max` gets, or null when they do not all get the same.
 * Checking the ends suffices for an order; `==` and `!=` change only at the threshold itself.
 */
function verdictOverRange(expression: GateExpression, range: { min: number; max: number }): boolean | null {
  const { op, threshold } = expression;
  const inside = Number.isInteger(threshold) && threshold > range.min && threshold < range.max;
  const verdicts = [range.min, range.max, ...(inside ? [threshold] : [])].map((count) =>
    compareGate(count, op, threshold),
  );
  return verdicts.every((verdict) => verdict === verdicts[0]) ? (verdicts[0] ?? null) : null;
}

/** A verdict over partly under-sampled data stands only if the under-sampled part could not change it. */
function verdictStands(expression: GateExpression, value: number, bound: number | null): boolean {
  if (bound === null) return false;
  const { op, threshold } = expression;
  return compareGate(value, op, threshold) === compareGate(bound, op, threshold);
}

/**
 * For min/max metrics only the rows that break the threshold themselves tripped the gate (the three
 * categories under 20 trials, not all fifteen); for counts and single values every row behind it did.
 */
function trippingRows(expression: GateExpression, measurement: MetricMeasurement): EvidenceRow[] {
  if (measurement.aggregate === 'min' || measurement.aggregate === 'max') {
    return measurement.rows.filter(
      (row) => row.value !== null && !compareGate(row.value, expression.op, expression.threshold),
    );
  }
  return measurement.rows;
}

/** `1 assessment with erroneous asr_by_category, 2 assessments with erroneous compliance_matrix`. */
function describeExclusions(exclusions: readonly MetricExclusion[]): string {
  const byField = new Map<string, Set<string>>();
  for (const exclusion of exclusions) {
    const assessments = byField.get(exclusion.field) ?? new Set<string>();
    assessments.add(exclusion.assessment_id);
    byField.set(exclusion.field, assessments);
  }
  return [...byField.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(
      ([field, ids]) =>
        `${ids.size} ${ids.size === 1 ? 'assessment' : 'assessments'} with erroneous ${field}`,
    )
    .join(', ');
}
