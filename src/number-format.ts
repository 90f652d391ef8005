/**
 * Number and date formatting for reports. Unknown values (null) are shown as "—", never as 0; every
 * output is our own ASCII (digits, sign, "%", "—"), so it needs no escaping in any context.
 */

/** What an unknown value looks like in a report. */
export const UNKNOWN = '—';

function finite(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** 1234567 → "1,234,567" (fixed, locale-independent). */
export function formatCount(value: number | null | undefined): string {
  if (!finite(value)) return UNKNOWN;
  const sign = value < 0 ? '-' : '';
  const digits = Math.round(Math.abs(value)).toString();
  return sign + digits.replace(/\B(?=(\d{3})+(?!\d))/gu, ',');
}

/** A fraction 0–1 as a percentage with one decimal (or `digits`): 0.4567 → "45.7%". */
export function formatPercent(value: number | null | undefined, digits = 1): string {
  return finite(value) ? `${(value * 100).toFixed(digits)}%` : UNKNOWN;
}

/** A difference of two fractions in percentage points, signed: 0.125 → "+12.5 pp" (one decimal, or `digits`). */
export function formatLift(value: number | null | undefined, digits = 1): string {
  if (!finite(value)) return UNKNOWN;
  const points = (value * 100).toFixed(digits);
  // A change that rounds to zero reads "0.0 pp" whatever its sign, as formatSignedDecimal does.
  if (/^-0\.?0*$/u.test(points)) return `${points.slice(1)} pp`;
  return `${value > 0 && Number(points) !== 0 ? '+' : ''}${points} pp`;
}

/** A number with fixed decimals (scores 0–1: 2, risk 0–10: 1). */
export function formatDecimal(value: number | null | undefined, digits: number): string {
  return finite(value) ? value.toFixed(digits) : UNKNOWN;
}

/** An ISO date-time as its calendar date (UTC as written); anything else is unknown. */
export function formatDate(value: string | null | undefined): string {
  const match = typeof value === 'string' ? /^(\d{4}-\d{2}-\d{2})(?:[T ]|$)/u.exec(value) : null;
  return match?.[1] ?? UNKNOWN;
}

/** An ISO date-time to the minute, e.g. "2026-01-05 14:03 UTC" when it carries Z/+00:00. */
export function formatDateTime(value: string | null | undefined): string {
  const match =
    typeof value === 'string'
      ? /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/u.exec(value)
      : null;
  if (!match) return UNKNOWN;
  const zone =
    match[3] === undefined ? '' : match[3] === 'Z' || match[3] === '+00:00' ? ' UTC' : ` ${match[3]}`;
  return `${match[1]} ${match[2]}${zone}`;
}

/** Risk posture band of a 0–10 score (TAXONOMY.md): 0–3 low, 3–6 medium, 6–8 high, 8–10 critical. */
export function riskBand(score: number | null | undefined): 'low' | 'medium' | 'high' | 'critical' | null {
  if (!finite(score)) return null;
  if (score >= 8) return 'critical';
  if (score >= 6) return 'high';
  if (score >= 3) return 'medium';
  return 'low';
}

/** A signed difference with fixed decimals (risk score changes): 0.25 → "+0.3" with 1 digit. */
export function formatSignedDecimal(value: number | null | undefined, digits: number): string {
  if (!finite(value)) return UNKNOWN;
  const text = value.toFixed(digits);
  if (/^-0\.?0*$/u.test(text)) return text.slice(1);
  return value > 0 && Number(text) !== 0 ? `+${text}` : text;
}

/**
 * Whether a change, in the units it is shown in, is no change: zero, or below what `maxDigits`
 * decimals can show (|change| < 0.5·10^-maxDigits) — floating-point noise, such as 0.1 + 0.2 against
 * 0.3. Such a change is shown and counted as zero. Unknown (null, NaN, infinite) is not no change.
 */
export function isNoChange(change: number | null | undefined, maxDigits = 6): boolean {
  return finite(change) && Math.abs(change) < 0.5 / 10 ** maxDigits;
}

/**
 * The decimals to show a before → after row and its change with, so the row never contradicts
 * itself: `digits`, or more where at `digits` two different sides would read alike or a real change
 * would read as zero (risk 8.11 → 8.06 reads "8.11 | 8.06 | -0.05", never "8.1 | 8.1 | -0.1"); at
 * most `maxDigits`. All three are in the units they are shown in (percent for a percentage and its
 * points). A change below what `maxDigits` can show is floating-point noise, no change (isNoChange):
 * `digits`. As with any rounded figures, the shown change may differ by one unit in the last place
 * from the difference of the shown sides (8.14 → 8.25 reads "8.1 | 8.3 | +0.1"); more decimals for
 * that would make ordinary rows long (1/7 → 4/9 would read "14.2857% | 44.4444%"). Unknown values:
 * `digits`. Depends on the values only: deterministic.
 */
export function changeDigits(
  before: number | null | undefined,
  after: number | null | undefined,
  change: number | null | undefined,
  digits: number,
  maxDigits = 6,
): number {
  if (!finite(before) || !finite(after) || !finite(change) || isNoChange(change, maxDigits)) return digits;
  let shown = digits;
  while (
    shown < maxDigits &&
    (before.toFixed(shown) === after.toFixed(shown) || Number(change.toFixed(shown)) === 0)
  ) {
    shown += 1;
  }
  return shown;
}

/**
 * The one pluralization rule every report uses: `one` for exactly 1, `many` otherwise (0 included).
 * Both words are our own wording; the count is not part of the result.
 */
export function pluralWord(count: number | null | undefined, one: string, many: string): string {
  return count === 1 ? one : many;
}

/** A count with its noun, e.g. "1 assessment", "3 assessments", "— assessments" when unknown. */
export function countOf(count: number | null | undefined, one: string, many: string): string {
  return `${formatCount(count)} ${pluralWord(count, one, many)}`;
}
