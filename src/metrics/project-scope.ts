/**
 * Which snapshot and project a request reads: the project given by key or id, in the snapshot given
 * or else the newest snapshot holding its summary, limited to an org/workspace when given. One
 * definition for every reader of a project's figures: reports, OSCAL exports and the viewer.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { InvalidOptionError, UsageError } from '../errors.js';
import { prunedSnapshotMessage } from '../warehouse/pruned-snapshots.js';
import { holdsSeveralWorkspaces } from '../warehouse/snapshot-lookup.js';
import { rows as queryRows } from './read-figures.js';

/** An org and workspace of the service: the scope a project key is unique in. */
export interface WorkspaceRef {
  org: string;
  workspace: string;
}

/** A project as reports name it. */
export interface ProjectRef {
  /** Project UUID when known. */
  id: string | null;
  /** The key the snapshot used (slug or UUID). */
  key: string;
  /** Human name from the service; attacker-controlled like any other text. */
  name: string | null;
  /**
   * The project's org and workspace, set when the database holds more than one (org, workspace):
   * project keys are unique only inside a workspace, so there the name alone is ambiguous. Absent in
   * a single-workspace database, where it would only be noise.
   */
  workspace?: WorkspaceRef;
}

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** One project in one snapshot: the unit executive and compliance reports read. */
export interface ProjectScope {
  snapshotId: string;
  project: ProjectRef;
}

/**
 * The org and/or workspace a request is limited to (`--org`, `--workspace`). Project keys are unique
 * only inside a workspace, so these choose among projects that share a key.
 */
export interface WorkspaceFilter {
  org?: string | undefined;
  workspace?: string | undefined;
}

/** SQL conditions (and their parameters, numbered from `first`) for a workspace filter on `alias`. */
function filterSql(alias: string, filter: WorkspaceFilter, first: number): { sql: string; params: string[] } {
  const parts: string[] = [];
  const params: string[] = [];
  for (const column of ['org', 'workspace'] as const) {
    const value = filter[column];
    if (value === undefined) continue;
    params.push(value);
    parts.push(` AND ${alias}.${column} = $${first + params.length - 1}`);
  }
  return { sql: parts.join(''), params };
}

function describeFilter(filter: WorkspaceFilter): string {
  const parts = [
    filter.org === undefined ? null : `org ${JSON.stringify(filter.org)}`,
    filter.workspace === undefined ? null : `workspace ${JSON.stringify(filter.workspace)}`,
  ].filter((part): part is string => part !== null);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

function projectRef(row: Record<string, unknown>, several: boolean): ProjectRef {
  const ref: ProjectRef = {
    id: str(row.project_id),
    key: String(row.project_key),
    name: str(row.project_name),
  };
  if (several) ref.workspace = { org: String(row.org), workspace: String(row.workspace) };
  return ref;
}

/**
 * Resolves `--project` (key or id), optional `--snapshot` and optional `--org`/`--workspace` to one
 * project scope. A key that several workspaces use is a usage error listing them: picking one
 * silently would report on a project the user may not have meant.
 */
export async function resolveProjectScope(
  conn: DuckDBConnection,
  project: string,
  snapshot: string | undefined,
  filter: WorkspaceFilter = {},
): Promise<ProjectScope> {
  const where = filterSql('s', filter, snapshot ? 3 : 2);
  const rows = snapshot
    ? await queryRows(
        conn,
        `SELECT p.snapshot_id, p.project_id, p.project_key, p.project_name, s.org, s.workspace
         FROM projects p JOIN snapshots s ON s.snapshot_id = p.snapshot_id
         WHERE p.snapshot_id = $1 AND (p.project_key = $2 OR p.project_id = $2) AND p.manifest_status = 'ok'${where.sql}
         ORDER BY p.project_key`,
        [snapshot, project, ...where.params],
      )
    : await queryRows(
        conn,
        `SELECT p.snapshot_id, p.project_id, p.project_key, p.project_name, s.org, s.workspace
         FROM latest_project_snapshots l JOIN projects p ON p.snapshot_id = l.snapshot_id AND p.project_key = l.project_key
         JOIN snapshots s ON s.snapshot_id = p.snapshot_id
         WHERE (p.project_key = $1 OR p.project_id = $1)${where.sql}
         ORDER BY l.fetched_at DESC, p.snapshot_id DESC`,
        [project, ...where.params],
      );
  const row = rows[0];
  if (!row) return noSuchProject(conn, project, snapshot, filter);
  const workspaces = new Map<string, string>();
  for (const candidate of rows) {
    const label = `${String(candidate.org)}/${String(candidate.workspace)}`;
    if (!workspaces.has(label)) workspaces.set(label, String(candidate.snapshot_id));
  }
  if (workspaces.size > 1) {
    const list = [...workspaces]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([label, snapshotId]) => `${JSON.stringify(label)} (snapshot ${snapshotId})`)
      .join(', ');
    throw new InvalidOptionError(
      'workspace',
      (name) =>
        `Project ${JSON.stringify(project)} is in ${workspaces.size} workspaces of the database: ${list}. ` +
        `Project keys are unique only inside a workspace; choose one with ${name('org')} and ${name('workspace')}.`,
    );
  }
  return {
    snapshotId: String(row.snapshot_id),
    project: projectRef(row, await holdsSeveralWorkspaces(conn)),
  };
}

/** The usage error for a project the request does not find, naming the projects it could have meant. */
async function noSuchProject(
  conn: DuckDBConnection,
  project: string,
  snapshot: string | undefined,
  filter: WorkspaceFilter,
): Promise<never> {
  const where = filterSql('s', filter, snapshot ? 2 : 1);
  const known = await queryRows(
    conn,
    `SELECT DISTINCT p.project_key FROM projects p JOIN snapshots s ON s.snapshot_id = p.snapshot_id
     WHERE p.manifest_status = 'ok'${snapshot ? ' AND p.snapshot_id = $1' : ''}${where.sql} ORDER BY p.project_key`,
    snapshot ? [snapshot, ...where.params] : where.params,
  );
  const scope = describeFilter(filter);
  if (snapshot && known.length === 0) {
    throw new UsageError(
      (await prunedSnapshotMessage(conn, snapshot)) ??
        `Snapshot ${snapshot} is not in the database${scope}, or holds no project summary.`,
    );
  }
  const list = known.map((entry) => String(entry.project_key)).join(', ') || 'none';
  throw new UsageError(
    `Project ${JSON.stringify(project)} has no summary in ${snapshot ? `snapshot ${snapshot}` : 'the database'}${scope}. ` +
      `Projects with a summary: ${list}.`,
  );
}

/**
 * Every project with a summary: in `snapshot`, or in its newest snapshot (portfolio reports), limited
 * to the filter's org/workspace when given.
 */
export async function resolvePortfolioScopes(
  conn: DuckDBConnection,
  snapshot: string | undefined,
  filter: WorkspaceFilter = {},
): Promise<ProjectScope[]> {
  const where = filterSql('s', filter, snapshot ? 2 : 1);
  const rows = snapshot
    ? await queryRows(
        conn,
        `SELECT p.snapshot_id, p.project_id, p.project_key, p.project_name, s.org, s.workspace
         FROM projects p JOIN snapshots s ON s.snapshot_id = p.snapshot_id
         WHERE p.snapshot_id = $1 AND p.manifest_status = 'ok'${where.sql} ORDER BY p.project_key, p.project_id`,
        [snapshot, ...where.params],
      )
    : await queryRows(
        conn,
        `SELECT p.snapshot_id, p.project_id, p.project_key, p.project_name, s.org, s.workspace
         FROM latest_project_snapshots l JOIN projects p ON p.snapshot_id = l.snapshot_id AND p.project_key = l.project_key
         JOIN snapshots s ON s.snapshot_id = p.snapshot_id
         WHERE true${where.sql}
         ORDER BY l.org, l.workspace, p.project_key, p.project_id`,
        where.params,
      );
  if (snapshot && rows.length === 0) {
    throw new UsageError(
      (await prunedSnapshotMessage(conn, snapshot)) ??
        `Snapshot ${snapshot} is not in the database${describeFilter(filter)}, or holds no project summary.`,
    );
  }
  if (rows.length === 0 && describeFilter(filter) !== '') {
    throw new UsageError(`The database holds no project summary${describeFilter(filter)}.`);
  }
  const several = await holdsSeveralWorkspaces(conn);
  return rows.map((row) => ({ snapshotId: String(row.snapshot_id), project: projectRef(row, several) }));
}
