/**
 * An assessment a changed project summary lists as before is neither parsed nor built into rows
 * again. A project's summary lists every assessment of the project and changes whenever one is added,
 * so without this a night parses the whole summary and builds and keys the rows of every assessment it
 * ever listed (growing with every night of history). With it, only the new or changed assessments are
 * parsed and built.
 *
 *   changed summary text ─▶ the assessments array's items, located in the text (json-slices.ts)
 *     ─▶ the rest of the summary (the shell) parsed; per item: key = memo key of (its bytes, the
 *        project, the file)
 *     ─▶ a memo of that key? ─▶ yes: map its row sets (the assessment's row at its position now); the
 *        item stays unparsed (its id, from the memo, stands in for it), its attack runs' ids are the
 *        summary's as before
 *     ─▶ no: parse the item and build its rows (a part of their own, never mixed with the summary's
 *        other rows); when that raised no warning, they are recorded as its memo when the load commits
 *
 * An assessment's rows depend on its JSON, the project scope and the summary's path (a top finding's
 * source_file), and, only through JSON paths in warnings, on its index: so an assessment that raised a
 * warning is not memoized, and its `ordinal` (its row's position) is kept in the mapping (row-sets.ts).
 * The key is of the item's bytes, not of its parsed value: equal bytes parse to equal values (-0
 * included, which JSON.stringify would write as 0); a service that wrote the same assessment with
 * other whitespace costs one night of building it again. Items that cannot be a row set of their own
 * (not an object, an id that is not a string or that another item shares) are parsed and built, not
 * memoized. Memos live with the summaries' (summary-memo.ts: same tables, same retention).
 */
import { arrayMemberSlices, withEmptyArray } from './json-slices.js';
import { isPlainObject, type RowCollector } from './row-builder.js';
import {
  memoKey,
  placedRowSets,
  type MemoRowSet,
  type MemoUnit,
  type SummaryMemoLoad,
} from './summary-memo.js';
import type { ScopeContext } from './assessment-rows.js';
import { projectScope, type ProjectEntry } from './summary-rows.js';

/** The memo key of an assessment: its bytes in the summary, with the project and the summary's path. */
export function assessmentMemoKey(item: string | Uint8Array, scope: ScopeContext, file: string): string {
  return memoKey('assessment', { file, project_id: scope.project_id, project_key: scope.project_key }, item);
}

/** What readWithAssessmentMemos works with: the load's memos, collector and mappings. */
export interface AssessmentMemoContext {
  memos: SummaryMemoLoad;
  sink: RowCollector;
  /** Maps a memo's row sets to the snapshot (their rows counted as their relations'). */
  map: (sets: readonly MemoRowSet[]) => void;
  /** attack run id → project (finding details take their project from it). */
  runScopes: Map<string, { project_id: string | null; project_key: string | null }>;
  /** Assessments taken from memos, of all the changed summaries listed (for progress). */
  reused: { reused: number; assessments: number };
}

/** An item of the assessments array: its bytes, memo key, and parsed value or the id a memo gives. */
interface Item {
  bytes: Buffer;
  key: string | undefined;
  value: unknown;
  /** A memo stands for the item (it is not parsed). */
  memoized: boolean;
}

/**
 * A changed summary whose assessments are located in its bytes and keyed, the rest of it parsed
 * (locateAssessments), before their memos are read: the memos of every changed summary's assessments
 * are read in one query (memoKeysOf).
 */
export interface LocatedSummary {
  /** The summary without its assessments (an empty list in their place). */
  body: Record<string, unknown>;
  scope: ScopeContext;
  items: readonly Item[];
}

/**
 * Locates and keys a changed summary's assessments (no database needed). Undefined when the bytes are
 * not an object with one array of assessments, or the rest of it is not JSON: the caller parses the
 * whole text then (and reports where it is malformed).
 */
export function locateAssessments(
  bytes: Buffer,
  file: string,
  entry: ProjectEntry,
): LocatedSummary | undefined {
  const slices = arrayMemberSlices(bytes, 'assessments');
  if (!slices) return undefined;
  const body = parseOrUndefined(withEmptyArray(bytes, slices));
  if (!isPlainObject(body)) return undefined;
  const scope = projectScope(entry, body);
  const items = slices.items.map(([start, end]): Item => {
    const item = bytes.subarray(start, end);
    return { bytes: item, key: assessmentMemoKey(item, scope, file), value: undefined, memoized: false };
  });
  return { body, scope, items };
}

/** The memo keys of a located summary's assessments. */
export function memoKeysOf(located: LocatedSummary): string[] {
  return located.items.flatMap((item) => (item.key === undefined ? [] : [item.key]));
}

/** A changed summary as read here: its body, and how collectProjectSummary collects each assessment. */
export interface ReadSummary {
  /** The parsed summary; an assessment a memo stands for is `{ id }` in its list. */
  body: Record<string, unknown>;
  eachAssessment: (assessment: unknown, index: number, collect: () => void) => void;
}

/**
 * Reads a located summary as the module comment says, once the memos of its assessments were read
 * (`context.memos`). Undefined when an assessment to parse is not JSON: the caller parses the whole
 * text then. Call it once per located summary.
 */
export function readWithAssessmentMemos(
  context: AssessmentMemoContext,
  summary: MemoUnit,
  { body, scope, items }: LocatedSummary,
): ReadSummary | undefined {
  const { memos } = context;
  for (const item of items) {
    const id = item.key === undefined ? undefined : memos.memoOf(item.key)?.assessmentIds[0];
    if (id !== undefined) Object.assign(item, { value: { id }, memoized: true });
    else if (!parseItem(item)) return undefined;
  }
  // Items sharing an id would form one row set: none of them is its own memo.
  const ids = new Map<unknown, number>();
  for (const { value } of items) if (isPlainObject(value)) ids.set(value.id, (ids.get(value.id) ?? 0) + 1);
  for (const item of items) {
    const id = isPlainObject(item.value) ? item.value.id : undefined;
    if (typeof id === 'string' && ids.get(id) === 1) continue;
    if (item.memoized && !parseItem(item)) return undefined;
    Object.assign(item, { key: undefined, memoized: false });
  }
  context.reused.assessments += items.length;
  return {
    body: { ...body, assessments: items.map((item) => item.value) },
    eachAssessment: eachAssessmentOf(context, summary, scope, items),
  };
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Parses an item's bytes into its value; false when they are not JSON. */
function parseItem(item: Item): boolean {
  item.value = parseOrUndefined(item.bytes.toString('utf8'));
  return item.value !== undefined;
}

/**
 * How each assessment is collected: one a memo stands for is mapped from it; any other is collected
 * as a unit of its own within the summary's, memoized unless it raised a warning or has no key.
 */
function eachAssessmentOf(
  context: AssessmentMemoContext,
  summary: MemoUnit,
  scope: ScopeContext,
  items: readonly Item[],
): ReadSummary['eachAssessment'] {
  const { memos, sink } = context;
  const { snapshot_id: _id, ...unscoped } = scope;
  return (assessment, index, collect) => {
    const { key, memoized } = items[index]!;
    if (key === undefined) return collect();
    if (memoized) {
      // An assessment's memo holds no warnings or altered values (one that raised a warning has none).
      const memo = memos.memoOf(key)!;
      context.map(placedRowSets(memo.rowSets, index));
      memos.reference(summary, key, index);
      for (const id of memo.attackRunIds)
        context.runScopes.set(id, { project_id: scope.project_id, project_key: scope.project_key });
      context.reused.reused++;
      return;
    }
    // Its id stands in for it when a later load takes it from the memo (not parsed then).
    const kept = memos.collectUnit(key, sink, collect, () => ({
      scope: unscoped,
      assessments: 1,
      assessmentIds: [(assessment as { id: string }).id],
      warnings: [],
      altered: [],
    }));
    if (kept) memos.reference(summary, key, index);
  };
}
