/**
 * Which snapshot and project a report reads: the project given by key or id, in the snapshot given
 * or else the newest snapshot holding its summary; and the provenance of the snapshots used.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { CliError, UsageError } from '../../errors.js';
import type { ProjectRef, SnapshotProvenance } from '../model.js';
import { isoTimestamp, placeholders, queryRows, str } from './query.js';

/** One project in one snapshot: the unit executive and compliance reports read. */
export interface ProjectScope {
  snapshotId: string;
  project: ProjectRef;
}

/** Resolves `--project` (key or id) and optional `--snapshot` to one project scope. */
export async function resolveProjectScope(
  conn: DuckDBConnection,
  project: string,
  snapshot: string | undefined,
): Promise<ProjectScope> {
  const rows = snapshot
    ? await queryRows(
        conn,
        `SELECT p.snapshot_id, p.project_id, p.project_key, p.project_name FROM projects p
         WHERE p.snapshot_id = $1 AND (p.project_key = $2 OR p.project_id = $2) AND p.manifest_status = 'ok'
         ORDER BY p.project_key`,
        [snapshot, project],
      )
    : await queryRows(
        conn,
        `SELECT p.snapshot_id, p.project_id, p.project_key, p.project_name
         FROM latest_project_snapshots l JOIN projects p ON p.snapshot_id = l.snapshot_id AND p.project_key = l.project_key
         WHERE (p.project_key = $1 OR p.project_id = $1)
         ORDER BY l.fetched_at DESC, p.snapshot_id DESC`,
        [project],
      );
  const row = rows[0];
  if (!row) {
    const known = await queryRows(
      conn,
      `SELECT DISTINCT project_key FROM projects WHERE manifest_status = 'ok'${snapshot ? ' AND snapshot_id = $1' : ''} ORDER BY project_key`,
      snapshot ? [snapshot] : [],
    );
    if (snapshot && known.length === 0) {
      throw new UsageError(`Snapshot ${snapshot} is not in the database, or holds no project summary.`);
    }
    const list = known.map((entry) => String(entry.project_key)).join(', ') || 'none';
    throw new UsageError(
      `Project ${JSON.stringify(project)} has no summary in ${snapshot ? `snapshot ${snapshot}` : 'the database'}. ` +
        `Projects with a summary: ${list}.`,
    );
  }
  return {
    snapshotId: String(row.snapshot_id),
    project: { id: str(row.project_id), key: String(row.project_key), name: str(row.project_name) },
  };
}

/** Every project with a summary: in `snapshot`, or in its newest snapshot (portfolio reports). */
export async function resolvePortfolioScopes(
  conn: DuckDBConnection,
  snapshot: string | undefined,
): Promise<ProjectScope[]> {
  const rows = snapshot
    ? await queryRows(
        conn,
        `SELECT snapshot_id, project_id, project_key, project_name FROM projects
         WHERE snapshot_id = $1 AND manifest_status = 'ok' ORDER BY project_key, project_id`,
        [snapshot],
      )
    : await queryRows(
        conn,
        `SELECT p.snapshot_id, p.project_id, p.project_key, p.project_name
         FROM latest_project_snapshots l JOIN projects p ON p.snapshot_id = l.snapshot_id AND p.project_key = l.project_key
         ORDER BY l.org, l.workspace, p.project_key, p.project_id`,
      );
  if (snapshot && rows.length === 0) {
    throw new UsageError(`Snapshot ${snapshot} is not in the database, or holds no project summary.`);
  }
  return rows.map((row) => ({
    snapshotId: String(row.snapshot_id),
    project: { id: str(row.project_id), key: String(row.project_key), name: str(row.project_name) },
  }));
}

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
            tool_version, api_version, app_version
     FROM snapshots WHERE snapshot_id IN (${placeholders(unique.length)}) ORDER BY fetched_at, snapshot_id`,
    unique,
  );
  if (rows.length !== unique.length)
    throw new CliError(`Snapshot rows are missing for ${unique.join(', ')}; reload the database.`);
  return rows.map((row) => ({
    snapshotId: String(row.snapshot_id),
    org: str(row.org),
    workspace: str(row.workspace),
    status: str(row.status),
    rootSha256: str(row.root_sha256),
    fetchedAt: str(row.fetched_at),
    snapshotToolVersion: str(row.tool_version),
    apiVersion: str(row.api_version),
    appVersion: str(row.app_version),
  }));
}
