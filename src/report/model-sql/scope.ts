/**
 * Which snapshot and project a report reads (resolved in the metrics layer, project-scope.ts, shared
 * with the OSCAL export and the viewer), and the provenance of the snapshots used.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { CliError } from '../../errors.js';
import type { SnapshotProvenance, UnverifiedLoad } from '../model.js';
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
): Promise<SnapshotProvenance[]> {
  const unique = [...new Set(snapshotIds)].sort();
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
      ...(load === undefined ? {} : { unverified: load }),
    };
  });
}

/**
 * The files that failed verification, per snapshot loaded unverified (forced): the loader records each
 * as a `verify_failed` load warning (load-checks.ts). A snapshot with none recorded still gets an entry.
 */
async function unverifiedLoads(
  conn: DuckDBConnection,
  snapshotIds: readonly string[],
): Promise<Map<string, UnverifiedLoad>> {
  const loads = new Map<string, UnverifiedLoad>(snapshotIds.map((id) => [id, { files: [] }]));
  if (snapshotIds.length === 0) return loads;
  const rows = await queryRows(
    conn,
    `SELECT DISTINCT snapshot_id, file FROM load_warnings
     WHERE code = 'verify_failed' AND file IS NOT NULL AND snapshot_id IN (${placeholders(snapshotIds.length)})
     ORDER BY snapshot_id, file`,
    snapshotIds,
  );
  for (const row of rows) loads.get(String(row.snapshot_id))?.files.push(String(row.file));
  return loads;
}
