/**
 * Which projects the gates cover, for a run's gate step and `airt-report gates` alike: every project
 * the snapshot lists (or the configured ones), those it holds no summary of included. On a partial
 * night a project whose summary request failed is unknown, not absent: left out, an unscoped gate
 * would pass as if the project did not exist. Such a project's gates are "unknown (no data)" (see
 * gates.ts), named as the newest snapshot holding its summary names it.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  namesProject,
  oneEntryPerProject,
  projectsInSnapshot,
  projectsKnownElsewhere,
  projectsWithoutSummary,
  type FailedRequestRef,
  type ProjectWithoutSummary,
} from '../warehouse/snapshot-lookup.js';
import type { ProjectWithoutData } from './gates.js';

export interface GateProjects {
  /** Keys of the projects in scope: the configured order, else key order. */
  projects: string[];
  /** Those of `projects` the snapshot lists without a summary, with why. */
  withoutData: ProjectWithoutData[];
  /** Configured projects (key or id) the snapshot does not list at all. */
  notListed: string[];
}

/** Resolves the gate scope of `snapshotId`: the `wanted` projects (key or id), or every one listed. */
export async function resolveGateProjects(
  conn: DuckDBConnection,
  snapshotId: string,
  wanted: readonly string[],
): Promise<GateProjects> {
  const held = await projectsInSnapshot(conn, snapshotId);
  const lacking = oneEntryPerProject(
    await projectsWithoutSummary(conn, snapshotId, wanted),
    await projectsKnownElsewhere(conn, snapshotId),
  );
  const withoutData = lacking.map((project) => withoutDataOf(project, snapshotId));
  if (wanted.length === 0) {
    const keys = [...held.map((p) => p.key), ...lacking.map((p) => p.key)];
    return { projects: keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), withoutData, notListed: [] };
  }
  const projects: string[] = [];
  const notListed: string[] = [];
  for (const keyOrId of wanted) {
    const named = (p: { key: string; id: string | null }): boolean => namesProject(p, keyOrId);
    const match = held.find(named) ?? lacking.find(named);
    // One project configured by key and by UUID is gated once.
    if (match) {
      if (!projects.includes(match.key)) projects.push(match.key);
    } else notListed.push(keyOrId);
  }
  return { projects, withoutData: withoutData.filter((p) => projects.includes(p.key)), notListed };
}

/** The project as its gates name it: why there is no data, and what failed. */
function withoutDataOf(project: ProjectWithoutSummary, snapshotId: string): ProjectWithoutData {
  const who = project.name === null ? `project ${project.key}` : `project "${project.name}" (${project.key})`;
  const failed =
    project.failed_requests.length === 0
      ? 'its summary request failed'
      : `${project.failed_requests.map(requestText).join(', ')} failed`;
  return {
    key: project.key,
    id: project.id,
    note:
      `${who} has no summary in snapshot ${snapshotId}: ${failed}. The snapshot says nothing of its ` +
      'assessments or findings, so its gates are unknown, not passed.',
  };
}

/** `GET /path (HTTP 500)`, as the diff words a failed request. */
function requestText(request: FailedRequestRef): string {
  return `${request.method} ${request.path} (${request.status === null ? 'no response' : `HTTP ${request.status}`})`;
}
