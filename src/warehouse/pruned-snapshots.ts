/**
 * What retention deleted, so a command asked for a pruned snapshot says so instead of "not in the
 * database; load it first" (a new user's pass over ten nightly runs asked for a pruned id and could
 * not tell a typo from retention).
 *
 * One row per snapshot whose rows a prune deleted (prune.ts writes them in its transaction, so a
 * prune killed before COMMIT records nothing), with the run whose retention pruned it and its
 * keep_last. Loading the snapshot again removes its row (loader.ts): the snapshot is then in the
 * database as any other.
 *
 * Not part of the table contract (schema.ts): internal bookkeeping, created with the schema (version
 * 21), never exported, never pruned (a row is a few dozen bytes per pruned night).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { ctx, type TableDef } from './schema-core.js';
import { queryRows } from './snapshot-lookup.js';

export const PRUNED_SNAPSHOTS: TableDef = {
  name: 'pruned_snapshots',
  doc: 'Internal: snapshots whose rows retention deleted, when and by which run.',
  scope: 'snapshot',
  columns: [
    ctx('snapshot_id', 'VARCHAR'),
    ctx('org', 'VARCHAR'),
    ctx('workspace', 'VARCHAR'),
    ctx('pruned_at', 'TIMESTAMPTZ'),
    ctx('pruned_by', 'VARCHAR'),
    ctx('keep_last', 'BIGINT'),
  ],
};

/** Why a prune ran: the run whose retention step asked for it. */
export interface PruneReason {
  /** The snapshot id of the run whose retention step pruned. */
  run: string;
  keepLast: number;
}

/**
 * Records the snapshots in temp table `prune_snapshots` as pruned now, within the prune's
 * transaction (a snapshot pruned again, after being loaded again, gets one row: the newest).
 */
export async function recordPruned(conn: DuckDBConnection, reason: PruneReason, now: Date): Promise<void> {
  await conn.run(
    'DELETE FROM pruned_snapshots WHERE snapshot_id IN (SELECT snapshot_id FROM prune_snapshots)',
  );
  await conn.run(
    `INSERT INTO pruned_snapshots
     SELECT s.snapshot_id, s.org, s.workspace, $1::TIMESTAMPTZ, $2, $3
     FROM snapshots s WHERE s.snapshot_id IN (SELECT snapshot_id FROM prune_snapshots)`,
    [now.toISOString(), reason.run, reason.keepLast],
  );
}

/** A snapshot loaded again is no longer pruned (within the load's transaction). */
export async function forgetPruned(conn: DuckDBConnection, snapshotId: string): Promise<void> {
  await conn.run('DELETE FROM pruned_snapshots WHERE snapshot_id = $1', [snapshotId]);
}

/**
 * The sentence for a snapshot the database does not hold because retention pruned it, or null when
 * it was never pruned (a typo, or never loaded: the caller's own message says so).
 */
export async function prunedSnapshotMessage(
  conn: DuckDBConnection,
  snapshotId: string,
): Promise<string | null> {
  const rows = await queryRows(
    conn,
    `SELECT org, workspace, strftime(pruned_at, '%Y-%m-%d %H:%M UTC') AS pruned_at, pruned_by, keep_last
     FROM pruned_snapshots WHERE snapshot_id = $1`,
    [snapshotId],
  );
  const row = rows[0];
  if (!row) return null;
  const org = String(row.org);
  const workspace = String(row.workspace);
  return (
    `Snapshot ${snapshotId} is not in the database any more: the retention of run ${String(row.pruned_by)} ` +
    `pruned it on ${String(row.pruned_at)} (retention.keep_last ${String(row.keep_last)} for ` +
    `${org}/${workspace} keeps the newest snapshots and the run's baseline, on disk and in the database). ` +
    `${await heldSnapshots(conn, org, workspace)} Name one of those, or load the snapshot's directory again ` +
    `if you still have a copy.`
  );
}

/** The sentence naming the newest snapshots of the workspace the database still holds (at most 3). */
async function heldSnapshots(conn: DuckDBConnection, org: string, workspace: string): Promise<string> {
  const held = await queryRows(
    conn,
    `SELECT snapshot_id, count(*) OVER () AS n FROM snapshots WHERE org = $1 AND workspace = $2
     ORDER BY snapshot_id DESC LIMIT 3`,
    [org, workspace],
  );
  const total = Number(held[0]?.n ?? 0);
  if (total === 0) return `The database holds no snapshot of ${org}/${workspace} now.`;
  const ids = held.map((r) => String(r.snapshot_id)).join(', ');
  const count = total === 1 ? 'one snapshot' : `${total} snapshots`;
  return `The database holds ${count} of ${org}/${workspace}${total > held.length ? '; the newest' : ''}: ${ids}.`;
}
