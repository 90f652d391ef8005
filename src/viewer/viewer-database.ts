/**
 * The viewer's one connection to the warehouse: opened read-only (so it takes no load lock and a
 * running `load` is never blocked by a browser tab), with DuckDB's external access switched off and
 * the configuration locked, so even a SELECT typed on the query page cannot read a file or a URL.
 *
 * Requests take turns on the connection (`exclusive`): DuckDB runs one query per connection at a
 * time, and a turn that overruns its time limit is interrupted (DuckDB's interrupt), so one slow
 * query cannot hold every page.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { CliError } from '../errors.js';
import { rows, type Row } from '../metrics/read-figures.js';
import { openWarehouse, requireDatabase, type Warehouse } from '../warehouse/db.js';
import { checkSchema } from '../warehouse/ddl.js';

export type { Row };

/** A query that ran past its time limit and was interrupted. */
export class QueryTimeoutError extends CliError {
  override readonly name = 'QueryTimeoutError';
}

/** The warehouse as the viewer reads it. */
export interface ViewerDatabase {
  readonly path: string;
  /** Runs `work` alone on the connection, interrupting it after `timeLimitMs`. */
  exclusive<T>(timeLimitMs: number, work: (conn: DuckDBConnection) => Promise<T>): Promise<T>;
  /** Rows of one parameter-bound query (plain values), in its own turn. */
  rows(sql: string, params?: (string | number)[], timeLimitMs?: number): Promise<Row[]>;
  /**
   * The value of `compute` for `key`, computed once while the viewer runs: the database cannot change
   * meanwhile (it is open, and DuckDB's file lock keeps every writer out), so a page's model for the
   * same parameters is the same. At most MEMO_ENTRIES are kept, the oldest dropped first; a failure
   * is not kept.
   */
  memo<T>(key: string, compute: () => Promise<T>): Promise<T>;
  /** Waits for the query in flight, then closes the connection and the database. */
  close(): Promise<void>;
}

/** Models kept by `memo`: a few projects × frameworks, snapshot pairs and the overview. */
export const MEMO_ENTRIES = 64;

/** How long a page's queries may take before they are interrupted. */
export const PAGE_TIME_LIMIT_MS = 15_000;

/** Opens `dbPath` read-only for the viewer; a missing, foreign or newer database fails with one line. */
export async function openViewerDatabase(dbPath: string): Promise<ViewerDatabase> {
  requireDatabase(dbPath);
  const warehouse: Warehouse = await openWarehouse(dbPath, { readOnly: true });
  try {
    await checkSchema(warehouse.conn, dbPath);
    // Files and URLs stay out of reach of any SQL the viewer runs, the query page's included.
    await warehouse.conn.run('SET enable_external_access = false');
    await warehouse.conn.run('SET lock_configuration = true');
  } catch (error) {
    warehouse.close();
    throw error;
  }
  let turn: Promise<unknown> = Promise.resolve();
  let closed = false;
  const exclusive = <T>(timeLimitMs: number, work: (conn: DuckDBConnection) => Promise<T>): Promise<T> => {
    const run = async (): Promise<T> => {
      if (closed) throw new CliError('The viewer is stopping.');
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
    const result = turn.then(run, run);
    turn = result.catch(() => undefined);
    return result;
  };
  const memos = new Map<string, Promise<unknown>>();
  const memo = <T>(key: string, compute: () => Promise<T>): Promise<T> => {
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
      await turn;
      warehouse.close();
    },
  };
}
