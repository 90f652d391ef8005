/**
 * The central rule for AnalyticsWarning{field, reason}: the named slice of that assessment is stored in
 * an older format and is erroneous, not empty. So:
 *   - the warning becomes a row of analytics_warnings, with the slice's raw value kept for audit;
 *   - the slice never reaches the clean tables: an array/map slice (asr_by_*, compliance_matrix,
 *     top_findings, attack_runs, reports) writes no rows, and an assessment column (overall_asr,
 *     execution_stats, …) is NULL and listed in assessments.erroneous_fields;
 *   - it never becomes 0, and aggregates report how many assessments were left out
 *     (view analytics_exclusions, `excluded_assessments` in the named queries).
 * A field naming a sub-path (`compliance_matrix.owasp_llm`) excludes the whole top-level slice: a
 * partially trusted slice would still mislead an aggregate.
 */
import { isPlainObject, type RowCollector } from './row-builder.js';

export interface AnalyticsWarningEntry {
  field: string | null;
  reason: string | null;
  /** Top-level AssessmentDetail key, or null when the warning does not name one. */
  slice: string | null;
  raw: unknown;
}

/** `asr_by_category.entries` → `asr_by_category`; `compliance_matrix["owasp_llm"]` → `compliance_matrix`. */
function sliceOf(field: string): string | null {
  const top = /^[^.[\]]+/.exec(field.trim());
  return top ? top[0] : null;
}

/** Reads an assessment's analytics_warnings; odd entries are kept and reported, never dropped. */
export function readAnalyticsWarnings(
  assessment: Record<string, unknown>,
  file: string,
  path: string,
  sink: RowCollector,
): AnalyticsWarningEntry[] {
  const value = assessment.analytics_warnings;
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    sink.warn('type_mismatch', `${path}.analytics_warnings is not an array; nothing excluded`, file, {
      value,
    });
    return [];
  }
  return value.map((raw: unknown, i) => {
    const field = isPlainObject(raw) && typeof raw.field === 'string' ? raw.field : null;
    const reason = isPlainObject(raw) && typeof raw.reason === 'string' ? raw.reason : null;
    if (field === null) {
      sink.warn(
        'odd_analytics_warning',
        `${path}.analytics_warnings[${i}] names no field; nothing excluded`,
        file,
        { raw },
      );
    }
    return { field, reason, slice: field === null ? null : sliceOf(field), raw };
  });
}

/** The set of slices excluded for an assessment. */
export function excludedSlices(entries: readonly AnalyticsWarningEntry[]): Set<string> {
  return new Set(entries.flatMap((e) => (e.slice === null ? [] : [e.slice])));
}
