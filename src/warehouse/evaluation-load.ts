/**
 * The evaluation list pages of one snapshot's load: every job into evaluation_jobs and its skipped
 * members (evaluation-rows.ts), a job listed before mapped from its memo instead (evaluation-memo.ts).
 * Pages are read ahead in batches so that the memos of a batch's jobs are read in one query; a page
 * at fault fails the load at its turn, after the pages before it, as a page-by-page read would.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ManifestFile } from '../snapshot/manifest.js';
import { mayHoldLoneSurrogates } from './altered-values.js';
import { evaluationJobKeys, jobsFromMemos, type EvaluationMemoContext } from './evaluation-memo.js';
import { collectEvaluationPage } from './evaluation-rows.js';
import type { RowCollector } from './row-builder.js';
import type { SnapshotFileReader } from './snapshot-file-reader.js';
import type { LoadProgress } from './snapshot-load.js';
import type { SnapshotSummaries } from './summary-load.js';

/** What the pages' load shares with the rest of the snapshot's load. */
export interface EvaluationLoadContext {
  conn: DuckDBConnection;
  snapshotId: string;
  /** The manifest's evaluation pages, in order. */
  pages: readonly ManifestFile[];
  /** Only a verified file is taken from (or recorded as) a memo. */
  verifiedFiles: ReadonlySet<string>;
  sink: RowCollector;
  files: SnapshotFileReader;
  /** The loaded summaries: project keys by project id, and the load's memos. */
  summaries: SnapshotSummaries;
  progress: (event: LoadProgress) => void;
}

/** How many bytes of pages are read ahead before their jobs' memos are read. */
const EVALUATION_BATCH_BYTES = 16 * 1024 * 1024;

/** Loads the pages (see the module comment). */
export async function loadEvaluationPages(context: EvaluationLoadContext): Promise<void> {
  const { conn, snapshotId, pages, sink, files, summaries } = context;
  const projectKeys = new Map<string, string | null>();
  for (const scope of summaries.projectScopes.values())
    if (scope.project_id) projectKeys.set(scope.project_id, scope.project_key);
  const memoContext: EvaluationMemoContext = {
    memos: summaries.memos,
    sink,
    map: (sets) => summaries.mapMemoRowSets(sets),
    projectKeys,
    reused: { reused: 0, jobs: 0 },
  };
  const seen = new Set<string>();
  for (let first = 0; first < pages.length;) {
    const batch = await readPages(context, first, projectKeys);
    first += batch.length;
    await summaries.memos.prepare(
      conn,
      batch.flatMap(({ keys }) => (keys ?? []).filter((k): k is string => k !== undefined)),
    );
    for (const { file, body, keys, error } of batch) {
      if (error !== undefined) throw error;
      if (body === undefined) {
        files.reportMissing(file);
        continue;
      }
      const page = file.page ?? null;
      const { items, repeats } = collectEvaluationPage(
        body,
        { snapshotId, file: file.path, page, projectKeys, seen },
        sink,
        keys ? jobsFromMemos(memoContext, { file, page }, keys) : undefined,
      );
      memoContext.reused.jobs += items - repeats;
      files.checkCount(file, items, { body, field: 'items' });
    }
  }
  if (memoContext.reused.reused > 0)
    context.progress({ type: 'evaluation_jobs_reused', snapshotId, ...memoContext.reused });
}

/** A page as readPages() read it. */
interface EvaluationPage {
  file: ManifestFile;
  /** Undefined: the page is missing, or (with `error`) not JSON. */
  body: unknown;
  /** Its jobs' memo keys by index (evaluation-memo.ts); undefined: none is memoized. */
  keys: (string | undefined)[] | undefined;
  /** Why the page could not be parsed, thrown at its turn. */
  error?: Error;
}

/**
 * Pages from `first` on, up to EVALUATION_BATCH_BYTES of them (at least one): each read, parsed and
 * its jobs keyed; reading stops at a page that is not JSON, whose error is kept for its turn.
 */
async function readPages(
  { pages, files, verifiedFiles }: EvaluationLoadContext,
  first: number,
  projectKeys: ReadonlyMap<string, string | null>,
): Promise<EvaluationPage[]> {
  const batch: EvaluationPage[] = [];
  for (
    let held = 0, at = first;
    at < pages.length && (batch.length === 0 || held < EVALUATION_BATCH_BYTES);
    at++
  ) {
    const file = pages[at]!;
    const bytes = await files.readBytes(file);
    if (bytes === undefined) {
      batch.push({ file, body: undefined, keys: undefined });
      continue;
    }
    held += bytes.length;
    const text = bytes.toString('utf8');
    let body: unknown;
    try {
      body = files.parseBody(file, text);
    } catch (error) {
      batch.push({
        file,
        body: undefined,
        keys: undefined,
        error: error instanceof Error ? error : new Error(String(error)),
      });
      break;
    }
    // Lone surrogates are repaired (and recorded) by JSON path, which moves with a job: not memoized.
    const keyed = verifiedFiles.has(file.path) && !mayHoldLoneSurrogates(text);
    batch.push({ file, body, keys: keyed ? evaluationJobKeys(bytes, body, projectKeys) : undefined });
  }
  return batch;
}
