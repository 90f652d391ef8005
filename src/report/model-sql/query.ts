/**
 * Reading rows for report models: bound parameters only, every query ordered, values converted to
 * plain JS here (numbers, strings, string lists, null) so model builders never see DuckDB types.
 */
import type { DuckDBConnection } from '@duckdb/node-api';

export type SqlRow = Record<string, unknown>;

/** Runs an ordered query with positional parameters ($1, $2, …) and returns JS row objects. */
export async function queryRows(
  conn: DuckDBConnection,
  sql: string,
  params: readonly (string | number)[] = [],
): Promise<SqlRow[]> {
  const reader = await conn.runAndReadAll(sql, [...params]);
  return reader.getRowObjectsJS();
}

/** A number, or null for NULL / non-numeric. BIGINT arrives as bigint. */
export function num(value: unknown): number | null {
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  return null;
}

export function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** A VARCHAR[] as a string array; null stays null. */
export function strings(value: unknown): string[] | null {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : null;
}

/** A JSON column (read as VARCHAR) parsed; null for NULL or malformed JSON. */
export function json(value: unknown): unknown {
  if (typeof value !== 'string') return null;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return null;
  }
}

/** SQL expression: a TIMESTAMPTZ column as ISO-8601 UTC text (the session time zone is UTC). */
export function isoTimestamp(column: string): string {
  return `strftime(${column}, '%Y-%m-%dT%H:%M:%SZ')`;
}

/** Percent (0–100, as the API sends coverage_pct) to a fraction 0–1. */
export function percentToFraction(value: number | null): number | null {
  return value === null ? null : value / 100;
}

/** `$1, $2, …, $n` (starting after `offset` earlier parameters) for an IN list of bound values. */
export function placeholders(count: number, offset = 0): string {
  return Array.from({ length: count }, (_, index) => `$${offset + index + 1}`).join(', ');
}
