/**
 * The service's severity scale (shared/TAXONOMY.md "Scores, severity, ASR, risk"), in one place for the
 * simulator that produces severities, the diff and gates that compare them, and the reports that rank
 * them. Worst first, the order of the API's SeveritySchema.
 */
import { SeveritySchema, type Severity } from './api/schemas.js';

export const SEVERITIES = SeveritySchema.options;

/** Severity of a 0-1 score: critical ≥ 0.9, high ≥ 0.7, medium ≥ 0.5, low ≥ 0.3, else info. */
export function severityFromScore(score: number | null): Severity {
  if (score === null) return 'info';
  if (score >= 0.9) return 'critical';
  if (score >= 0.7) return 'high';
  if (score >= 0.5) return 'medium';
  if (score >= 0.3) return 'low';
  return 'info';
}

/**
 * Higher is worse: critical 5 … info 1. Summaries carry severities as free strings, so the match
 * ignores case and anything unknown (or missing) ranks 0, below info.
 */
export function severityRank(severity: string | null | undefined): number {
  const index = SEVERITIES.indexOf((severity ?? '').toLowerCase() as Severity);
  return index < 0 ? 0 : SEVERITIES.length - index;
}
