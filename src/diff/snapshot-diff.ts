/**
 * The diff between two loaded snapshots of a workspace, read from the warehouse:
 *
 *   for each project in scope: findings(from) × findings(to) → lifecycle   (finding-lifecycle.ts)
 *                              metrics(from)  × metrics(to)  → deltas      (metric-deltas.ts)
 *   manifests' schema drift(from) × (to)                     → drift diff  (schema-drift-diff.ts)
 *
 * Findings of assessments whose attack runs an analytics warning excluded (in either snapshot) are
 * unknown, not gone: they are left out of both sides and listed, so nothing is reported as resolved
 * just because its data was unusable. Likewise a category or framework missing on a side where an
 * assessment excluded from its source slice could have held it is unknown there, not added or
 * removed (metric-deltas.ts; one that no excluded assessment ran is added or removed), and a finding
 * whose score is missing on a side is not comparable (finding-lifecycle.ts). Every such exclusion,
 * per snapshot, is in the project's `data_quality` notes.
 *
 * A partial snapshot may lack a project's summary (its request failed). Such a project is listed, not
 * compared (`compared: false`): its findings are neither resolved nor new, and its `data_quality`
 * names the snapshot and the failed request; the diff's `partial_snapshots` lists every failed request
 * of either snapshot.
 *
 * A project the earlier snapshot holds and the later one does not list at all (the service no longer
 * lists it, or the snapshot was not asked for it) is listed too, after the later snapshot's projects
 * (`in_current: false`, not compared): its tracked findings are `no_longer_reported`, never resolved,
 * since nothing says they were fixed; dropping it would make them vanish from the diff unseen.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { wordsFlags, CliError, InvalidOptionError, UsageError, WordedError } from '../errors.js';
import { readExpiringAcceptances } from '../metrics/read-acceptances.js';
import { diffFindings, type FindingLifecycle } from './finding-lifecycle.js';
import { METRIC_SLICES, metricDeltas } from './metric-deltas.js';
import { diffSchemaDrift } from './schema-drift-diff.js';
import {
  isSameProject,
  namesProject,
  oneEntryPerProject,
  partialSnapshotFailures,
  projectsWithoutSummary,
  UNKNOWN_SCORE_FIELD,
  unverifiedSnapshotIds,
  type ProjectWithoutSummary,
} from '../warehouse/snapshot-lookup.js';
import { prunedSnapshotMessage } from '../warehouse/pruned-snapshots.js';
import {
  DIFF_FORMAT,
  exclusionNotes,
  notComparedProject,
  projectDiff,
  removedProject,
  type DiffSnapshotRef,
  type PartialSnapshot,
  type ProjectDiff,
  type SnapshotDiff,
} from './diff-report.js';
import {
  excludedSliceKeys,
  findProject,
  holdsSeveralWorkspaces,
  projectsInSnapshot,
  readFindingRecords,
  readProjectMetrics,
  readSchemaDrift,
  sliceExclusions,
  snapshotInfo,
  type ProjectRef,
  type SnapshotInfo,
  type SliceExclusion,
} from './warehouse-source.js';

/** The slices the diff compares: attack runs (findings) and those behind the metrics. */
const DIFF_SLICES: readonly string[] = ['attack_runs', ...METRIC_SLICES];

export interface DiffSnapshotsOptions {
  /** The earlier snapshot; null diffs against nothing (every open finding is new). */
  from: string | null;
  to: string;
  /**
   * Project keys or ids; empty: every project of the `to` snapshot (those it lists without a summary
   * too) and every project of the `from` snapshot that `to` no longer lists.
   */
  projects?: readonly string[];
  /** When given, both snapshots must belong to this org (`--org`); a mismatch is a usage error. */
  org?: string | undefined;
  /** When given, both snapshots must belong to this workspace (`--workspace`). */
  workspace?: string | undefined;
}

/** Computes the diff; throws CliError naming a snapshot or project the database does not hold. */
export async function diffSnapshots(
  conn: DuckDBConnection,
  options: DiffSnapshotsOptions,
): Promise<SnapshotDiff> {
  const to = await requireSnapshot(conn, options.to);
  const from = options.from === null ? null : await requireSnapshot(conn, options.from);
  requireOneWorkspace(to, from, options);
  // Projects a partial snapshot lists without a summary (its request failed): unknown, never gone;
  // named as the other snapshot names them.
  const inTo = await projectsInSnapshot(conn, to.snapshot_id);
  const inFrom = from === null ? [] : await projectsInSnapshot(conn, from.snapshot_id);
  // A project asked for by name (--project, a run's config) that the service answered 404 for is one.
  const wanted = options.projects ?? [];
  const lackingTo = oneEntryPerProject(await projectsWithoutSummary(conn, to.snapshot_id, wanted), inFrom);
  const lackingFrom =
    from === null
      ? []
      : oneEntryPerProject(await projectsWithoutSummary(conn, from.snapshot_id, wanted), inTo);
  // Projects of the earlier snapshot the later one does not list at all, neither held nor failed.
  const removed = inFrom.filter(
    (project) =>
      !inTo.some((p) => isSameProject(p, project)) && sameProject(project, lackingTo) === undefined,
  );
  const scope = projectsInScope(
    to.snapshot_id,
    { held: inTo, lacking: lackingTo, removed },
    options.projects ?? [],
  );
  const diffs: ProjectDiff[] = [];
  const projects: ProjectRef[] = [];
  for (const { project, kind } of scope) {
    if (kind === 'removed' && from !== null) {
      diffs.push(await removedProjectDiff(conn, from.snapshot_id, to.snapshot_id, project));
      continue;
    }
    const previous =
      from === null ? null : await findProject(conn, from.snapshot_id, project.id ?? project.key);
    if (kind === 'lacking') {
      diffs.push(
        notComparedProject(project.key, {
          in_previous: from === null ? null : previous !== null,
          note: {
            snapshot_id: to.snapshot_id,
            side: 'to',
            kind: 'summary_missing',
            failed_requests: project.failed_requests,
          },
        }),
      );
      continue;
    }
    projects.push(project);
    const lackingBefore = previous === null ? sameProject(project, lackingFrom) : undefined;
    if (from !== null && lackingBefore !== undefined) {
      diffs.push(
        notComparedProject(project.key, {
          in_previous: false,
          note: {
            snapshot_id: from.snapshot_id,
            side: 'from',
            kind: 'summary_missing',
            failed_requests: lackingBefore.failed_requests,
          },
        }),
      );
      continue;
    }
    const { lifecycle, excluded } = await projectLifecycle(
      conn,
      from?.snapshot_id ?? null,
      to.snapshot_id,
      project,
    );
    const earlier = from !== null && previous !== null ? { id: from.snapshot_id, project: previous } : null;
    // The same analytics_warnings rows the gates and reports use, for every slice the diff compares.
    const fromExcluded =
      earlier === null ? [] : await sliceExclusions(conn, earlier.id, earlier.project, DIFF_SLICES);
    const toExcluded = await sliceExclusions(conn, to.snapshot_id, project, DIFF_SLICES);
    // Which keys those exclusions could hide (their assessments' attack runs): a category none of
    // them ran is added or removed, not unknown.
    const metrics = metricDeltas(
      earlier === null ? null : await readProjectMetrics(conn, earlier.id, earlier.project),
      await readProjectMetrics(conn, to.snapshot_id, project),
      {
        from: fromExcluded.map((e) => e.field),
        to: toExcluded.map((e) => e.field),
        keys: {
          from:
            earlier === null ? {} : await excludedSliceKeys(conn, earlier.id, earlier.project, METRIC_SLICES),
          to: await excludedSliceKeys(conn, to.snapshot_id, project, METRIC_SLICES),
        },
      },
    );
    diffs.push(
      projectDiff(project.key, lifecycle, metrics, {
        in_previous: from === null ? null : previous !== null,
        // Findings of unknown score are in the not-comparable list, not out of every list.
        excluded: excluded.filter((e) => e.field !== UNKNOWN_SCORE_FIELD),
        data_quality: [
          ...(earlier === null ? [] : exclusionNotes(earlier.id, fromExcluded)),
          ...exclusionNotes(to.snapshot_id, toExcluded),
        ],
      }),
    );
  }
  // Acceptances of the later snapshot ending soon: once over, their findings show up here as reopened.
  const expiring = await readExpiringAcceptances(
    conn,
    to.snapshot_id,
    projects.map((p) => p.key),
  );
  const unverified = await unverifiedSnapshotIds(conn, [from?.snapshot_id ?? null, to.snapshot_id]);
  const partial: PartialSnapshot[] = [];
  for (const [side, info] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (info === null || info.status !== 'partial') continue;
    const lacking = side === 'to' ? lackingTo : lackingFrom;
    partial.push({
      snapshot_id: info.snapshot_id,
      side,
      projects_without_summary: lacking.map((p) => p.key),
      failed_requests: await partialSnapshotFailures(conn, info.snapshot_id),
    });
  }
  return {
    format: DIFF_FORMAT,
    from: from === null ? null : ref(from),
    to: ref(to),
    ...((await holdsSeveralWorkspaces(conn)) ? { workspace: { org: to.org, workspace: to.workspace } } : {}),
    projects: diffs,
    schema_drift: diffSchemaDrift(
      from === null ? null : await readSchemaDrift(conn, from.snapshot_id),
      await readSchemaDrift(conn, to.snapshot_id),
    ),
    ...(expiring.length === 0 ? {} : { expiring_acceptances: expiring }),
    ...(unverified.length === 0 ? {} : { unverified_snapshots: unverified }),
    ...(partial.length === 0 ? {} : { partial_snapshots: partial }),
  };
}

/** The project of `lacking` that is `project`, if any. */
function sameProject(
  project: ProjectRef,
  lacking: readonly ProjectWithoutSummary[],
): ProjectWithoutSummary | undefined {
  return lacking.find((p) => isSameProject(project, p));
}

/**
 * The finding lifecycle of one project between two snapshots, and what its counts leave out: the
 * assessments an analytics warning excluded (all their findings, in no list) and those with runs of
 * unknown score (field UNKNOWN_SCORE_FIELD: those findings are in `not_comparable`), so a gate built
 * on the counts says what they do not hold.
 */
export async function projectLifecycle(
  conn: DuckDBConnection,
  fromId: string | null,
  toId: string,
  project: ProjectRef,
): Promise<{ lifecycle: FindingLifecycle; previous: ProjectRef | null; excluded: SliceExclusion[] }> {
  const previous = fromId === null ? null : await findProject(conn, fromId, project.id ?? project.key);
  const after = await readFindingRecords(conn, toId, project);
  const before =
    fromId !== null && previous !== null
      ? await readFindingRecords(conn, fromId, previous)
      : { findings: [], excluded: [] as SliceExclusion[] };
  // An analytics warning makes every finding of the assessment unknown; an unknown score only the
  // run's own, which the lifecycle lists as not comparable.
  const unusable = new Set(
    [...after.excluded, ...before.excluded]
      .filter((e) => e.field !== UNKNOWN_SCORE_FIELD)
      .map((e) => e.assessment_id),
  );
  const keep = <T extends { assessment_id: string }>(list: T[]): T[] =>
    list.filter((f) => !unusable.has(f.assessment_id));
  return {
    lifecycle: diffFindings(keep(before.findings), keep(after.findings)),
    previous,
    excluded: [...before.excluded, ...after.excluded],
  };
}

/**
 * Project keys are unique only inside a workspace: matched across workspaces, every finding of one
 * would be "new" against the other. So a diff compares snapshots of one org and workspace, the one
 * `--org`/`--workspace` name when given.
 */
function requireOneWorkspace(
  to: SnapshotInfo,
  from: SnapshotInfo | null,
  options: DiffSnapshotsOptions,
): void {
  const label = (info: SnapshotInfo): string => JSON.stringify(`${info.org}/${info.workspace}`);
  if (from !== null && (from.org !== to.org || from.workspace !== to.workspace)) {
    throw new UsageError(
      `Snapshots ${from.snapshot_id} (${label(from)}) and ${to.snapshot_id} (${label(to)}) belong to different ` +
        'workspaces; a diff compares two snapshots of one org and workspace (project keys are unique only inside one).',
    );
  }
  for (const info of from === null ? [to] : [from, to]) {
    if (
      (options.org !== undefined && info.org !== options.org) ||
      (options.workspace !== undefined && info.workspace !== options.workspace)
    ) {
      const wanted = `${options.org ?? info.org}/${options.workspace ?? info.workspace}`;
      throw new InvalidOptionError(
        'workspace',
        (name) =>
          `Snapshot ${info.snapshot_id} belongs to ${label(info)}, not ${JSON.stringify(wanted)} (${name('org')}/${name('workspace')}).`,
      );
    }
  }
}

async function requireSnapshot(conn: DuckDBConnection, id: string): Promise<SnapshotInfo> {
  const info = await snapshotInfo(conn, id);
  if (!info) {
    const pruned = await prunedSnapshotMessage(conn, id);
    if (pruned !== null) throw new CliError(pruned);
    throw new WordedError((name) =>
      wordsFlags(name)
        ? `Snapshot ${id} is not in the database; load it first (airt-report load SNAPSHOT_DIR ${name('db')} FILE).`
        : `Snapshot ${id} is not in the database; load it first.`,
    );
  }
  return info;
}

/** A project the diff covers: held by `to`, listed by it without a summary, or held only by `from`. */
type ScopedProject =
  | { kind: 'held'; project: ProjectRef }
  | { kind: 'lacking'; project: ProjectWithoutSummary }
  | { kind: 'removed'; project: ProjectRef };

const byKey = (a: ScopedProject, b: ScopedProject): number =>
  a.project.key < b.project.key ? -1 : a.project.key > b.project.key ? 1 : 0;

/**
 * The projects the diff covers: those `wanted` (key or id), else every project of the `to` snapshot
 * (`held`), including those it lists without a summary (`lacking`: its request failed), by key; then
 * those only the `from` snapshot holds (`removed`), by key.
 */
function projectsInScope(
  snapshotId: string,
  known: {
    held: readonly ProjectRef[];
    lacking: readonly ProjectWithoutSummary[];
    removed: readonly ProjectRef[];
  },
  wanted: readonly string[],
): ScopedProject[] {
  const held = known.held.map((project): ScopedProject => ({ kind: 'held', project }));
  const lacking = known.lacking.map((project): ScopedProject => ({ kind: 'lacking', project }));
  const removed = known.removed.map((project): ScopedProject => ({ kind: 'removed', project }));
  if (wanted.length === 0) {
    const current = lacking.length === 0 ? held : [...held, ...lacking].sort(byKey);
    return [...current, ...removed.sort(byKey)];
  }
  return wanted.map((keyOrId) => {
    const named = (entry: ScopedProject): boolean => namesProject(entry.project, keyOrId);
    const found = held.find(named) ?? lacking.find(named) ?? removed.find(named);
    if (found) return found;
    // Every key --project takes: held, listed without a summary, and the earlier snapshot's only.
    const keys = (list: readonly ProjectRef[]): string => list.map((p) => p.key).join(', ');
    const has = keys([...known.held, ...known.lacking]) || 'no projects';
    const gone = known.removed.length === 0 ? '' : `; no longer listed: ${keys(known.removed)}`;
    throw new CliError(`Project ${keyOrId} is not in snapshot ${snapshotId}; it has: ${has}${gone}.`);
  });
}

/**
 * The entry of a project only the earlier snapshot holds: its lifecycle against the later snapshot,
 * which holds none of its findings (so every tracked one reads as gone), turned into findings no
 * longer reported; the earlier snapshot's exclusions are kept, as for any project.
 */
async function removedProjectDiff(
  conn: DuckDBConnection,
  fromId: string,
  toId: string,
  project: ProjectRef,
): Promise<ProjectDiff> {
  const { lifecycle, excluded } = await projectLifecycle(conn, fromId, toId, project);
  const fromExcluded = await sliceExclusions(conn, fromId, project, DIFF_SLICES);
  return removedProject(project.key, lifecycle, {
    excluded: excluded.filter((e) => e.field !== UNKNOWN_SCORE_FIELD),
    data_quality: exclusionNotes(fromId, fromExcluded),
  });
}

function ref(info: {
  snapshot_id: string;
  fetched_at: string | null;
  root_sha256: string | null;
}): DiffSnapshotRef {
  return { snapshot_id: info.snapshot_id, fetched_at: info.fetched_at, root_sha256: info.root_sha256 };
}
