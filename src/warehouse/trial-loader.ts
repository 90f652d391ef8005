/**
 * Loads trials/<assessment>.json files with DuckDB's own JSON reader, so a file of any size never sits
 * whole in JavaScript memory. Three ways to read a file (SQL in trial-sql.ts):
 *
 *   whole   vouched files up to WHOLE_FILE_MAX_BYTES, in the transaction:
 *           read_json (the file's array as one value) ─▶ unnest ─▶ trials            one statement a batch
 *   staged  bigger vouched files, which must not be one value:
 *           before the transaction: read_json (object by object) ─▶ temp trial_stage
 *           in the transaction:     trial_stage ─▶ trials
 *   strict  every other file: before the transaction, read_json_objects ─▶ fields ─▶ temp trial_strict
 *           ─▶ each value type-checked ─▶ temp trial_strict_rows; in the transaction, ─▶ trials
 *
 * Vouched: the verified manifest vouches for the file (hash matches, no schema issues, no unknown keys,
 * a record count). A trial's tool calls and parts go into list columns of its row (schema-trials.ts),
 * so each trial is written once. Stages are built before the transaction: scanning a temp table created
 * inside it was 2-3x slower; a stage is only a temp table, so a failure there leaves the database as it
 * was. Stage rows carry the file's number (TrialFile.fileNo), never its path. Whole files need no
 * stage at all: the ordinal of a trial is its index in its file's array, and a file's parse and its
 * rows' write run in one pipeline (on the million-trial snapshot, 2 s less than staging).
 *
 * Memory: every statement here runs on one DuckDB thread and hands the memory it freed back after it
 * (db.ts, onOneThread), and read buffers are sized from the files read (readObjectBytes). The one
 * exception is the whole-file fast path, the bulk of the rows, which the loader first tries on
 * `wholeFileThreads` threads (a second thread: load / raw read_json 1.50 → 1.05-1.20 on an idle
 * 2-core machine, but its buffers need ~250 MB of limit, not 144) and, when that runs out of memory,
 * again on one (loader.ts). Measured
 * on the million-trial snapshot (bench/load.ts, bench/load-memory.ts): peak RSS 400-430 MB with the
 * default 256 MB limit (620-700 MB before), and it still loads at 144 MB.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { CliError, WordedError } from '../errors.js';
import { isOutOfMemory, onOneThread, onThreads, outOfMemoryDetail } from './db.js';
import { malformedFileError } from './json-file.js';
import { quoteLiteral } from './sql.js';
import type { ContentIdentity, StoredAlteredValue } from './trial-content.js';
import {
  fastTrialsInsert,
  READ_COLUMNS,
  STAGED_ROWS,
  strictFieldsSelect,
  strictRowsSelect,
  strictTrialsInsert,
  wholeFileRows,
} from './trial-sql.js';

export interface TrialFile extends ContentIdentity {
  /** The file's position among the snapshot's trial files: its key in the stages. */
  fileNo: number;
  /** Absolute path (DuckDB names it in read errors). */
  path: string;
  /** Path inside the snapshot, for messages. */
  relPath: string;
  bytes: number;
  assessmentId: string;
  projectId: string | null;
  projectKey: string | null;
  /** Trials the verified manifest records for the file (null when unknown). */
  records: number | null;
  /** Read with a fast path (see the module comment); requires `records`. */
  vouched: boolean;
  /** Values of the file stored altered (lone surrogates), kept with its content. */
  altered: readonly StoredAlteredValue[];
}

/**
 * Largest single trial object the staged and strict paths read (a very long model response). DuckDB
 * sizes its read buffers from it (per thread): a memory/robustness trade-off; twice DuckDB's default.
 */
const MAX_OBJECT_BYTES = 32 * 1024 * 1024;

/**
 * Largest file read whole (as one JSON value, buffered by DuckDB per reading thread). Bigger files are
 * staged object by object, so memory stays bounded whatever one assessment holds.
 */
export const WHOLE_FILE_MAX_BYTES = 15 * 1024 * 1024;
const MIB = 1024 * 1024;

/** read_json's largest object when reading files whole: enough for the biggest file read whole. */
const WHOLE_FILE_OBJECT_CAP = Math.ceil(WHOLE_FILE_MAX_BYTES / MIB) * MIB + MIB;

/**
 * read_json's maximum_object_size for a statement reading `files`: a whole MiB above the largest (no
 * object is bigger than its file), at most `cap`. DuckDB's read buffers are twice this per reading
 * thread and cannot spill: sized from the files read instead of the biggest object allowed, the
 * million-trial snapshot's 7 MB files take 8 MB, not 16 (whole) or 32 (strict).
 */
export function readObjectBytes(files: readonly Pick<TrialFile, 'bytes'>[], cap: number): number {
  const largest = files.reduce((max, f) => Math.max(max, f.bytes), 0);
  return Math.min(Math.ceil(largest / MIB) * MIB + MIB, cap);
}

/**
 * Whole files per statement. Each INSERT statement in the transaction costs a lot beyond its rows (on
 * the million-trial snapshot, 240 files in batches of 48 took 11 s, in one statement 8 s), and a whole
 * file read holds only the files its threads are parsing, so one statement takes them all.
 */
const WHOLE_BATCH_FILES = 1024;
/**
 * Staged files per read_json statement: reading object by object, one scan over hundreds of files held
 * a buffer per open file and exhausted the load's memory_limit on a 500-assessment snapshot.
 */
const STAGE_BATCH_FILES = 48;

/** Trial files as the stages and error messages need them. */
export type StagedFiles = readonly Pick<TrialFile, 'fileNo' | 'path' | 'relPath' | 'vouched' | 'bytes'>[];

type ReadPath = 'whole' | 'staged' | 'strict';

function readPath(file: StagedFiles[number]): ReadPath {
  if (!file.vouched) return 'strict';
  return file.bytes <= WHOLE_FILE_MAX_BYTES ? 'whole' : 'staged';
}

/**
 * Strict-path trial bytes per statement building stored-row values (strictRowsSelect): its working
 * memory (JSON functions over whole trials, the hash tables of their tool calls and parts) grows with
 * the trials it reads.
 */
const STRICT_BATCH_BYTES = 8 * 1024 * 1024;

/**
 * Consecutive runs of `items` of at most `maxBytes` together; an item bigger than that alone. Order
 * is kept (never empty batches).
 */
export function byteBatches<T extends { bytes: number }>(items: readonly T[], maxBytes: number): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const item of items) {
    if (current.length > 0 && size + item.bytes > maxBytes) {
      out.push(current);
      current = [];
      size = 0;
    }
    current.push(item);
    size += item.bytes;
  }
  if (current.length > 0) out.push(current);
  return out;
}

function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

const fileList = (files: StagedFiles): string => `[${files.map((f) => quoteLiteral(f.path)).join(', ')}]`;

/**
 * A trial file that is valid JSON but that DuckDB's reader refuses (a lone surrogate escape). The
 * loader rewrites such a file (altered-values.ts) and loads again; this reaches the user only when
 * the rewrite cannot help.
 */
export class UnreadableTrialFileError extends CliError {
  override readonly name = 'UnreadableTrialFileError';
  constructor(
    readonly relPath: string,
    readonly dir: string,
    duckdbMessage: string,
  ) {
    super(
      `Cannot read trial file ${relPath} of ${dir}: it is valid JSON, but DuckDB's reader refuses it (${duckdbMessage.split('\n')[0] ?? ''}). Nothing was loaded.`,
    );
  }
}

/** Thrown when DuckDB cannot read a trial file; trialReadFailure() turns it into the user's message. */
class TrialReadError extends Error {
  constructor(
    readonly files: StagedFiles,
    readonly duckdbMessage: string,
  ) {
    super(duckdbMessage);
  }
}

async function reading(files: StagedFiles, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (error) {
    throw new TrialReadError(files, error instanceof Error ? error.message : String(error));
  }
}

/**
 * Reading or writing trials needed more memory than the load's memory limit (DuckDB spills what it
 * can to disk; a file being parsed cannot be). The load is rolled back.
 */
export class LoadMemoryError extends WordedError {
  override readonly name = 'LoadMemoryError';
  constructor(dir: string, duckdbMessage: string) {
    super(
      (name) =>
        `Loading the trials of ${dir} needs more memory than the load's memory limit (DuckDB: ${outOfMemoryDetail(duckdbMessage)}). Nothing was loaded; raise the limit with ${name('memoryLimit')}.`,
    );
  }
}

/**
 * The error to report for a failed stage or load of trial files: names the file DuckDB choked on (and,
 * for malformed JSON, the position), or says the memory limit was too low. Any other error is
 * returned as it is. `dir`: the snapshot's.
 */
export async function trialReadFailure(error: unknown, dir: string): Promise<unknown> {
  const duckdbError = error instanceof TrialReadError ? new Error(error.duckdbMessage) : error;
  if (isOutOfMemory(duckdbError)) return new LoadMemoryError(dir, (duckdbError as Error).message);
  if (!(error instanceof TrialReadError)) return error;
  // DuckDB names the file it choked on; batches hold several files.
  const named = /file "([^"]+)"/.exec(error.duckdbMessage)?.[1];
  const culprit =
    error.files.find((f) => f.path === named) ?? (error.files.length === 1 ? error.files[0] : undefined);
  if (culprit && /malformed json/i.test(error.duckdbMessage)) {
    const located = await malformedFileError(
      culprit.path,
      path.join(dir, culprit.relPath),
      error.duckdbMessage,
    );
    return located ?? new UnreadableTrialFileError(culprit.relPath, dir, error.duckdbMessage);
  }
  const listed = error.files.slice(0, 3).map((f) => f.relPath);
  if (error.files.length > 3) listed.push(`and ${error.files.length - 3} more`);
  const names = culprit ? culprit.relPath : listed.join(', ');
  return new CliError(
    `Cannot read trial file ${names} of ${dir}: ${error.duckdbMessage.split('\n')[0] ?? ''}`,
  );
}

/**
 * Before the load's transaction: stages the big vouched files into trial_stage and the strict ones' rows
 * into trial_strict_rows. Then loadTrialFiles() with the same files (the same vouched flags); always
 * dropTrialStage() after.
 */
export async function stageTrials(conn: DuckDBConnection, files: StagedFiles): Promise<void> {
  // Each statement on one thread, its memory handed back after it (db.ts, onOneThread).
  const staged = files.filter((f) => readPath(f) === 'staged');
  // Appending batches keeps insertion (rowid) order, which the ordinals rely on.
  for (const [i, batch] of batches(staged, STAGE_BATCH_FILES).entries()) {
    const scan = `SELECT [${batch.map((f) => f.fileNo).join(', ')}][CAST(file_index AS BIGINT) + 1] AS file_no, *
      FROM read_json(${fileList(batch)}, format = 'array', records = true, columns = ${READ_COLUMNS},
        maximum_object_size = ${MAX_OBJECT_BYTES})`;
    await reading(batch, () =>
      onOneThread(conn, () =>
        conn.run(
          i === 0 ? `CREATE OR REPLACE TEMP TABLE trial_stage AS ${scan}` : `INSERT INTO trial_stage ${scan}`,
        ),
      ),
    );
  }
  let strictStaged = false;
  for (const file of files.filter((f) => readPath(f) === 'strict')) {
    // One file at a time: a malformed one is named precisely, and rowid is the position in the file.
    // Its size on disk: a file that is not vouched for may differ from its manifest entry.
    const onDisk = await stat(file.path).then(
      (info) => ({ bytes: info.size }),
      () => ({ bytes: MAX_OBJECT_BYTES }),
    );
    const read = `read_json_objects(${fileList([file])}, format = 'array', maximum_object_size = ${readObjectBytes([onDisk], MAX_OBJECT_BYTES)})`;
    await reading([file], () =>
      onOneThread(conn, () => conn.run(`CREATE OR REPLACE TEMP TABLE trial_raw AS SELECT * FROM ${read}`)),
    );
    const into = strictStaged ? 'INSERT INTO trial_strict' : 'CREATE OR REPLACE TEMP TABLE trial_strict AS';
    await onOneThread(conn, () => conn.run(`${into} ${strictFieldsSelect(file.fileNo)}`));
    await conn.run('DROP TABLE trial_raw');
    strictStaged = true;
  }
  if (!strictStaged) return;
  // The stored-row values, a few files at a time (STRICT_BATCH_BYTES), before the transaction.
  const strict = files.filter((f) => readPath(f) === 'strict');
  for (const [i, batch] of byteBatches(strict, STRICT_BATCH_BYTES).entries()) {
    const into =
      i === 0 ? 'CREATE OR REPLACE TEMP TABLE trial_strict_rows AS' : 'INSERT INTO trial_strict_rows';
    await onOneThread(conn, () => conn.run(`${into} ${strictRowsSelect(batch.map((f) => f.fileNo))}`));
  }
  await conn.run('DROP TABLE trial_strict');
}

/** Drops what stageTrials() and loadTrialFiles() left (a rolled-back load keeps its temp tables). */
export async function dropTrialStage(conn: DuckDBConnection): Promise<void> {
  for (const table of ['trial_stage', 'trial_raw', 'trial_strict', 'trial_strict_rows', 'trial_files'])
    await conn.run(`DROP TABLE IF EXISTS ${table}`);
}

/**
 * Stores the files' trials in trial_content (under each file's content key) within the caller's
 * transaction: whole files read now, the others from the stages stageTrials() built; then records each
 * content in trial_content_files. The files must be new contents, one file per key (filesToRead in
 * trial-content.ts). `onBatch` is told the files done after each statement (progress).
 */
export async function loadTrialFiles(
  conn: DuckDBConnection,
  files: readonly TrialFile[],
  onBatch: (done: number, total: number) => void = () => undefined,
  wholeFileThreads = 1,
): Promise<void> {
  if (files.length === 0) return;
  await writeFileTable(conn, files);
  const storedBefore = await lastStoredTrialRow(conn);
  let done = 0;
  const step = async (count: number, sql: string, threads = 1): Promise<void> => {
    await onThreads(conn, threads, () => conn.run(sql));
    done += count;
    onBatch(done, files.length);
  };
  // Strict files first: the buffer pool is nearly empty yet, not filled up to the limit by the whole
  // files' rows. Ordinals do not depend on the order.
  const strict = files.filter((f) => readPath(f) === 'strict').length;
  if (strict > 0) await step(strict, strictTrialsInsert());
  const staged = files.filter((f) => readPath(f) === 'staged').length;
  if (staged > 0) await step(staged, fastTrialsInsert(STAGED_ROWS));
  for (const batch of batches(
    files.filter((f) => readPath(f) === 'whole'),
    WHOLE_BATCH_FILES,
  )) {
    const rows = wholeFileRows(
      batch.map((f) => f.path),
      batch.map((f) => f.fileNo),
      readObjectBytes(batch, WHOLE_FILE_OBJECT_CAP),
    );
    await reading(batch, () => step(batch.length, fastTrialsInsert(rows), wholeFileThreads));
  }
  await checkStagedOrdinals(conn, files, storedBefore);
  await onOneThread(conn, () => conn.run(RECORD_CONTENTS, [storedBefore]));
  await conn.run('DROP TABLE trial_files');
}

/**
 * The largest rowid in trial_content before this load inserts (-1 when empty). DuckDB gives the rows
 * a transaction inserts rowids above every stored row's, and skips each stored row group on a
 * `rowid > $n` filter without reading it: the checks after the inserts read this load's rows only.
 * Matching them by content key instead read every trial row ever stored, a cost that grew with each
 * night of history (on the large preset after 30 nights: 70 ms of a changed night's ~1.2 s load,
 * against 3 ms now). Read within the load's transaction, so no other writer moves it.
 */
async function lastStoredTrialRow(conn: DuckDBConnection): Promise<bigint> {
  const reader = await conn.runAndReadAll('SELECT coalesce(max(rowid), -1) FROM trial_content');
  return BigInt(reader.getRows()[0]![0] as bigint | number);
}

/**
 * One trial_content_files row per file just stored: its counts (what the load reports and checks
 * against the manifest without reading the trials again) and its altered values. $1: the rows stored
 * before this load (lastStoredTrialRow), which it does not read.
 */
const RECORD_CONTENTS = `INSERT INTO trial_content_files
  (content_key, file_sha256, read_path, trials, trials_with_extra, tool_calls, message_parts, altered)
  SELECT m.content_key, m.sha256, m.read_path, coalesce(c.n, 0), coalesce(c.with_extra, 0),
         coalesce(c.tool_calls, 0), coalesce(c.parts, 0), CAST(m.altered AS JSON)
  FROM trial_files m LEFT JOIN (
    SELECT content_key, count(*) AS n, count(extra) AS with_extra,
           sum(coalesce(len(tool_call_list), 0)) AS tool_calls,
           sum(coalesce(len(candidate_part_list), 0) + coalesce(len(response_part_list), 0)
               + CAST(coalesce(candidate_part_implied, false) AS INTEGER)
               + CAST(coalesce(response_part_implied, false) AS INTEGER)) AS parts
    FROM trial_content WHERE rowid > $1
    GROUP BY content_key) c ON c.content_key = m.content_key`;

/** The temp table trial_files: each file's content, and for staged files the stage rowid of its first trial. */
async function writeFileTable(conn: DuckDBConnection, files: readonly TrialFile[]): Promise<void> {
  await conn.run(
    'CREATE OR REPLACE TEMP TABLE trial_files (file_no INTEGER, content_key VARCHAR, sha256 VARCHAR, read_path VARCHAR, altered VARCHAR, first_rowid BIGINT, records BIGINT)',
  );
  const insert = await conn.prepare('INSERT INTO trial_files VALUES ($1, $2, $3, $4, $5, $6, $7)');
  let firstRowid = 0;
  // Staged files in stage order (the order stageTrials() read them).
  for (const file of files) {
    const staged = readPath(file) === 'staged';
    insert.bind([
      file.fileNo,
      file.contentKey,
      file.sha256,
      file.readPath,
      file.altered.length > 0 ? JSON.stringify(file.altered) : null,
      staged ? firstRowid : null,
      file.records,
    ]);
    await insert.run();
    if (staged) firstRowid += file.records ?? 0;
  }
}

/**
 * Every staged file's trials must carry ordinals 0…n-1 (n = its trial count): the ordinal is derived
 * from the stage's rowid and the manifest's record counts, so this catches a stage that did not
 * hold the files in list order. When a file's count differs from the manifest (which shifts the
 * files after it), the count check in snapshot-load.ts fails the load with the precise message.
 */
async function checkStagedOrdinals(
  conn: DuckDBConnection,
  files: readonly TrialFile[],
  storedBefore: bigint,
) {
  if (!files.some((f) => readPath(f) === 'staged')) return;
  const reader = await conn.runAndReadAll(
    `WITH per_file AS (
       SELECT m.file_no, m.records, count(*) AS n, min(t.trial_ordinal) AS lo, max(t.trial_ordinal) AS hi
       FROM trial_content t JOIN trial_files m ON m.content_key = t.content_key
       WHERE t.rowid > $1 AND m.first_rowid IS NOT NULL GROUP BY ALL)
     SELECT file_no FROM per_file
     WHERE (lo <> 0 OR hi <> n - 1) AND NOT EXISTS (SELECT 1 FROM per_file WHERE n <> records)
     ORDER BY file_no LIMIT 3`,
    [storedBefore],
  );
  const bad = reader.getRows().map((row) => Number(row[0]));
  if (bad.length === 0) return;
  const names = files.filter((f) => bad.includes(f.fileNo)).map((f) => f.relPath);
  throw new CliError(
    `Trial positions of ${names.join(', ')} do not match the manifest's record counts: the file and its manifest entry disagree. Nothing was loaded; re-take the snapshot.`,
  );
}
