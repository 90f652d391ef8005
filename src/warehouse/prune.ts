/**
 * Pruning the warehouse to the snapshots a scheduled run keeps (retention, issue 14): the rows of a
 * workspace's snapshots that are no longer kept are deleted from every table, then the stored trial
 * contents no remaining snapshot refers to. One transaction: a prune killed at any point leaves the
 * database as it was before, and the next run's prune finishes the job (it prunes every snapshot of
 * the workspace not kept, not only the ones deleted from disk this time).
 *
 *   snapshots of org/workspace not in `keep` ─▶ BEGIN ─▶ record them (pruned_snapshots)
 *     ─▶ DELETE their rows and row set mappings
 *     ─▶ DELETE stored rows no mapping refers to (row-sets.ts)
 *     ─▶ DELETE trial_content / trial_content_files no snapshot_trial_files row refers to ─▶ COMMIT
 *     ─▶ CHECKPOINT (freed blocks are reused by later loads)
 *
 * Triage journal rows (findings without a snapshot) stay: they belong to no snapshot.
 */
import { inTransaction, scalarNumber } from './db.js';
import { checkSchema } from './ddl.js';
import { recordPruned, type PruneReason } from './pruned-snapshots.js';
import { deleteUnmappedRowSets, isShared, SNAPSHOT_ROW_SETS } from './row-sets.js';
import { TABLES, TRIAL_CONTENT, TRIAL_CONTENT_FILES } from './schema.js';
import { SNAPSHOT_INPUTS } from './snapshot-inputs.js';
import { deleteStaleSummaryMemos } from './summary-memo.js';
import { quoteIdent } from './sql.js';
import { DEFAULT_LOCK_TIMEOUT_MS, openWarehouseLocked } from './warehouse-lock.js';

export interface PruneOptions {
  org: string;
  workspace: string;
  /** Snapshot ids of the workspace to keep; every other snapshot of it is pruned. */
  keep: readonly string[];
  /** The run whose retention prunes, recorded for each pruned snapshot (pruned-snapshots.ts). */
  reason: PruneReason;
  now?: () => Date;
  lockTimeoutMs?: number;
  memoryLimit?: string;
}

export interface PruneResult {
  /** Snapshot ids whose rows were deleted, sorted. */
  snapshots: string[];
  /** Stored trial rows deleted (contents no kept snapshot holds). */
  trialRows: number;
}

/**
 * Tables holding rows of a snapshot by snapshot_id: the mappings of shared contents (trials, row sets)
 * and the tables of one row set a snapshot.
 */
const SNAPSHOT_TABLES = [
  ...TABLES.filter((t) => !isShared(t) && t.columns.some((c) => c.name === 'snapshot_id')),
  SNAPSHOT_ROW_SETS,
  SNAPSHOT_INPUTS,
];

const ORPHANS = `SELECT c.content_key FROM trial_content_files c
  WHERE NOT EXISTS (SELECT 1 FROM snapshot_trial_files f WHERE f.content_key = c.content_key)`;

/** Deletes the rows of the workspace's snapshots not in `keep` (see the module comment). */
export async function pruneWarehouse(dbPath: string, options: PruneOptions): Promise<PruneResult> {
  const warehouse = await openWarehouseLocked(dbPath, {
    timeoutMs: options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
    command: 'airt-report run (retention)',
    ...(options.memoryLimit ? { memoryLimit: options.memoryLimit } : {}),
  });
  const { conn } = warehouse;
  try {
    await checkSchema(conn, dbPath);
    const result = await inTransaction(conn, async () => {
      await conn.run('CREATE OR REPLACE TEMP TABLE prune_keep (snapshot_id VARCHAR)');
      const keep = await conn.prepare('INSERT INTO prune_keep VALUES ($1)');
      for (const id of options.keep) {
        keep.bind([id]);
        await keep.run();
      }
      await conn.run(
        `CREATE OR REPLACE TEMP TABLE prune_snapshots AS SELECT snapshot_id FROM snapshots
         WHERE org = $1 AND workspace = $2 AND snapshot_id NOT IN (SELECT snapshot_id FROM prune_keep)`,
        [options.org, options.workspace],
      );
      const reader = await conn.runAndReadAll('SELECT snapshot_id FROM prune_snapshots ORDER BY 1');
      const snapshots = reader.getRows().map(([id]) => String(id));
      if (snapshots.length === 0) return { snapshots, trialRows: 0 };
      await recordPruned(conn, options.reason, (options.now ?? (() => new Date()))());
      for (const table of SNAPSHOT_TABLES)
        await conn.run(
          `DELETE FROM ${quoteIdent(table.name)} WHERE snapshot_id IN (SELECT snapshot_id FROM prune_snapshots)`,
        );
      await deleteUnmappedRowSets(conn);
      await deleteStaleSummaryMemos(conn);
      await conn.run(`CREATE OR REPLACE TEMP TABLE prune_contents AS ${ORPHANS}`);
      const trialRows = await scalarNumber(
        conn,
        'SELECT coalesce(sum(trials), 0) FROM trial_content_files WHERE content_key IN (SELECT content_key FROM prune_contents)',
      );
      for (const table of [TRIAL_CONTENT, TRIAL_CONTENT_FILES])
        await conn.run(
          `DELETE FROM ${quoteIdent(table.name)} WHERE content_key IN (SELECT content_key FROM prune_contents)`,
        );
      return { snapshots, trialRows };
    });
    await conn.run('CHECKPOINT');
    return result;
  } finally {
    for (const table of ['prune_keep', 'prune_snapshots', 'prune_contents'])
      await conn.run(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
    warehouse.close();
  }
}
