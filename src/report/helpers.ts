/**
 * Every Handlebars helper report templates may use, registered in one place. Helpers only format
 * numbers and compare values: their output is our own ASCII or an `Escaped` value passed through, so
 * they never reintroduce raw data text. Unknown (null) values are shown as "—", never as 0.
 */
import type Handlebars from 'handlebars';
import { formatCount, formatDecimal, formatLift, formatPercent, pluralWord, UNKNOWN } from './format.js';
import { Escaped } from './output-context.js';

type HelperValue = unknown;

const asNumber = (value: HelperValue): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

/** The helpers, by name. Each takes Handlebars' options object as its last argument (ignored here). */
const HELPERS = {
  /** Fraction → "45.7%". */
  pct: (value: HelperValue) => formatPercent(asNumber(value)),
  /** ASR with its sample → "60.0% (30 of 50)"; the sample is left out when unknown. */
  asr: (value: HelperValue, successful: HelperValue, total: HelperValue) => {
    const rate = formatPercent(asNumber(value));
    const [n, d] = [asNumber(successful), asNumber(total)];
    return n === null || d === null ? rate : `${rate} (${formatCount(n)} of ${formatCount(d)})`;
  },
  /** Integer count → "1,234". */
  count: (value: HelperValue) => formatCount(asNumber(value)),
  /** Score 0–1 → "0.87". */
  score: (value: HelperValue) => formatDecimal(asNumber(value), 2),
  /** Risk 0–10 → "7.4". */
  risk: (value: HelperValue) => formatDecimal(asNumber(value), 1),
  /** Difference of fractions → "+12.5 pp". */
  lift: (value: HelperValue) => formatLift(asNumber(value)),
  /** An escaped value, a number or our own string as is; null/undefined as "—". */
  show: (value: HelperValue) => {
    if (value instanceof Escaped) return value;
    if (typeof value === 'number') return formatCount(value);
    if (typeof value === 'string') return value;
    return UNKNOWN;
  },
  /** 1-based position from @index. */
  inc: (value: HelperValue) => (asNumber(value) ?? 0) + 1,
  eq: (a: HelperValue, b: HelperValue) => a === b,
  /** Count of items in an array. */
  len: (value: HelperValue) => (Array.isArray(value) ? value.length : 0),
  /** "assessment" or "assessments" (or "Its"/"Their") by count; both words come from the template. */
  plural: (value: HelperValue, one: HelperValue, many: HelperValue) =>
    typeof one === 'string' && typeof many === 'string' ? pluralWord(asNumber(value), one, many) : UNKNOWN,
} as const;

/** Names for Handlebars' `knownHelpers` (with knownHelpersOnly, a typo fails at compile time). */
export const REPORT_HELPER_NAMES: readonly string[] = Object.keys(HELPERS);

/** Registers every report helper on an isolated Handlebars environment. */
export function registerReportHelpers(environment: typeof Handlebars): void {
  for (const [name, helper] of Object.entries(HELPERS)) {
    environment.registerHelper(name, helper as Handlebars.HelperDelegate);
  }
}
