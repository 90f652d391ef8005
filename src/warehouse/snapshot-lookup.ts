/**
 * Lookups every layer above the warehouse needs: which snapshots and projects a database holds (and
 * which projects a partial snapshot lacks), the previous snapshot of a workspace, analytics-warning
 * exclusions (and which keys the excluded assessments could have held) and attack runs of unknown
 * score, and a parameter-bound row reader.
 * The diff, the reports and the gates all read them from here (they were the diff's internals, which
 * made the pipeline and the reports import the diff for database helpers).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent } from './sql.js';

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

/**
 * An assessment slice left out because an analytics warning marks it erroneous; or (field
 * UNKNOWN_SCORE_FIELD) an assessment whose attack runs lack their required best_score: those
 * findings' severity is unknown, so no count by severity (nor of new or regressed findings) holds them.
 */
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

/**
 * The files that failed verification, per snapshot of `snapshotIds` (those loaded unverified, forced):
 * the loader records each as a `verify_failed` load warning (load-checks.ts). Every id gets an entry,
 * empty when none was recorded; files sorted. The one reader of the reports' warning and the OSCAL
 * export's.
 */
export async function unverifiedFiles(
  conn: DuckDBConnection,
  snapshotIds: readonly string[],
): Promise<Map<string, string[]>> {
  const files = new Map<string, string[]>(snapshotIds.map((id) => [id, []]));
  if (snapshotIds.length === 0) return files;
  const rows = await queryRows(
    conn,
    `SELECT DISTINCT snapshot_id, file FROM load_warnings
     WHERE code = 'verify_failed' AND file IS NOT NULL AND snapshot_id IN (${snapshotIds.map((_, i) => `$${i + 1}`).join(', ')})
     ORDER BY snapshot_id, file`,
    [...snapshotIds],
  );
  for (const row of rows) files.get(String(row.snapshot_id))?.push(String(row.file));
  return files;
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
  return projects.find((project) => namesProject(project, keyOrId)) ?? null;
}

/** SQL condition matching a project-scoped table's rows of `project` ($2 = key, $3 = id). */
export const PROJECT_MATCH = '(project_key = $2 OR ($3::VARCHAR IS NOT NULL AND project_id = $3))';

/** The parameters $1-$3 that PROJECT_MATCH queries bind: snapshot id, project key, project id. */
export function projectParams(snapshotId: string, project: ProjectRef): SqlValue[] {
  return [snapshotId, project.key, project.id];
}

/** The field of a SliceExclusion that stands for attack runs whose score is unknown. */
export const UNKNOWN_SCORE_FIELD = 'best_score';

/**
 * Analytics-warning exclusions of a project's assessments in one snapshot, for the given slices. When
 * `attack_runs` is among them, also each analyzed assessment (metric_findings) with attack runs whose
 * score is unknown (field UNKNOWN_SCORE_FIELD): their severity is unknown, so a count of findings by
 * severity, or of new and regressed ones, leaves them out and must say so.
 */
export async function sliceExclusions(
  conn: DuckDBConnection,
  snapshotId: string,
  project: ProjectRef,
  slices: readonly string[],
): Promise<SliceExclusion[]> {
  if (slices.length === 0) return [];
  const placeholders = slices.map((_, index) => `$${index + 4}`).join(', ');
  const unscored = slices.includes('attack_runs')
    ? `UNION ALL
       SELECT assessment_id, '${UNKNOWN_SCORE_FIELD}', count(*) || CASE WHEN count(*) = 1
                THEN ' attack run lacks its required best_score: its severity is unknown'
                ELSE ' attack runs lack their required best_score: their severity is unknown' END, 0
       FROM metric_findings WHERE snapshot_id = $1 AND ${PROJECT_MATCH} AND score_unknown
       GROUP BY assessment_id`
    : '';
  const rows = await queryRows(
    conn,
    `SELECT assessment_id, slice, reason FROM (
       SELECT assessment_id, slice, coalesce(reason, '') AS reason, ordinal FROM analytics_warnings
       WHERE snapshot_id = $1 AND ${PROJECT_MATCH} AND slice IN (${placeholders})
       ${unscored}
     ) ORDER BY assessment_id, slice, ordinal`,
    [...projectParams(snapshotId, project), ...slices],
  );
  return rows.map((row) => ({
    assessment_id: String(row.assessment_id),
    field: String(row.slice),
    reason: String(row.reason),
  }));
}

/**
 * The attack-run column that keys a slice, for the slices whose keys an assessment's own attack runs
 * tell: an asr_by_category entry pools the assessment's runs of one goal category, so the
 * assessment can have entries only for categories its runs carry. compliance_matrix is not here: an
 * assessment's matrix lists frameworks and tags no run of it is tagged with (its untested cells).
 */
const RUN_KEY_OF_SLICE: Readonly<Record<string, string>> = { asr_by_category: 'goal_category' };

/**
 * For each of `slices` of which an analytics warning excluded assessments of the project in the
 * snapshot, the keys those assessments could have held there, from what the warehouse still has of
 * them: the values of the slice's key column (RUN_KEY_OF_SLICE) over their attack runs. Sorted; null
 * when the warehouse cannot tell, so that any key could be hidden: a slice not keyed by a run column,
 * or an excluded assessment with no attack runs loaded (its attack_runs slice excluded too, or none
 * sent) or with a run lacking the key. A slice without exclusions is absent. The diff reads a key
 * missing on that side but outside the list as missing for want of testing (added or removed), not
 * as unknown.
 */
export async function excludedSliceKeys(
  conn: DuckDBConnection,
  snapshotId: string,
  project: ProjectRef,
  slices: readonly string[],
): Promise<Record<string, string[] | null>> {
  const keys: Record<string, string[] | null> = {};
  for (const slice of slices) {
    const column = RUN_KEY_OF_SLICE[slice];
    const key = column === undefined ? 'NULL::VARCHAR' : `r.${quoteIdent(column)}`;
    const rows = await queryRows(
      conn,
      `SELECT w.assessment_id, count(r.assessment_id) AS runs, count(${key}) AS keyed,
              coalesce(list(DISTINCT ${key} ORDER BY ${key}) FILTER (WHERE ${key} IS NOT NULL), []::VARCHAR[]) AS keys
       FROM (SELECT DISTINCT project_key, assessment_id FROM analytics_warnings
             WHERE snapshot_id = $1 AND ${PROJECT_MATCH} AND slice = $4) w
       LEFT JOIN attack_runs r
         ON r.snapshot_id = $1 AND r.project_key = w.project_key AND r.assessment_id = w.assessment_id
       GROUP BY w.assessment_id ORDER BY w.assessment_id`,
      [...projectParams(snapshotId, project), slice],
    );
    if (rows.length === 0) continue;
    const told =
      column !== undefined && rows.every((row) => (num(row.runs) ?? 0) > 0 && row.keyed === row.runs);
    keys[slice] = told
      ? [...new Set(rows.flatMap((row) => (row.keys as unknown[]).map(String)))].sort()
      : null;
  }
  return keys;
}

/** A request of a snapshot that failed for good (its manifest's failed_requests entry). */
export interface FailedRequestRef {
  method: string;
  path: string;
  /** HTTP status, null when no response came (a network error or timeout). */
  status: number | null;
  error: string;
}

/**
 * A project a partial snapshot lists but holds no summary of, because the request for it failed: the
 * snapshot says nothing about its assessments or findings (unknown, not none).
 */
export interface ProjectWithoutSummary extends ProjectRef {
  /** The snapshot's failed requests for this project. */
  failed_requests: FailedRequestRef[];
}

/**
 * Projects of a snapshot whose summary request failed (manifest status `failed`), by key; not one whose
 * summary the snapshot holds under another key (a project is listed by its slug and, found in
 * evaluation jobs, by its UUID: one request may fail and the other not). Also those of `configured`
 * (keys or ids a run or gate names) the service answered 404 for (`not_found`): asked for by name,
 * their figures are unknown too, never left out. An unconfigured one (an evaluation job naming a
 * deleted project) is not: the service says it does not exist.
 */
export async function projectsWithoutSummary(
  conn: DuckDBConnection,
  snapshotId: string,
  configured: readonly string[] = [],
): Promise<ProjectWithoutSummary[]> {
  const named = new Set(configured);
  const rows = (
    await queryRows(
      conn,
      `SELECT p.project_key, p.project_id, p.requested_key, p.manifest_status,
              s.failed_requests::VARCHAR AS failed_requests
     FROM projects p JOIN snapshots s ON s.snapshot_id = p.snapshot_id
     WHERE p.snapshot_id = $1 AND p.manifest_status IN ('failed', 'not_found')
       AND NOT EXISTS (SELECT 1 FROM projects o WHERE o.snapshot_id = p.snapshot_id AND o.manifest_status = 'ok'
                       AND (o.project_key = p.project_key OR o.project_id = p.project_id
                            OR o.requested_key = p.requested_key))
     ORDER BY p.project_key, p.project_id`,
      [snapshotId],
    )
  ).filter(
    (row) =>
      row.manifest_status === 'failed' ||
      [row.project_key, row.project_id, row.requested_key].some((n) => typeof n === 'string' && named.has(n)),
  );
  return rows.map((row) => {
    const names = new Set([row.project_key, row.project_id, row.requested_key].filter((n) => n !== null));
    return {
      key: String(row.project_key ?? row.project_id),
      id: text(row.project_id),
      name: null,
      failed_requests: failedRequests(row.failed_requests)
        .filter((request) => request.project !== undefined && names.has(request.project))
        .map(({ method, path, status, error }) => ({ method, path, status, error })),
    };
  });
}

/** Whether `keyOrId` (a `--project`, a configured project) is `project`'s key or UUID. */
export function namesProject(project: Pick<ProjectRef, 'key' | 'id'>, keyOrId: string): boolean {
  return project.key === keyOrId || project.id === keyOrId;
}

/** Whether two references name one project: the same id, else the same key. */
export function isSameProject(a: ProjectRef, b: ProjectRef): boolean {
  return (a.id !== null && a.id === b.id) || a.key === b.key;
}

/**
 * One entry per project a snapshot lacks, named and identified as `known` knows it (the first match:
 * the diff's other snapshot, the gates' newest snapshot with its summary): a snapshot asks for a
 * project by its key and, found in evaluation jobs, by its UUID, so one project can fail twice, under
 * two names. Their failed requests are merged. Sorted by key.
 */
export function oneEntryPerProject(
  lacking: readonly ProjectWithoutSummary[],
  known: readonly ProjectRef[],
): ProjectWithoutSummary[] {
  const merged: ProjectWithoutSummary[] = [];
  for (const entry of lacking) {
    const other = known.find((p) => isSameProject(p, entry));
    const named: ProjectWithoutSummary = other
      ? { ...other, failed_requests: entry.failed_requests }
      : { ...entry, failed_requests: [...entry.failed_requests] };
    const same = merged.find((m) => isSameProject(m, named));
    if (same) same.failed_requests.push(...named.failed_requests);
    else merged.push({ ...named, failed_requests: [...named.failed_requests] });
  }
  return merged.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * The projects other snapshots of `snapshotId`'s org and workspace hold a summary of, newest snapshot
 * first: what is known of a project this snapshot lacks (its name, its UUID).
 */
export async function projectsKnownElsewhere(
  conn: DuckDBConnection,
  snapshotId: string,
): Promise<ProjectRef[]> {
  const rows = await queryRows(
    conn,
    `SELECT p.project_key, p.project_id, p.project_name
     FROM projects p JOIN snapshots s ON s.snapshot_id = p.snapshot_id
     JOIN snapshots c ON c.snapshot_id = $1 AND c.org = s.org AND c.workspace = s.workspace
     WHERE p.snapshot_id <> $1 AND p.manifest_status = 'ok'
     ORDER BY s.fetched_at DESC, s.snapshot_id DESC, p.project_key, p.project_id`,
    [snapshotId],
  );
  return rows.map((row) => ({
    key: String(row.project_key ?? row.project_id),
    id: text(row.project_id),
    name: text(row.project_name),
  }));
}

/** The failed_requests JSON of a snapshots row, each with the project it names (if any). */
function failedRequests(json: unknown): (FailedRequestRef & { project?: string })[] {
  let parsed: unknown;
  try {
    parsed = typeof json === 'string' ? JSON.parse(json) : null;
  } catch {
    parsed = null;
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.map((entry: Record<string, unknown>) => ({
    method: text(entry.method) ?? '?',
    path: text(entry.path) ?? '?',
    status: num(entry.status),
    error: text(entry.error) ?? 'unknown error',
    ...(typeof entry.project === 'string' ? { project: entry.project } : {}),
  }));
}

/** Every request of a snapshot that failed for good, in its manifest's order. */
export async function partialSnapshotFailures(
  conn: DuckDBConnection,
  snapshotId: string,
): Promise<FailedRequestRef[]> {
  const rows = await queryRows(
    conn,
    'SELECT failed_requests::VARCHAR AS failed_requests FROM snapshots WHERE snapshot_id = $1',
    [snapshotId],
  );
  return failedRequests(rows[0]?.failed_requests).map(({ method, path, status, error }) => ({
    method,
    path,
    status,
    error,
  }));
}
