/**
 * The first load warnings of a snapshot, as `load` prints them after loading it: read on the load's
 * own connection before the database is closed (opening it again only for them cost ~50 ms a night).
 */
import type { DuckDBConnection } from '@duckdb/node-api';

/** One row of load_warnings, as `load` shows it. */
export interface LoadWarningRow {
  snapshotId: string;
  code: string;
  message: string;
  file: string | null;
}

/**
 * A snapshot's first `limit` load warnings, in the order they were recorded. Values are bound, never
 * spliced into the SQL.
 */
export async function firstLoadWarnings(
  conn: DuckDBConnection,
  snapshotId: string,
  limit: number,
): Promise<LoadWarningRow[]> {
  if (limit <= 0) return [];
  const reader = await conn.runAndReadAll(
    'SELECT code, message, file FROM load_warnings WHERE snapshot_id = $id ORDER BY ordinal LIMIT $limit',
    { id: snapshotId, limit },
  );
  return reader.getRowsJson().map(([code, message, file]) => ({
    snapshotId,
    code: typeof code === 'string' ? code : '',
    message: typeof message === 'string' ? message : '',
    file: typeof file === 'string' ? file : null,
  }));
}
