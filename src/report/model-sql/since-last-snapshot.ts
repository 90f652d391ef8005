/**
 * Reads the executive report's "Since last snapshot" section from the warehouse: the newest earlier
 * snapshot of the same org and workspace that holds the project, then the diff between the two
 * (src/diff, which owns the SQL for findings, metrics and schema drift).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { diffSnapshots } from '../../diff/snapshot-diff.js';
import { findProject, previousSnapshotId } from '../../warehouse/snapshot-lookup.js';
import type { SinceLastSnapshot } from '../model.js';
import { sinceLastSnapshotSection } from '../since-last-snapshot.js';
import type { ProjectScope } from './scope.js';

/** How many earlier snapshots without the project are skipped before giving up (bounds the walk). */
const MAX_SNAPSHOTS_BACK = 1000;

/**
 * The section for one project in one snapshot, compared with `since` (null: no section) or by default
 * the newest earlier snapshot of the workspace that holds the project; null when there is none (the
 * first snapshot of it says nothing about changes).
 */
export async function readSinceLastSnapshot(
  conn: DuckDBConnection,
  scope: ProjectScope,
  since?: string | null,
): Promise<SinceLastSnapshot | null> {
  const previous = since === undefined ? await previousSnapshotOfProject(conn, scope) : since;
  if (previous === null) return null;
  const diff = await diffSnapshots(conn, {
    from: previous,
    to: scope.snapshotId,
    projects: [scope.project.key],
  });
  const project = diff.projects[0];
  if (diff.from === null || project === undefined) return null;
  return sinceLastSnapshotSection({
    previous: diff.from,
    current: diff.to,
    project,
    schemaDrift: diff.schema_drift,
  });
}

/** The newest snapshot before the scope's one (same org and workspace) that holds the project. */
async function previousSnapshotOfProject(
  conn: DuckDBConnection,
  scope: ProjectScope,
): Promise<string | null> {
  let current = scope.snapshotId;
  for (let step = 0; step < MAX_SNAPSHOTS_BACK; step += 1) {
    const previous = await previousSnapshotId(conn, current);
    if (previous === null) return null;
    if ((await findProject(conn, previous, scope.project.id ?? scope.project.key)) !== null) return previous;
    current = previous;
  }
  return null;
}
