/**
 * Which snapshot and project a report reads (resolved in the metrics layer, project-scope.ts, shared
 * with the OSCAL export and the viewer), and the provenance of the snapshots used.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { CliError } from '../../errors.js';
import type { SnapshotProvenance, UnverifiedLoad } from '../model.js';
import { unverifiedFiles } from '../../warehouse/snapshot-lookup.js';
import { isoTimestamp, placeholders, queryRows, str } from './query.js';

export {
  resolvePortfolioScopes,
  resolveProjectScope,
  type ProjectScope,
  type WorkspaceFilter,
} from '../../metrics/project-scope.js';

/** Provenance of the given snapshots, oldest first. */
export async function snapshotProvenance(
  conn: DuckDBConnection,
  snapshotIds: readonly string[],
  /** The snapshots the figures come from (default: all of `snapshotIds`); the rest are a trend's. */
  figureSnapshotIds: readonly string[] = snapshotIds,
): Promise<SnapshotProvenance[]> {
  const figures = new Set(figureSnapshotIds);
  const unique = [...new Set([...snapshotIds, ...figureSnapshotIds])].sort();
  if (unique.length === 0) return [];
  const rows = await queryRows(
    conn,
    `SELECT snapshot_id, org, workspace, status, root_sha256, ${isoTimestamp('fetched_at')} AS fetched_at,
            tool_version, api_version, app_version, verified
     FROM snapshots WHERE snapshot_id IN (${placeholders(unique.length)}) ORDER BY fetched_at, snapshot_id`,
    unique,
  );
  if (rows.length !== unique.length)
    throw new CliError(`Snapshot rows are missing for ${unique.join(', ')}; reload the database.`);
  const unverified = await unverifiedLoads(
    conn,
    rows.filter((row) => row.verified === false).map((row) => String(row.snapshot_id)),
  );
  return rows.map((row) => {
    const load = unverified.get(String(row.snapshot_id));
    return {
      snapshotId: String(row.snapshot_id),
      org: str(row.org),
      workspace: str(row.workspace),
      status: str(row.status),
      rootSha256: str(row.root_sha256),
      fetchedAt: str(row.fetched_at),
      snapshotToolVersion: str(row.tool_version),
      apiVersion: str(row.api_version),
      appVersion: str(row.app_version),
      figures: figures.has(String(row.snapshot_id)),
      ...(load === undefined ? {} : { unverified: load }),
    };
  });
}

/** Each snapshot loaded unverified (forced) with the files that failed verification (snapshot-lookup.ts). */
async function unverifiedLoads(
  conn: DuckDBConnection,
  snapshotIds: readonly string[],
): Promise<Map<string, UnverifiedLoad>> {
  const files = await unverifiedFiles(conn, snapshotIds);
  return new Map([...files].map(([id, list]) => [id, { files: list }]));
}
