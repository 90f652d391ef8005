/**
 * The viewer's one connection to the warehouse: opened read-only, with DuckDB's external access
 * switched off and the configuration locked, so even a SELECT typed on the query page cannot read a
 * file or a URL.
 *
 * DuckDB locks a database file for as long as any process has it open, read-only included, and a
 * `load` (a nightly `run`) cannot open it meanwhile. So the viewer holds the file only while pages are
 * being answered: it is opened on demand and closed after IDLE_CLOSE_MS without a request, and a load
 * waiting for the lock (its --lock-timeout) gets in then. A page asked for while a load holds the file
 * waits up to OPEN_WAIT_MS, then is answered 503 ("being loaded", Retry-After). A user clicking
 * faster than IDLE_CLOSE_MS would keep the file open for good, so every page first looks for a load
 * waiting for the lock (its waiter note, warehouse-lock.ts) and, when one waits, lets go of the file and
 * gives it its turn before opening again. When the file changed
 * between two openings, every kept model is dropped: pages show the new data.
 *
 * Requests take turns on the connection (`exclusive`): DuckDB runs one query per connection at a
 * time, and a turn that overruns its time limit is interrupted (DuckDB's interrupt), so one slow
 * query cannot hold every page.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { stat } from 'node:fs/promises';
import { CliError } from '../errors.js';
import { rows, type Row } from '../metrics/read-figures.js';
import { openWarehouse, requireDatabase, withoutFileAccess, type Warehouse } from '../warehouse/db.js';
import { checkSchema } from '../warehouse/ddl.js';
import { narrowLatestMetricViews } from '../warehouse/narrow-latest.js';
import { isLockConflict, writerWaiting } from '../warehouse/warehouse-lock.js';

export type { Row };

/** A query that ran past its time limit and was interrupted. */
export class QueryTimeoutError extends CliError {
  override readonly name = 'QueryTimeoutError';
}

/** A load held the database longer than a page may wait for it. */
export class WarehouseBusyError extends CliError {
  override readonly name = 'WarehouseBusyError';
}

/** The warehouse as the viewer reads it. */
export interface ViewerDatabase {
  readonly path: string;
  /** Runs `work` alone on the connection, interrupting it after `timeLimitMs`. */
  exclusive<T>(timeLimitMs: number, work: (conn: DuckDBConnection) => Promise<T>): Promise<T>;
  /** Rows of one parameter-bound query (plain values), in its own turn. */
  rows(sql: string, params?: (string | number)[], timeLimitMs?: number): Promise<Row[]>;
  /**
   * The value of `compute` for `key`, computed once while the database file stays the same (a load
   * between two page views drops every kept value). At most MEMO_ENTRIES are kept, the oldest dropped
   * first; a failure is not kept.
   */
  memo<T>(key: string, compute: () => Promise<T>): Promise<T>;
  /** Waits for the query in flight, then closes the connection and the database. */
  close(): Promise<void>;
}

/** Models kept by `memo`: a few projects × frameworks, snapshot pairs and the overview. */
export const MEMO_ENTRIES = 64;

/** How long a page's queries may take before they are interrupted. */
export const PAGE_TIME_LIMIT_MS = 15_000;

/** Idle time after which the file is closed, so that a waiting `load` can take it. */
export const IDLE_CLOSE_MS = 1_000;

/** How long a page waits for a load that holds the file before it is answered 503. */
export const OPEN_WAIT_MS = 3_000;
const OPEN_RETRY_MS = 100;
/** How often a page looks for a load waiting for the file (a directory listing beside the database). */
const WAITER_CHECK_MS = 250;

/** Opens the file read-only for one session of page views: checked, external access off. */
async function openSession(dbPath: string): Promise<Warehouse> {
  const started = Date.now();
  for (;;) {
    let warehouse: Warehouse;
    try {
      warehouse = await openWarehouse(dbPath, { readOnly: true });
    } catch (error) {
      if (!isLockConflict(error)) throw error;
      if (Date.now() - started >= OPEN_WAIT_MS) {
        throw new WarehouseBusyError(
          'The warehouse is being loaded; this page will be back in a moment.',
          1,
          {
            cause: error,
          },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, OPEN_RETRY_MS));
      continue;
    }
    try {
      await checkSchema(warehouse.conn, dbPath);
      // The pages read latest_metric_* views: narrowed once a session (the file cannot change meanwhile).
      await narrowLatestMetricViews(warehouse.conn);
      // Files and URLs stay out of reach of any SQL the viewer runs, the query page's included.
      await withoutFileAccess(warehouse.conn);
      return warehouse;
    } catch (error) {
      warehouse.close();
      throw error;
    }
  }
}

/**
 * Waits (bounded by OPEN_WAIT_MS) while a load waits for the file the viewer has just let go of: the
 * load retries its open every 100 ms, and a page opening the file first would keep it out again.
 */
async function giveWayToWriter(dbPath: string): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < OPEN_WAIT_MS && (await writerWaiting(dbPath)))
    await new Promise((resolve) => setTimeout(resolve, OPEN_RETRY_MS));
}

/** What identifies the file's contents between sessions: a load or checkpoint changes size or mtime. */
async function fileVersion(dbPath: string): Promise<string> {
  const [db, wal] = await Promise.all([
    stat(dbPath, { bigint: true }),
    stat(`${dbPath}.wal`, { bigint: true }).catch(() => null),
  ]);
  return [db.size, db.mtimeNs, wal?.size ?? '', wal?.mtimeNs ?? ''].join(':');
}

/**
 * Opens `dbPath` for the viewer; a missing, foreign or newer database fails here with one line (it is
 * opened once to check, then held only while pages are answered).
 */
export async function openViewerDatabase(dbPath: string): Promise<ViewerDatabase> {
  requireDatabase(dbPath);
  let session: Warehouse | null = await openSession(dbPath);
  let version = await fileVersion(dbPath);
  let idleTimer: NodeJS.Timeout | null = null;
  let pending = 0;
  let turn: Promise<unknown> = Promise.resolve();
  let closed = false;
  const memos = new Map<string, Promise<unknown>>();

  const release = (): void => {
    session?.close();
    session = null;
  };
  const scheduleRelease = (): void => {
    if (idleTimer !== null) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      idleTimer = null;
      if (pending === 0) release();
    }, IDLE_CLOSE_MS);
    idleTimer.unref();
  };
  // Kept models belong to one version of the file; a load since then drops them all.
  const checkVersion = async (): Promise<void> => {
    const now = await fileVersion(dbPath);
    if (now !== version) memos.clear();
    version = now;
  };
  // A page runs many queries, each acquiring: the waiter notes are looked for at most every
  // WAITER_CHECK_MS (a load retries its open every 100 ms and waits seconds, so it loses nothing).
  let waiterCheckedAt = -Infinity;
  const writerWaits = async (): Promise<boolean> => {
    if (Date.now() - waiterCheckedAt < WAITER_CHECK_MS) return false;
    waiterCheckedAt = Date.now();
    return writerWaiting(dbPath);
  };
  const acquire = async (): Promise<Warehouse> => {
    if (await writerWaits()) {
      // A load waits for the file: let it go, and open again only once the load has it (or gave up).
      release();
      await giveWayToWriter(dbPath);
    }
    if (session !== null) return session;
    session = await openSession(dbPath);
    await checkVersion();
    return session;
  };
  scheduleRelease();

  const exclusive = <T>(timeLimitMs: number, work: (conn: DuckDBConnection) => Promise<T>): Promise<T> => {
    const run = async (): Promise<T> => {
      if (closed) throw new CliError('The viewer is stopping.');
      const warehouse = await acquire();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        warehouse.conn.interrupt();
      }, timeLimitMs);
      try {
        return await work(warehouse.conn);
      } catch (error) {
        if (timedOut) {
          throw new QueryTimeoutError(
            `The query ran longer than ${timeLimitMs / 1000} s and was stopped.`,
            1,
            {
              cause: error,
            },
          );
        }
        throw error;
      } finally {
        clearTimeout(timer);
      }
    };
    pending++;
    const result = turn.then(run, run).finally(() => {
      pending--;
      if (pending === 0 && !closed) scheduleRelease();
    });
    turn = result.catch(() => undefined);
    return result;
  };
  const memo = async <T>(key: string, compute: () => Promise<T>): Promise<T> => {
    // While the file is open no writer can change it; closed, a load may have.
    if (session === null) await checkVersion();
    const kept = memos.get(key);
    if (kept !== undefined) return kept as Promise<T>;
    const value = compute();
    memos.set(key, value);
    if (memos.size > MEMO_ENTRIES) memos.delete(memos.keys().next().value as string);
    value.catch(() => memos.delete(key));
    return value;
  };
  return {
    path: dbPath,
    exclusive,
    memo,
    rows: (sql, params = [], timeLimitMs = PAGE_TIME_LIMIT_MS) =>
      exclusive(timeLimitMs, (conn) => rows(conn, sql, params)),
    async close() {
      if (closed) return;
      closed = true;
      if (idleTimer !== null) clearTimeout(idleTimer);
      await turn;
      release();
    },
  };
}
