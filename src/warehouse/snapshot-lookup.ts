/**
 * Lookups every layer above the warehouse needs: which snapshots and projects a database holds, the
 * previous snapshot of a workspace, analytics-warning exclusions, and a parameter-bound row reader.
 * The diff, the reports and the gates all read them from here (they were the diff's internals, which
 * made the pipeline and the reports import the diff for database helpers).
 */
import type { DuckDBConnection } from '@duckdb/node-api';

export interface SnapshotInfo {
  snapshot_id: string;
  org: string;
  workspace: string;
  status: string;
  fetched_at: string | null;
  root_sha256: string | null;
}

/** A project as the warehouse knows it: the key the snapshot used and its UUID when known. */
export interface ProjectRef {
  key: string;
  id: string | null;
  name: string | null;
}

/** An assessment slice left out because an analytics warning marks it erroneous. */
export interface SliceExclusion {
  assessment_id: string;
  field: string;
  reason: string;
}

export type SqlValue = string | number | boolean | null;
type JsRow = Record<string, unknown>;

/** Runs a query with bound parameters and returns plain rows (BIGINT as number, timestamps as ISO text). */
export async function queryRows(
  conn: DuckDBConnection,
  sql: string,
  params: SqlValue[] = [],
): Promise<JsRow[]> {
  const reader = await conn.runAndReadAll(sql, params);
  return reader.getRowObjectsJS().map((row) => {
    const plain: JsRow = {};
    for (const [key, value] of Object.entries(row)) plain[key] = toPlain(value);
    return plain;
  });
}

function toPlain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(toPlain);
  return value;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

export async function snapshotInfo(conn: DuckDBConnection, snapshotId: string): Promise<SnapshotInfo | null> {
  const rows = await queryRows(
    conn,
    `SELECT snapshot_id, org, workspace, status, strftime(fetched_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS fetched_at, root_sha256
     FROM snapshots WHERE snapshot_id = $1`,
    [snapshotId],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    snapshot_id: String(row.snapshot_id),
    org: String(row.org),
    workspace: String(row.workspace),
    status: String(row.status),
    fetched_at: text(row.fetched_at),
    root_sha256: text(row.root_sha256),
  };
}

/**
 * Which of `ids` were loaded although they failed verification (forced: snapshots.verified false),
 * sorted; nulls and unknown ids are left out.
 */
export async function unverifiedSnapshotIds(
  conn: DuckDBConnection,
  ids: readonly (string | null)[],
): Promise<string[]> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return [];
  const rows = await queryRows(
    conn,
    `SELECT snapshot_id FROM snapshots WHERE NOT verified AND snapshot_id IN (${wanted.map((_, i) => `$${i + 1}`).join(', ')})
     ORDER BY snapshot_id`,
    wanted,
  );
  return rows.map((row) => String(row.snapshot_id));
}

/** Whether the database holds snapshots of more than one (org, workspace). */
export async function holdsSeveralWorkspaces(conn: DuckDBConnection): Promise<boolean> {
  const rows = await queryRows(conn, 'SELECT count(DISTINCT (org, workspace)) AS n FROM snapshots');
  return (num(rows[0]?.n) ?? 0) > 1;
}

/** The newest snapshot of the same org and workspace loaded before `current` (by fetch time, then id). */
export async function previousSnapshotId(conn: DuckDBConnection, current: string): Promise<string | null> {
  const rows = await queryRows(
    conn,
    `SELECT p.snapshot_id FROM snapshots p JOIN snapshots c ON c.snapshot_id = $1
     WHERE p.org = c.org AND p.workspace = c.workspace AND p.snapshot_id <> c.snapshot_id
       AND (p.fetched_at < c.fetched_at OR (p.fetched_at = c.fetched_at AND p.snapshot_id < c.snapshot_id))
     ORDER BY p.fetched_at DESC, p.snapshot_id DESC LIMIT 1`,
    [current],
  );
  return text(rows[0]?.snapshot_id);
}

/** Projects whose summary the snapshot holds, by key. */
export async function projectsInSnapshot(conn: DuckDBConnection, snapshotId: string): Promise<ProjectRef[]> {
  const rows = await queryRows(
    conn,
    `SELECT project_key, project_id, project_name FROM projects
     WHERE snapshot_id = $1 AND manifest_status = 'ok' ORDER BY project_key, project_id`,
    [snapshotId],
  );
  return rows.map((row) => ({
    key: String(row.project_key ?? row.project_id),
    id: text(row.project_id),
    name: text(row.project_name),
  }));
}

/** Finds a project of the snapshot by key or UUID; null when the snapshot does not hold it. */
export async function findProject(
  conn: DuckDBConnection,
  snapshotId: string,
  keyOrId: string,
): Promise<ProjectRef | null> {
  const projects = await projectsInSnapshot(conn, snapshotId);
  return projects.find((project) => project.key === keyOrId || project.id === keyOrId) ?? null;
}

/** SQL condition matching a project-scoped table's rows of `project` ($2 = key, $3 = id). */
export const PROJECT_MATCH = '(project_key = $2 OR ($3::VARCHAR IS NOT NULL AND project_id = $3))';

/** The parameters $1-$3 that PROJECT_MATCH queries bind: snapshot id, project key, project id. */
export function projectParams(snapshotId: string, project: ProjectRef): SqlValue[] {
  return [snapshotId, project.key, project.id];
}

/** Analytics-warning exclusions of a project's assessments in one snapshot, for the given slices. */
export async function sliceExclusions(
  conn: DuckDBConnection,
  snapshotId: string,
  project: ProjectRef,
  slices: readonly string[],
): Promise<SliceExclusion[]> {
  if (slices.length === 0) return [];
  const placeholders = slices.map((_, index) => `$${index + 4}`).join(', ');
  const rows = await queryRows(
    conn,
    `SELECT assessment_id, slice, coalesce(reason, '') AS reason FROM analytics_warnings
     WHERE snapshot_id = $1 AND ${PROJECT_MATCH} AND slice IN (${placeholders})
     ORDER BY assessment_id, slice, ordinal`,
    [...projectParams(snapshotId, project), ...slices],
  );
  return rows.map((row) => ({
    assessment_id: String(row.assessment_id),
    field: String(row.slice),
    reason: String(row.reason),
  }));
}
