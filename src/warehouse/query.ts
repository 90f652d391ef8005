/**
 * Runs SQL against a warehouse opened read-only, and returns plain JSON-safe values: integers as
 * numbers when exact (else decimal strings), timestamps as ISO 8601 text, lists as arrays, JSON
 * columns as their text (or parsed, on request).
 */
import type { DuckDBConnection, DuckDBType } from '@duckdb/node-api';
import { DuckDBTypeId } from './duckdb-api.js';
import { CliError, UsageError } from '../errors.js';
import { openWarehouse, requireDatabase, withoutFileAccess } from './db.js';
import { checkSchema } from './ddl.js';
import { narrowLatestMetricViews, readsLatestViews } from './narrow-latest.js';

/** A result column: name, DuckDB type and whether it holds JSON. */
export interface QueryColumn {
  name: string;
  /** DuckDB type as text, e.g. BIGINT, VARCHAR[], TIMESTAMP WITH TIME ZONE. */
  type: string;
  /** The column holds JSON text (DuckDB's JSON type). */
  json: boolean;
}

/** A query's whole result in memory (see streamQuery for results too large for that). */
export interface QueryResult {
  columns: QueryColumn[];
  rows: unknown[][];
}

/**
 * A query's result as it arrives: the columns, then rows in batches of about 2,048 (DuckDB's chunk
 * size), so a caller can write a million rows while holding one batch. Iterate `batches` once, inside
 * the `consume` callback of streamQuery (the connection closes when it returns).
 */
export interface QueryStream {
  columns: QueryColumn[];
  batches: AsyncIterable<unknown[][]>;
}

/** An SQL error from DuckDB: the message is DuckDB's own. */
export class QueryError extends CliError {
  override readonly name = 'QueryError';
}

const INTEGER_TYPES = new Set<DuckDBTypeId>([
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.UHUGEINT,
]);

/** `2026-03-15 06:00:52.5+00` → `2026-03-15T06:00:52.5Z` (the session runs in UTC). */
function isoTimestamp(text: string): string {
  return text.replace(' ', 'T').replace(/\+00(?::00)?$/, 'Z');
}

function exactNumber(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) || (Number.isFinite(n) && String(n) === text) ? n : text;
}

/** Converts one value of getRowsJson() by its column type. */
function normalize(value: unknown, type: DuckDBType): unknown {
  if (value === null || value === undefined) return null;
  if (INTEGER_TYPES.has(type.typeId) || type.typeId === DuckDBTypeId.DECIMAL) {
    return typeof value === 'string' ? exactNumber(value) : value;
  }
  switch (type.typeId) {
    case DuckDBTypeId.TIMESTAMP_TZ:
    case DuckDBTypeId.TIMESTAMP:
      return typeof value === 'string' ? isoTimestamp(value) : value;
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY: {
      const child = (type as unknown as { valueType: DuckDBType }).valueType;
      return Array.isArray(value) ? value.map((v) => normalize(v, child)) : value;
    }
    default:
      return value;
  }
}

/**
 * DuckDB's message on one line: its lines (error, hints, `LINE 1: …`) joined by spaces, the caret line
 * (which only points into the line above) left out. The words themselves are DuckDB's, unchanged.
 */
export function oneLineError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // A streamed run splits the SQL first; the splitter's prefix is ours to drop, DuckDB's words stay.
  return message
    .replace(/^Failed to extract statements:\s*/u, '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && line !== '^')
    .join(' ');
}

/**
 * Refuses SQL holding more than one statement: DuckDB would run them all but hand back one result,
 * so the others' would be lost without a word. SQL that DuckDB cannot split (a
 * syntax error, only comments) is left for the run itself to report in DuckDB's words.
 */
async function requireOneStatement(conn: DuckDBConnection, sql: string, label: string): Promise<void> {
  let count: number;
  try {
    count = (await conn.extractStatements(sql)).count;
  } catch {
    return;
  }
  if (count > 1) {
    throw new UsageError(
      `${label} holds ${count} SQL statements, but a query shows one result and the others would be ` +
        'lost. Run one statement per query.',
    );
  }
}

/** Said after DuckDB's words when the query tried to reach a file (withoutFileAccess). */
function externalAccessHint(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return /operations are disabled by configuration/i.test(message)
    ? ' (query reads the warehouse only: it neither reads nor writes other files)'
    : '';
}

/**
 * Runs `sql`, a single statement, on a read-only connection and hands its result to `consume` as a
 * stream of row batches; more than one statement is a usage error. `label` names it in errors
 * ("Query failed: …", "Named query @x failed: …"). The connection is closed when `consume` settles.
 */
export async function streamQuery<T>(
  dbPath: string,
  sql: string,
  label: string,
  consume: (stream: QueryStream) => Promise<T>,
): Promise<T> {
  if (sql.trim() === '') throw new UsageError('The SQL is empty: give SQL text, @name or @list.');
  requireDatabase(dbPath);
  const warehouse = await openWarehouse(dbPath, { readOnly: true });
  try {
    await checkSchema(warehouse.conn, dbPath);
    await requireOneStatement(warehouse.conn, sql, label);
    if (readsLatestViews(sql)) await narrowLatestMetricViews(warehouse.conn);
    await withoutFileAccess(warehouse.conn);
    const failed = (error: unknown): QueryError =>
      new QueryError(`${label} failed: ${oneLineError(error)}${externalAccessHint(error)}`, 1, {
        cause: error,
      });
    let result;
    try {
      result = await warehouse.conn.stream(sql);
    } catch (error) {
      throw failed(error);
    }
    const types = result.columnTypes();
    const columns = result.columnNames().map((name, i) => {
      const type = types[i];
      return { name, type: type ? type.toString() : 'UNKNOWN', json: type?.alias === 'JSON' };
    });
    const source = result;
    async function* batches(): AsyncGenerator<unknown[][]> {
      const chunks = source.yieldRowsJson();
      for (;;) {
        let next: IteratorResult<unknown[][]>;
        try {
          next = await chunks.next();
        } catch (error) {
          // A streamed query can fail part-way (a cast error in row 700,000): same message as up front.
          throw failed(error);
        }
        if (next.done === true) return;
        yield next.value.map((row) => row.map((value, i) => (types[i] ? normalize(value, types[i]) : value)));
      }
    }
    return await consume({ columns, batches: batches() });
  } finally {
    warehouse.close();
  }
}

/** Runs `sql` like streamQuery and returns the whole result in memory: for results of modest size. */
export async function runQuery(dbPath: string, sql: string, label = 'Query'): Promise<QueryResult> {
  return streamQuery(dbPath, sql, label, async ({ columns, batches }) => {
    const rows: unknown[][] = [];
    for await (const batch of batches) for (const row of batch) rows.push(row);
    return { columns, rows };
  });
}
