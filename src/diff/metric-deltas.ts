/**
 * Metric deltas between two snapshots of one project: overall ASR, risk score, ASR per goal category,
 * coverage per framework and evaluation pass rates. A metric that is unknown on either side (null:
 * absent in an older snapshot or excluded by an analytics warning) has a null delta — never a
 * difference against 0.
 *
 * An analytics warning keeps an assessment's erroneous slice out of the warehouse, so a category or
 * framework seen only in that slice is simply missing on that side. Missing there is not "added" or
 * "removed" when an excluded assessment could have held the key: the key counts as compared on both
 * sides with an unknown value there, and `excluded` names that side. A key no excluded assessment
 * could have held (none of its attack runs has that goal category) is missing because nothing there
 * tested it, exclusions or not: added or removed as usual.
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

/**
 * The assessment slice (analytics_warnings.slice) each keyed group is computed from. The overall
 * figures are the service's own project values and evaluation pass rates are not per assessment, so
 * no exclusion can hide one of their keys.
 */
const SOURCE_SLICE: Partial<Record<MetricGroup, string>> = {
  category_asr: 'asr_by_category',
  framework_coverage: 'compliance_matrix',
};

/** The slices whose exclusions can make a metric key unknown (see `excluded` on MetricDelta). */
export const METRIC_SLICES: readonly string[] = Object.values(SOURCE_SLICE);

/** Per side, the slices of which an analytics warning excluded at least one assessment. */
export interface ExcludedSlices {
  from: readonly string[];
  to: readonly string[];
  /**
   * Per side and slice, the only keys its excluded assessments could have held (the warehouse's
   * excludedSliceKeys: their attack runs' goal categories). A slice not given, or given null, could
   * hide any key.
   */
  keys?: {
    from?: Readonly<Record<string, readonly string[] | null>>;
    to?: Readonly<Record<string, readonly string[] | null>>;
  };
}

/** One metric's value in both snapshots and the change. */
export interface MetricDelta {
  group: MetricGroup;
  /** overall_asr / risk_score for the overall group, else the category, framework or job name. */
  key: string;
  from: number | null;
  to: number | null;
  /** to − from; null when either side is unknown. */
  delta: number | null;
  /**
   * added: only in `to`; removed: only in `from` (the other side had all its data). both: compared on
   * both sides, either of which may be unknown (null).
   */
  presence: 'both' | 'added' | 'removed';
  /**
   * The side whose value is unknown because an analytics warning excluded the data it comes from
   * (the key is missing there and an assessment excluded from the source slice there could have held
   * it); null otherwise.
   */
  excluded: 'from' | 'to' | null;
}

const NONE_EXCLUDED: ExcludedSlices = { from: [], to: [] };

/** Every metric of either side, in group order then key order. Values rounded to 6 decimals. */
export function metricDeltas(
  from: ProjectMetrics | null,
  to: ProjectMetrics,
  excluded: ExcludedSlices = NONE_EXCLUDED,
): MetricDelta[] {
  const deltas: MetricDelta[] = [
    delta('overall', 'overall_asr', from?.overall_asr, to.overall_asr, from !== null),
    delta('overall', 'risk_score', from?.risk_score, to.risk_score, from !== null),
  ];
  deltas.push(...keyed('category_asr', from?.asr_by_category ?? null, to.asr_by_category, excluded));
  deltas.push(
    ...keyed('framework_coverage', from?.coverage_by_framework ?? null, to.coverage_by_framework, excluded),
  );
  deltas.push(
    ...keyed('evaluation_pass_rate', from?.evaluation_pass_rates ?? null, to.evaluation_pass_rates, excluded),
  );
  return deltas;
}

function keyed(
  group: MetricGroup,
  from: Record<string, number | null> | null,
  to: Record<string, number | null>,
  excluded: ExcludedSlices,
): MetricDelta[] {
  const slice = SOURCE_SLICE[group];
  // Whether the side's exclusions could hide `key`. Only a key an excluded assessment could have held
  // is unknown: calling every missing key unknown whenever the side has any exclusion would turn
  // categories first tested in the later snapshot into "excluded" because of an assessment that never
  // ran them. Where the warehouse cannot tell what the assessment held (no keys given), any key could
  // be hidden, so it stays unknown rather than being called added or removed on a guess.
  const hides = (side: 'from' | 'to', key: string): boolean => {
    if (slice === undefined || !excluded[side].includes(slice)) return false;
    const possible = excluded.keys?.[side]?.[slice];
    return possible === undefined || possible === null || possible.includes(key);
  };
  const keys = [...new Set([...Object.keys(from ?? {}), ...Object.keys(to)])].sort();
  return keys.map((key) => {
    const inFrom = from !== null && Object.hasOwn(from, key);
    const inTo = Object.hasOwn(to, key);
    const entry = delta(group, key, inFrom ? from[key] : undefined, inTo ? to[key] : undefined, inFrom);
    // Without a previous snapshot nothing was excluded there: every key is simply new.
    const unknownSide =
      from !== null && !inFrom && hides('from', key) ? 'from' : !inTo && hides('to', key) ? 'to' : null;
    const presence = (inFrom && inTo) || unknownSide !== null ? 'both' : inTo ? 'added' : 'removed';
    return { ...entry, presence, excluded: unknownSide };
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
    excluded: null,
  };
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
