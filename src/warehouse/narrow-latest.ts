/**
 * The latest_metric_* views read each project's newest snapshot, but DuckDB computed every snapshot's
 * figures before the join to latest_project_snapshots kept the newest: it applies a view's snapshot
 * filter to the rows it reads only when the filter is an equality with a constant. So a named query
 * over them cost more with every night a database held (on the large preset, `query
 * @compliance_coverage` with 30 nightly snapshots took 0.96 s and 465 MB against 0.45 s and 159 MB
 * with the newest alone; latest_metric_consistency 1.0 s against 0.18 s).
 *
 * A read-only connection sees the database as it was when opened (DuckDB lets no writer in while it
 * is open), so its newest snapshots cannot change under it: narrowLatestMetricViews() reads them once
 * and shadows each latest_metric_* view, for this connection only, with the same rows written with
 * those ids as constants (metric-views.ts, narrowedLatestMetricViews). The stored views are untouched.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { narrowedLatestMetricViews } from './metric-views.js';

/**
 * More newest snapshots than this (a database of many workspaces) and the views stay as stored: each
 * is one more branch DuckDB binds when the view is created (~5 ms each for the fourteen views).
 */
export const MAX_NARROWED_SNAPSHOTS = 8;

/**
 * Shadows the latest_metric_* views of a read-only connection with their narrowed form. Does nothing
 * (false) on a connection that can write, where the newest snapshots may change; when every snapshot
 * is a newest one, so there is nothing to leave out (creating the views costs ~75 ms, which a
 * one-snapshot database would pay on every query and viewer session for nothing); or when the
 * database has more than MAX_NARROWED_SNAPSHOTS newest snapshots.
 */
export async function narrowLatestMetricViews(conn: DuckDBConnection): Promise<boolean> {
  const database = await conn.runAndReadAll(
    'SELECT database_name, readonly FROM duckdb_databases() WHERE database_name = current_database()',
  );
  const [catalog, readOnly] = database.getRows()[0] ?? [];
  if (typeof catalog !== 'string' || readOnly !== true) return false;
  const latest = await conn.runAndReadAll(
    'SELECT DISTINCT snapshot_id FROM latest_project_snapshots ORDER BY snapshot_id',
  );
  const snapshotIds = latest.getRows().map(([id]) => String(id));
  if (snapshotIds.length > MAX_NARROWED_SNAPSHOTS) return false;
  const all = await conn.runAndReadAll('SELECT count(*) FROM snapshots');
  if (Number(all.getRows()[0]![0]) === snapshotIds.length) return false;
  for (const statement of narrowedLatestMetricViews(catalog, snapshotIds)) await conn.run(statement);
  return true;
}

/** True when `sql` may read a latest_* view (the ones over metric views, or those reading them). */
export const readsLatestViews = (sql: string): boolean => /latest_/i.test(sql);
