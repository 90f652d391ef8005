/**
 * Gates outside a run (`airt-report gates`): the configured gates evaluated on a snapshot already in
 * the warehouse, with the same code and metrics as the run's gate step, so CI can re-check a
 * database (or a snapshot loaded elsewhere) and get the gate report and its JUnit XML.
 *
 *   config gates ─▶ snapshot (given, or the workspace's newest) ─▶ previous (given, or the one a run
 *   of it compared with: gates-baseline.ts) ─▶ projects in scope (gate-scope.ts: those without a
 *   summary too) ─▶ evaluateGates (warehouse metrics)
 *   ─▶ gate report (naming the previous snapshot and why that one)
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { UsageError, wordsFlags } from '../errors.js';
import { withMetricReadsCached } from '../metrics/read-figures.js';
import { holdsSeveralWorkspaces, queryRows, snapshotInfo } from '../diff/warehouse-source.js';
import { buildGateReport, type GateReport } from './gate-report.js';
import { resolveGateProjects } from './gate-scope.js';
import { BASELINE_REASON, defaultGatesBaseline } from './gates-baseline.js';
import { evaluateGates, type GateToEvaluate } from './gates.js';
import { readExpiringAcceptances } from '../metrics/read-acceptances.js';
import { warehouseMetricProvider } from './warehouse-metrics.js';
import { prunedSnapshotMessage } from '../warehouse/pruned-snapshots.js';
import { unverifiedSnapshotIds } from '../warehouse/snapshot-lookup.js';

export interface CheckGatesOptions {
  gates: readonly GateToEvaluate[];
  onUnknown: 'trip' | 'warn';
  /** Project keys or ids in scope; empty: every project of the snapshot. */
  projects: readonly string[];
  org: string;
  workspace: string;
  /** Default: the newest snapshot of org/workspace in the database. */
  snapshotId?: string | undefined;
  /**
   * What new/regressed findings are counted against; default: the snapshot a run of it compared with
   * (the gated baseline, see gates-baseline.ts), never a partial one; null: none.
   */
  previousSnapshotId?: string | null | undefined;
  /** The DuckDB file the connection is open on: its baseline record sits beside it. */
  database: string;
}

export interface CheckGatesResult {
  report: GateReport;
  /** Configured projects the snapshot does not hold, and other things the user should know. */
  warnings: string[];
}

/** Evaluates the gates on an open warehouse connection (read-only is enough). */
export async function checkGates(
  conn: DuckDBConnection,
  options: CheckGatesOptions,
): Promise<CheckGatesResult> {
  const snapshotId = options.snapshotId ?? (await newestSnapshot(conn, options.org, options.workspace));
  const info = await snapshotInfo(conn, snapshotId);
  if (info === null)
    throw new UsageError(
      (await prunedSnapshotMessage(conn, snapshotId)) ??
        `Snapshot ${snapshotId} is not in the database; load it first.`,
    );
  if (info.org !== options.org || info.workspace !== options.workspace) {
    throw new UsageError(
      `Snapshot ${snapshotId} belongs to ${info.org}/${info.workspace}, not ${options.org}/${options.workspace} of the config.`,
    );
  }
  const baseline =
    options.previousSnapshotId === undefined
      ? await defaultGatesBaseline(conn, options.database, info)
      : {
          snapshotId: options.previousSnapshotId,
          reason: options.previousSnapshotId === null ? BASELINE_REASON.givenNone : BASELINE_REASON.given,
        };
  const previous = baseline.snapshotId;
  if (previous !== null) {
    const previousInfo = await snapshotInfo(conn, previous);
    if (previousInfo === null)
      throw new UsageError(
        (await prunedSnapshotMessage(conn, previous)) ?? `Snapshot ${previous} is not in the database.`,
      );
    if (previousInfo.org !== info.org || previousInfo.workspace !== info.workspace) {
      throw new UsageError(
        `Snapshot ${previous} belongs to another workspace than ${snapshotId}; gates never compare workspaces.`,
      );
    }
  }
  // Every project the snapshot lists, those whose summary it lacks (a partial night) included.
  const { projects, withoutData, notListed } = await resolveGateProjects(conn, snapshotId, options.projects);
  const warnings = notListed.map((wanted) => `project ${wanted} is not in snapshot ${snapshotId}`);
  // Gates on one project read the same figures: each metric query runs once.
  const results = await withMetricReadsCached(conn, () =>
    evaluateGates(options.gates, warehouseMetricProvider(conn), {
      snapshotId,
      previousSnapshotId: previous,
      projects,
      withoutData,
      onUnknown: options.onUnknown,
    }),
  );
  const withSummary = projects.filter((key) => !withoutData.some((p) => p.key === key));
  const several = await holdsSeveralWorkspaces(conn);
  const report = buildGateReport({
    snapshotId,
    previousSnapshotId: previous,
    previousSnapshotReason: baseline.reason,
    rootSha256: info.root_sha256,
    unverifiedSnapshots: await unverifiedSnapshotIds(conn, [snapshotId, previous]),
    workspace: several ? { org: info.org, workspace: info.workspace } : undefined,
    results,
    expiringAcceptances: await readExpiringAcceptances(conn, snapshotId, withSummary),
  });
  return { report, warnings };
}

async function newestSnapshot(conn: DuckDBConnection, org: string, workspace: string): Promise<string> {
  const rows = await queryRows(
    conn,
    `SELECT snapshot_id FROM snapshots WHERE org = $1 AND workspace = $2
     ORDER BY fetched_at DESC, snapshot_id DESC LIMIT 1`,
    [org, workspace],
  );
  const id = rows[0]?.snapshot_id;
  if (typeof id !== 'string') {
    throw new UsageError(
      (name) =>
        `The database holds no snapshot of ${org}/${workspace}; ` +
        (wordsFlags(name) ? 'run airt-report load first.' : 'load one into it first.'),
    );
  }
  return id;
}
