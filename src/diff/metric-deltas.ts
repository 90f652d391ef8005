/**
 * Metric deltas between two snapshots of one project: overall ASR, risk score, ASR per goal category,
 * coverage per framework and evaluation pass rates. A metric that is unknown on either side (null:
 * absent in an older snapshot or excluded by an analytics warning) has a null delta — never a
 * difference against 0.
 */

/** The figures of one project in one snapshot that the diff compares. */
export interface ProjectMetrics {
  overall_asr: number | null;
  risk_score: number | null;
  /** Goal category → ASR (0-1), over the assessments whose asr_by_category is not excluded. */
  asr_by_category: Record<string, number | null>;
  /** Framework key → coverage percent (0-100). */
  coverage_by_framework: Record<string, number | null>;
  /** Evaluation job name → pass rate (0-1). Keyed by name: a re-run job gets a new id. */
  evaluation_pass_rates: Record<string, number | null>;
}

export type MetricGroup = 'overall' | 'category_asr' | 'framework_coverage' | 'evaluation_pass_rate';

export interface MetricDelta {
  group: MetricGroup;
  /** overall_asr / risk_score for the overall group, else the category, framework or job name. */
  key: string;
  from: number | null;
  to: number | null;
  /** to − from; null when either side is unknown. */
  delta: number | null;
  /** added: only in `to`; removed: only in `from`. */
  presence: 'both' | 'added' | 'removed';
}

/** Every metric of either side, in group order then key order. Values rounded to 6 decimals. */
export function metricDeltas(from: ProjectMetrics | null, to: ProjectMetrics): MetricDelta[] {
  const deltas: MetricDelta[] = [
    delta('overall', 'overall_asr', from?.overall_asr, to.overall_asr, from !== null),
    delta('overall', 'risk_score', from?.risk_score, to.risk_score, from !== null),
  ];
  deltas.push(...keyed('category_asr', from?.asr_by_category ?? null, to.asr_by_category));
  deltas.push(...keyed('framework_coverage', from?.coverage_by_framework ?? null, to.coverage_by_framework));
  deltas.push(
    ...keyed('evaluation_pass_rate', from?.evaluation_pass_rates ?? null, to.evaluation_pass_rates),
  );
  return deltas;
}

function keyed(
  group: MetricGroup,
  from: Record<string, number | null> | null,
  to: Record<string, number | null>,
): MetricDelta[] {
  const keys = [...new Set([...Object.keys(from ?? {}), ...Object.keys(to)])].sort();
  return keys.map((key) => {
    const inFrom = from !== null && Object.hasOwn(from, key);
    const inTo = Object.hasOwn(to, key);
    const entry = delta(group, key, inFrom ? from[key] : undefined, inTo ? to[key] : undefined, inFrom);
    return { ...entry, presence: inFrom && inTo ? 'both' : inTo ? 'added' : 'removed' };
  });
}

function delta(
  group: MetricGroup,
  key: string,
  from: number | null | undefined,
  to: number | null | undefined,
  fromPresent: boolean,
): MetricDelta {
  const a = from ?? null;
  const b = to ?? null;
  return {
    group,
    key,
    from: a,
    to: b,
    delta: a === null || b === null ? null : round(b - a),
    presence: fromPresent ? 'both' : 'added',
  };
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
