/**
 * An evaluation job a page lists as before is not built into rows again. Jobs are listed newest
 * first, so every new job shifts every page, and without this each night builds and keys the rows of
 * every job the workspace ever ran (~780 on the large preset, growing with history) although only
 * the new ones and those whose status moved changed.
 *
 *   evaluations page ─▶ parsed as before (ids find repeats across pages), and its items located in its
 *                       bytes (json-slices.ts)
 *     ─▶ per job: key = memo key of (its bytes, its project's key)
 *     ─▶ a memo of that key? ─▶ yes: map its row sets (the job's row at its position now: page, file,
 *        index); nothing is built
 *     ─▶ no: build its rows (a part of their own); when that raised no warning they are recorded as
 *        its memo when the load commits
 *
 * A job's rows depend on its JSON and its project's key (from the summaries), on its position (kept in
 * the mapping: row-sets.ts) and, only through JSON paths in warnings, on its page and index: so a job
 * that raised a warning is not memoized. A page is keyed only when it verified, may hold no lone
 * surrogate (their repair records altered values by path) and its items are found in its bytes; jobs
 * without a string id are built, not memoized. Memos live with the summaries' (summary-memo.ts: same
 * tables, same retention).
 */
import type { ManifestFile } from '../snapshot/manifest.js';
import type { EachJob } from './evaluation-rows.js';
import { arrayMemberSlices } from './json-slices.js';
import { POSITION_COLUMNS, type Position } from './row-sets.js';
import { isPlainObject, type RowCollector } from './row-builder.js';
import { EVALUATION_JOBS } from './schema.js';
import { memoKey, type MemoRowSet, type SummaryMemoLoad } from './summary-memo.js';

/** The memo key of a job: its bytes in the page, with its project's key. */
export function evaluationJobMemoKey(item: Uint8Array, projectKey: string | null): string {
  return memoKey('evaluation_job', { project_key: projectKey }, item);
}

/**
 * Each job's memo key, by index (undefined: built, not memoized); undefined when the page is not a
 * list whose items are found in its bytes, one for each parsed item.
 */
export function evaluationJobKeys(
  bytes: Buffer,
  body: unknown,
  projectKeys: ReadonlyMap<string, string | null>,
): (string | undefined)[] | undefined {
  if (!isPlainObject(body) || !Array.isArray(body.items)) return undefined;
  const slices = arrayMemberSlices(bytes, 'items');
  if (!slices || slices.items.length !== body.items.length) return undefined;
  return body.items.map((job: unknown, i) => {
    if (!isPlainObject(job) || typeof job.id !== 'string') return undefined;
    const projectId = typeof job.project_id === 'string' ? job.project_id : null;
    const [start, end] = slices.items[i]!;
    return evaluationJobMemoKey(
      bytes.subarray(start, end),
      projectId === null ? null : (projectKeys.get(projectId) ?? null),
    );
  });
}

/** What jobsFromMemos works with: the load's memos, collector and mappings. */
export interface EvaluationMemoContext {
  memos: SummaryMemoLoad;
  sink: RowCollector;
  /** Maps a memo's row sets to the snapshot (their rows counted as their relations'). */
  map: (sets: readonly MemoRowSet[]) => void;
  /** project_id → project_key of the snapshot's projects. */
  projectKeys: ReadonlyMap<string, string | null>;
  /** Jobs taken from memos, of all the pages list (repeats not counted; for progress). */
  reused: { reused: number; jobs: number };
}

/** Where a page lists its jobs: its file and page number (a job's row keeps them in the mapping). */
export interface EvaluationPagePlace {
  file: ManifestFile;
  page: number | null;
}

/**
 * How each job of a keyed page is collected (`keys` by index): one a memo stands for is mapped from
 * it; any other with a key as a unit of its own, memoized unless it raised a warning.
 */
export function jobsFromMemos(
  context: EvaluationMemoContext,
  place: EvaluationPagePlace,
  keys: readonly (string | undefined)[],
): EachJob {
  const { memos, sink } = context;
  return (job, index, collect) => {
    const key = keys[index];
    if (key === undefined) return collect();
    const memo = memos.memoOf(key);
    if (memo) {
      context.map(placedJobRowSets(memo.rowSets, jobPosition(place, index)));
      context.reused.reused++;
      return;
    }
    memos.collectUnit(key, sink, collect, () => {
      const projectId = (job as { project_id?: unknown }).project_id;
      const project_id = typeof projectId === 'string' ? projectId : null;
      const project_key = project_id === null ? null : (context.projectKeys.get(project_id) ?? null);
      return {
        scope: { project_id, project_key },
        assessments: 0,
        assessmentIds: [],
        warnings: [],
        altered: [],
      };
    });
  };
}

/** A job's position on a page (POSITION_COLUMNS order: ordinal, page, page_file). */
function jobPosition(place: EvaluationPagePlace, index: number): Position {
  const values: Record<string, string | number | null> = {
    ordinal: index,
    page: place.page,
    page_file: place.file.path,
  };
  return POSITION_COLUMNS.map((c) => values[c.name] ?? null);
}

/**
 * A job memo's row sets as a snapshot maps them where it lists the job at `position`: the job's own
 * row there (its skipped members' positions are within the job, unchanged).
 */
export function placedJobRowSets(sets: readonly MemoRowSet[], position: Position): MemoRowSet[] {
  return sets.map((set) => (set.relation === EVALUATION_JOBS.name ? { ...set, position } : set));
}
