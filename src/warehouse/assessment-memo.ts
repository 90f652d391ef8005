/**
 * An assessment a changed project summary lists as before is not built into rows again. A project's
 * summary lists every assessment of the project and changes whenever one is added, so without this a
 * night parses the whole summary (cheap: JSON.parse) and builds and keys the rows of every assessment
 * it ever listed (not cheap, and growing with every night of history). With it, only the new or changed
 * assessments are built.
 *
 *   changed summary, parsed ─▶ per assessment: key = memo key of (its JSON, the project, the file)
 *     ─▶ a memo of that key, every row set still mapped? ─▶ yes: map its row sets (the assessment's row
 *        at its position now), its id and its attack runs' ids are the summary's as before
 *     ─▶ no: build its rows (a part of their own, never mixed with the summary's other rows); when
 *        that raised no warning, they are recorded as its memo when the load commits
 *
 * An assessment's rows depend on its JSON, the project scope and the summary's path (a top finding's
 * source_file), and, only through JSON paths in warnings, on its index: so an assessment that raised a
 * warning is not memoized, and its `ordinal` (its row's position) is kept in the mapping (row-sets.ts).
 * Memos live with the summaries' (summary-memo.ts: same tables, same retention).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { isPlainObject, type RowCollector } from './row-builder.js';
import {
  memoKey,
  placedRowSets,
  type MemoRowSet,
  type MemoUnit,
  type SummaryMemoLoad,
} from './summary-memo.js';
import type { ScopeContext } from './assessment-rows.js';

/**
 * A JSON number that is negative zero, or text that looks like one: JSON.stringify writes -0 as 0, so
 * a summary holding one has no assessment memo (its key could not tell -0 from 0; the rows can).
 */
const NEGATIVE_ZERO = /-0(?:\.0*)?(?:[eE][+-]?\d+)?(?=[\s,\]}])/;

/**
 * Each assessment's memo key, or undefined where it has none: not an object, an id that is not a
 * string or that another assessment of the summary shares (their rows would form one row set), or a
 * summary whose text may hold a negative zero.
 */
export function assessmentMemoKeys(
  assessments: readonly unknown[],
  scope: ScopeContext,
  file: string,
  text: string,
): (string | undefined)[] {
  if (NEGATIVE_ZERO.test(text)) return assessments.map(() => undefined);
  const ids = new Map<string, number>();
  for (const a of assessments)
    if (isPlainObject(a) && typeof a.id === 'string') ids.set(a.id, (ids.get(a.id) ?? 0) + 1);
  const facts = { file, project_id: scope.project_id, project_key: scope.project_key };
  return assessments.map((a) =>
    isPlainObject(a) && typeof a.id === 'string' && ids.get(a.id) === 1
      ? memoKey('assessment', facts, JSON.stringify(a))
      : undefined,
  );
}

/** What collectOrReuseAssessments works with: the load's memos, collector and mappings. */
export interface AssessmentMemoContext {
  conn: DuckDBConnection;
  memos: SummaryMemoLoad;
  sink: RowCollector;
  /** Maps a memo's row sets to the snapshot (their rows counted as their relations'). */
  map: (sets: readonly MemoRowSet[]) => void;
  /** attack run id → project (finding details take their project from it). */
  runScopes: Map<string, { project_id: string | null; project_key: string | null }>;
  /** Assessments taken from memos, of all the changed summaries listed (for progress). */
  reused: { reused: number; assessments: number };
}

/** A changed summary being parsed: its memo unit, body and text, path and project scope. */
export interface ChangedSummary {
  summary: MemoUnit;
  body: unknown;
  text: string;
  file: string;
  scope: ScopeContext;
}

/**
 * How a changed summary's assessments are collected (see the module comment): one whose memo is usable
 * is mapped from it; any other is collected as a unit of its own within the summary's, memoized unless
 * it raised a warning. Reads the usable memos first (one query).
 */
export async function collectOrReuseAssessments(
  context: AssessmentMemoContext,
  { summary, body, text, file, scope }: ChangedSummary,
): Promise<(assessment: unknown, index: number, collect: () => void) => void> {
  const { memos, sink } = context;
  const list = isPlainObject(body) && Array.isArray(body.assessments) ? body.assessments : [];
  const keys = assessmentMemoKeys(list, scope, file, text);
  await memos.prepare(
    context.conn,
    keys.filter((key): key is string => key !== undefined),
  );
  context.reused.assessments += list.length;
  const { snapshot_id: _id, ...unscoped } = scope;
  return (_assessment, index, collect) => {
    const key = keys[index];
    if (key === undefined) return collect();
    // An assessment's memo holds no warnings or altered values (one that raised a warning has none).
    const memo = memos.memoOf(key);
    if (memo) {
      context.map(placedRowSets(memo.rowSets, index));
      memos.reference(summary, key, index);
      for (const id of memo.attackRunIds)
        context.runScopes.set(id, { project_id: scope.project_id, project_key: scope.project_key });
      context.reused.reused++;
      return;
    }
    const unit = memos.open(key, sink.rows);
    const warningsBefore = sink.warnings.length;
    collect();
    if (sink.warnings.length > warningsBefore) return memos.discard(unit);
    memos.reference(summary, key, index);
    // The summary gives the assessment's id and scope; its memo needs only its row sets.
    memos.close(unit, sink.rows, {
      scope: unscoped,
      assessments: 1,
      assessmentIds: [],
      warnings: [],
      altered: [],
    });
  };
}
