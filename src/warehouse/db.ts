/**
 * Opening the warehouse and writing rows. One place decides the session settings (UTC, insertion
 * order) and how JS values become DuckDB values, so every loader writes the same way.
 */
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import { DuckDBInstance, LIST, VARCHAR } from './duckdb-api.js';
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import { wordsFlags, CliError, WordedError } from '../errors.js';
import type { ColumnType, TableDef } from './schema.js';
import { quoteIdent, quoteLiteral } from './sql.js';

/** An open warehouse database (openWarehouse): its DuckDB connection and close(). */
export interface Warehouse {
  instance: DuckDBInstance;
  conn: DuckDBConnection;
  path: string;
  close(): void;
}

export interface OpenOptions {
  readOnly?: boolean;
  /** DuckDB memory_limit, e.g. '1GB'. Large loads spill to disk beyond it. */
  memoryLimit?: string;
  threads?: number;
}

/**
 * For a connection that runs SQL a user typed (query, the viewer): the warehouse file is attached
 * read-only, but DuckDB would still let SQL write other files (COPY … TO, ATTACH) or read any file or
 * URL the user can (read_csv, read_text). Turned off, and the configuration locked so the SQL cannot
 * turn it on again; temp views and DuckDB's own spill files still work. Call it after the
 * connection's own setup (temp views), before the first statement of the user's.
 */
export async function withoutFileAccess(conn: DuckDBConnection): Promise<void> {
  await conn.run('SET enable_external_access = false');
  await conn.run('SET lock_configuration = true');
}

/** Fails with a clear message when the database file does not exist (read-only commands). */
export function requireDatabase(path: string): void {
  if (path !== ':memory:' && !existsSync(path)) {
    throw new WordedError((name) =>
      wordsFlags(name)
        ? `No database at ${path}; create it with airt-report load SNAPSHOT_DIR ${name('db')} ${path}`
        : `No database at ${path}; create it by loading a snapshot into it first.`,
    );
  }
}

/**
 * Rows per row group in the warehouse file (DuckDB's default is 122,880). A checkpoint writes every
 * row group that gained rows again, whole: with the default, each night's load re-compressed the
 * partly filled last row group of every table (up to 122,879 rows of earlier nights per table, most
 * of a changed night's COMMIT, and DuckDB's vacuum merged them again every few nights). With 32,768
 * a night rewrites at most that many earlier rows per table, whatever the history. Not stored in
 * the file: every open passes it, or DuckDB merges the small row groups into large ones again.
 * Measured on the million-trial snapshot's 30 nights: bench/nightly-snapshot.ts.
 */
export const ROW_GROUP_SIZE = 32_768;

/**
 * The storage format a new warehouse file is written in. DuckDB's default keeps files readable by
 * 0.10.2; 1.5.0's format compresses trial text better and loads the million-trial snapshot faster
 * (bench/load.ts). A file created earlier keeps its own format. Readable by DuckDB 1.5.0 or later.
 */
export const NEW_FILE_STORAGE_VERSION = 'v1.5.0';

/** Catalog names DuckDB reserves (or this module uses) that a file's own name must not take. */
const RESERVED_CATALOGS = new Set(['memory', 'system', 'temp', 'main']);

/**
 * The catalog name DuckDB itself gives a file opened as the main database (its name without the
 * extension), so SQL naming it keeps working; `warehouse` where DuckDB reserves that name.
 */
function catalogNameOf(path: string): string {
  const stem = basename(path).replace(/\.[^.]*$/, '');
  return stem && !RESERVED_CATALOGS.has(stem.toLowerCase()) ? stem : 'warehouse';
}

/** Commits whose changes exceed this are checkpointed into the file instead of logged (openWarehouse). */
export const CHECKPOINT_THRESHOLD = '1MB';

/** The bytes every DuckDB database file has at offset 8 (after its header's checksum). */
const DUCKDB_MAGIC = Buffer.from('DUCK');

/**
 * Refuses an existing file that is not a DuckDB database before DuckDB sees it: DuckDB takes a SQLite
 * file for one to open through an extension, and a JSON file for an in-memory database, each with an
 * error that does not say what is wrong. An empty file is left to DuckDB (it is a new database).
 */
function refuseForeignFile(path: string): void {
  let header: Buffer;
  try {
    const fd = openSync(path, 'r');
    try {
      header = Buffer.alloc(12);
      header = header.subarray(0, readSync(fd, header, 0, 12, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return; // Missing (a new database) or unreadable: DuckDB's own error says which.
  }
  if (header.length > 0 && !header.subarray(8, 12).equals(DUCKDB_MAGIC)) throw notADatabase(path);
}

function notADatabase(path: string, cause?: unknown): WordedError {
  return new WordedError(
    (name) =>
      `${path} exists but is not a DuckDB database (another program's file, or one left by an interrupted load of an older airt-report). Nothing was loaded or changed; move it away, or name another ${wordsFlags(name) ? `${name('db')} file` : 'file'}.`,
    1,
    cause === undefined ? undefined : { cause },
  );
}

/** Opens (creating if needed, unless read-only) a DuckDB file with the warehouse's session settings. */
export async function openWarehouse(path: string, options: OpenOptions = {}): Promise<Warehouse> {
  const config: Record<string, string> = {};
  if (options.memoryLimit) config.memory_limit = options.memoryLimit;
  if (options.threads) config.threads = String(options.threads);
  const inMemory = path === ':memory:';
  // Where a file opened as the main database would spill (the database's name + .tmp), not the
  // working directory an in-memory main database spills to.
  if (!inMemory) config.temp_directory = `${path}.tmp`;
  // A commit bigger than this checkpoints instead of writing its changes to the WAL, so a night's rows
  // are written once, into the file, rather than to the WAL and then again at the closing checkpoint
  // (DuckDB's default, 16 MB, kept a night's rows in the WAL: ~150 ms more per load, and the WAL's
  // copy of them stayed in memory until that checkpoint: peak RSS +50-80 MB). Small commits (a
  // triage decision) still go to the WAL.
  if (!inMemory && !options.readOnly) config.checkpoint_threshold = CHECKPOINT_THRESHOLD;
  // Never the network: DuckDB would download an extension it knows of (sqlite to open a SQLite file,
  // httpfs for a URL) and load it. Every extension the warehouse uses is built in (json, parquet, icu).
  config.autoinstall_known_extensions = 'false';
  config.autoload_known_extensions = 'false';
  if (!inMemory) refuseForeignFile(path);
  let instance: DuckDBInstance;
  let conn: DuckDBConnection;
  try {
    // The file is attached to an in-memory instance rather than opened as its main database: only
    // ATTACH takes the row group size (and a new file's storage version).
    instance = await DuckDBInstance.create(':memory:', config);
    conn = await instance.connect();
  } catch (error) {
    throw new CliError(`Cannot start DuckDB: ${error instanceof Error ? error.message : String(error)}`, 1, {
      cause: error,
    });
  }
  if (!inMemory) {
    const catalog = catalogNameOf(path);
    const attachOptions = [`ROW_GROUP_SIZE ${ROW_GROUP_SIZE}`];
    if (options.readOnly) attachOptions.push('READ_ONLY');
    else if (!existsSync(path)) attachOptions.push(`STORAGE_VERSION '${NEW_FILE_STORAGE_VERSION}'`);
    try {
      await conn.run(`ATTACH ${quoteLiteral(path)} AS ${quoteIdent(catalog)} (${attachOptions.join(', ')})`);
      await conn.run(`USE ${quoteIdent(catalog)}`);
    } catch (error) {
      conn.closeSync();
      instance.closeSync();
      const reason = error instanceof Error ? error.message : String(error);
      if (/not a valid DuckDB database file/i.test(reason)) throw notADatabase(path, error);
      throw new CliError(`Cannot open the database ${path}: ${reason}`, 1, { cause: error });
    }
  }
  // Timestamps without an offset are read as UTC, and rendering never depends on the machine's zone.
  await conn.run("SET TimeZone = 'UTC'");
  return {
    instance,
    conn,
    path,
    close() {
      conn.closeSync();
      instance.closeSync();
    },
  };
}

/**
 * DuckDB's error when a statement needed more than the instance's memory_limit: an Out of Memory
 * Error, or (from an appender) "Failed to append: " and the allocation it could not make.
 */
const OUT_OF_MEMORY =
  /^(?:Error: )?(?:Out of Memory Error: |Failed to append: (?=could not allocate|failed to allocate|failed to pin))/i;

/** True for DuckDB's error when a statement needed more than the instance's memory_limit. */
export function isOutOfMemory(error: unknown): boolean {
  return error instanceof Error && OUT_OF_MEMORY.test(error.message);
}

/** DuckDB's words for an out-of-memory error, on one line: what it could not allocate, of how much. */
export function outOfMemoryDetail(message: string): string {
  return (message.replace(OUT_OF_MEMORY, '').split('\n')[0] ?? '').trim();
}

/**
 * A statement needed more memory than the DuckDB memory limit allows (DuckDB spills what it can to
 * disk; some working memory cannot be). The transaction was rolled back.
 */
export class MemoryLimitError extends WordedError {
  override readonly name = 'MemoryLimitError';
  constructor(duckdbMessage: string, options?: { cause?: unknown }) {
    super(
      (name) =>
        `DuckDB needed more memory than its memory limit allows (${outOfMemoryDetail(duckdbMessage)}). Nothing was changed; raise the limit with ${name('memoryLimit')}.`,
      1,
      options,
    );
  }
}

/**
 * Runs `work` inside BEGIN … COMMIT; any error rolls back, leaving the database as it was. DuckDB's
 * out-of-memory error becomes a MemoryLimitError.
 */
export async function inTransaction<T>(conn: DuckDBConnection, work: () => Promise<T>): Promise<T> {
  await conn.run('BEGIN TRANSACTION');
  try {
    const result = await work();
    await conn.run('COMMIT');
    return result;
  } catch (error) {
    // A failed COMMIT has already ended the transaction: the error to report is the original one.
    await conn.run('ROLLBACK').catch(() => undefined);
    await restoreThreads(conn).catch(() => undefined);
    if (isOutOfMemory(error)) throw new MemoryLimitError((error as Error).message, { cause: error });
    throw error;
  }
}

export type CellValue = string | number | boolean | null | readonly string[];
export type Row = CellValue[];

const VARCHAR_LIST = LIST(VARCHAR);

function appendCell(appender: DuckDBAppender, type: ColumnType, value: CellValue): void {
  if (value === null) {
    appender.appendNull();
    return;
  }
  switch (type) {
    case 'VARCHAR':
    case 'JSON':
    case 'TIMESTAMPTZ': // ISO text; DuckDB parses it exactly (microseconds, offsets)
      appender.appendVarchar(String(value));
      return;
    case 'DOUBLE':
      appender.appendDouble(Number(value));
      return;
    case 'BIGINT':
      appender.appendBigInt(BigInt(value as number));
      return;
    case 'BOOLEAN':
      appender.appendBoolean(Boolean(value));
      return;
    case 'VARCHAR[]':
      appender.appendList(value as readonly string[], VARCHAR_LIST);
      return;
    case 'TOOL_CALL[]':
    case 'MESSAGE_PART[]':
      throw new Error(`${type} columns are filled in SQL by the trial loader, not appended`);
  }
}

/** Appends rows (in the table's column order) within the connection's current transaction. */
export async function appendRows(
  conn: DuckDBConnection,
  table: TableDef,
  rows: readonly Row[],
): Promise<void> {
  if (rows.length === 0) return;
  const appender = await conn.createAppender(table.name);
  try {
    for (const row of rows) {
      table.columns.forEach((column, i) => appendCell(appender, column.type, row[i] ?? null));
      appender.endRow();
    }
    appender.flushSync();
  } catch (error) {
    // Closing a failed appender fails too ("transaction is aborted"): the first error is the cause.
    try {
      appender.closeSync();
    } catch {
      // reported below
    }
    throw error;
  }
  appender.closeSync();
}

/**
 * Runs one memory-heavy step of a load (`work`, a statement or a few) on a single DuckDB thread, then
 * hands the memory it freed back to the operating system.
 *
 * One thread: each DuckDB thread that parses JSON holds its input and parse state (about 80 MB for a
 * 7 MB trial file read whole), none of which can spill to disk. Giving memory back: DuckDB frees a
 * statement's working memory, but the C allocator keeps it resident until DuckDB trims it, which it
 * does when its thread pool is set up again (SET threads). Measured on the million-trial snapshot: one
 * strict-path statement over a 7 MB file left ~100 MB resident after it ended; setting the thread
 * count released it. The instance-wide setting is restored after `work`; while loading, the
 * warehouse's instance serves only the loading connection.
 *
 * When `work` fails inside a transaction DuckDB refuses every statement until ROLLBACK: inTransaction()
 * restores the thread count after its ROLLBACK, and `work`'s error is the one reported.
 */
export async function onOneThread<T>(conn: DuckDBConnection, work: () => Promise<T>): Promise<T> {
  return onThreads(conn, 1, work);
}

/**
 * onOneThread() with at most `threads` DuckDB threads (never more than the connection has): for the
 * statements where a second thread saves more time than its buffers cost (trial-loader.ts).
 */
export async function onThreads<T>(
  conn: DuckDBConnection,
  threads: number,
  work: () => Promise<T>,
): Promise<T> {
  const before = await scalarNumber(conn, "SELECT current_setting('threads')");
  const wanted = Math.max(1, Math.floor(threads));
  if (before > wanted) {
    await conn.run(`SET threads = ${wanted}`);
    reducedThreads.set(conn, before);
  }
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await restoreThreads(conn).catch(() => undefined);
    throw error;
  }
  if (before > wanted) await restoreThreads(conn);
  // Already at most that many threads: set the pool up twice, only to release the memory.
  else await conn.run(`SET threads = ${before + 1}`).then(() => conn.run(`SET threads = ${before}`));
  return result;
}

/** The thread count onOneThread() lowered, per connection, until restored. */
const reducedThreads = new WeakMap<DuckDBConnection, number>();

async function restoreThreads(conn: DuckDBConnection): Promise<void> {
  const before = reducedThreads.get(conn);
  if (before === undefined) return;
  await conn.run(`SET threads = ${before}`);
  reducedThreads.delete(conn);
}

/** First column of the first row, as a number (counts). */
export async function scalarNumber(
  conn: DuckDBConnection,
  sql: string,
  values: (string | number)[] = [],
): Promise<number> {
  const reader = await conn.runAndReadAll(sql, values);
  const value = reader.getRows()[0]?.[0];
  return value === null || value === undefined ? 0 : Number(value);
}
