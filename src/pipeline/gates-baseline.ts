/**
 * Which snapshot the gates compare with, and the one sentence the gate report gives as the reason.
 *
 * A run compares with the gated baseline (gated-baseline.ts): the snapshot of the last run whose every
 * step succeeded on a complete snapshot. `airt-report gates` without an explicit previous snapshot
 * picks the one a run of the snapshot compared with, never simply the one loaded before it: that can
 * be a partial snapshot no run compared with, and a re-check against it would count the findings it
 * holds as persisting and turn a failed `new_critical_findings <= 0` into a pass.
 *
 *   record (<database>.baseline.json) names a snapshot loaded before this one ─▶ that one (nothing
 *     after it was gated, so a run of this snapshot compared with it)
 *   record names this snapshot and what its run compared with ─▶ that one
 *   otherwise (no record, an older record, a snapshot older than the record) ─▶ the newest complete,
 *     verified snapshot of the workspace loaded before it; none ─▶ no snapshot
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { CliError } from '../errors.js';
import { queryRows, snapshotInfo, type SnapshotInfo } from '../warehouse/snapshot-lookup.js';
import { baselineInScope, gatedBaselinePath, readGatedBaseline } from './gated-baseline.js';

/** The snapshot the gates compare with (null: none, every open finding is new) and why that one. */
export interface GatesBaseline {
  snapshotId: string | null;
  reason: string;
}

/** The reasons a gate report gives for the snapshot it compared with; one wording for run and gates. */
export const BASELINE_REASON = {
  gated:
    'the gated baseline (the snapshot of the last run whose every step succeeded on a complete snapshot)',
  gatedWithIt:
    'the gated baseline its run compared with (recorded with it when that run became the baseline)',
  noGated: 'no run has become the gated baseline yet, so every open finding counts as new',
  unusable: (snapshotId: string, why: string): string =>
    `the recorded gated baseline ${snapshotId} ${why}, so every open finding counts as new`,
  newestComplete:
    'the newest complete, verified snapshot loaded before it (no baseline record says what a run of it compared with)',
  noComplete:
    'no complete, verified snapshot was loaded before it (no baseline record says what a run of it ' +
    'compared with), so every open finding counts as new',
  given: 'the snapshot asked for',
  givenNone: 'no snapshot, as asked, so every open finding counts as new',
} as const;

/**
 * The default baseline of `snapshot` for `airt-report gates` (see the diagram above). A baseline
 * record that cannot be read is an error, as it is for a run.
 */
export async function defaultGatesBaseline(
  conn: DuckDBConnection,
  database: string,
  snapshot: SnapshotInfo,
): Promise<GatesBaseline> {
  const { org, workspace } = snapshot;
  let recorded;
  try {
    recorded = await readGatedBaseline(database, org, workspace);
  } catch (error) {
    throw new CliError(`cannot read the baseline record: ${(error as Error).message}`);
  }
  if (recorded !== null && recorded.snapshot_id !== snapshot.snapshot_id) {
    const info = await snapshotInfo(conn, recorded.snapshot_id);
    const where = `(recorded in ${gatedBaselinePath(database)})`;
    // As a run would: a record naming a snapshot the database lacks, or another workspace's, is not used.
    if (info === null) {
      return {
        snapshotId: null,
        reason: BASELINE_REASON.unusable(recorded.snapshot_id, `${where} is not in the database`),
      };
    }
    if (!baselineInScope(info, org, workspace)) {
      return {
        snapshotId: null,
        reason: BASELINE_REASON.unusable(
          recorded.snapshot_id,
          `${where} belongs to ${info.org}/${info.workspace}`,
        ),
      };
    }
    if (await loadedBefore(conn, recorded.snapshot_id, snapshot.snapshot_id)) {
      return { snapshotId: recorded.snapshot_id, reason: BASELINE_REASON.gated };
    }
  }
  if (recorded?.snapshot_id === snapshot.snapshot_id && recorded.previous_snapshot_id !== undefined) {
    const previous = recorded.previous_snapshot_id;
    if (previous === null) return { snapshotId: null, reason: BASELINE_REASON.noGated };
    const info = await snapshotInfo(conn, previous);
    if (info !== null && baselineInScope(info, org, workspace)) {
      return { snapshotId: previous, reason: BASELINE_REASON.gatedWithIt };
    }
  }
  const newest = await newestCompleteBefore(conn, snapshot.snapshot_id);
  return newest === null
    ? { snapshotId: null, reason: BASELINE_REASON.noComplete }
    : { snapshotId: newest, reason: BASELINE_REASON.newestComplete };
}

/** Whether snapshot `a` was loaded before `b` (by fetch time, then id: the order of previousSnapshotId). */
async function loadedBefore(conn: DuckDBConnection, a: string, b: string): Promise<boolean> {
  const rows = await queryRows(
    conn,
    `SELECT (p.fetched_at < c.fetched_at OR (p.fetched_at = c.fetched_at AND p.snapshot_id < c.snapshot_id)) AS before
     FROM snapshots p, snapshots c WHERE p.snapshot_id = $1 AND c.snapshot_id = $2`,
    [a, b],
  );
  return rows[0]?.before === true;
}

/** The newest complete, verified snapshot of the same org and workspace loaded before `current`. */
async function newestCompleteBefore(conn: DuckDBConnection, current: string): Promise<string | null> {
  const rows = await queryRows(
    conn,
    `SELECT p.snapshot_id FROM snapshots p JOIN snapshots c ON c.snapshot_id = $1
     WHERE p.org = c.org AND p.workspace = c.workspace AND p.snapshot_id <> c.snapshot_id
       AND p.status = 'complete' AND p.verified IS TRUE
       AND (p.fetched_at < c.fetched_at OR (p.fetched_at = c.fetched_at AND p.snapshot_id < c.snapshot_id))
     ORDER BY p.fetched_at DESC, p.snapshot_id DESC LIMIT 1`,
    [current],
  );
  const id = rows[0]?.snapshot_id;
  return typeof id === 'string' ? id : null;
}
