/**
 * Runs SQL against a warehouse opened read-only, and returns plain JSON-safe values: integers as
 * numbers when exact (else decimal strings), timestamps as ISO 8601 text, lists as arrays, JSON
 * columns as their text (or parsed, on request).
 */
import { DuckDBTypeId, type DuckDBConnection, type DuckDBType } from '@duckdb/node-api';
import { CliError, UsageError } from '../errors.js';
import { openWarehouse, requireDatabase } from './db.js';
import { checkSchema } from './ddl.js';

export interface QueryColumn {
  name: string;
  /** DuckDB type as text, e.g. BIGINT, VARCHAR[], TIMESTAMP WITH TIME ZONE. */
  type: string;
  /** The column holds JSON text (DuckDB's JSON type). */
  json: boolean;
}

export interface QueryResult {
  columns: QueryColumn[];
  rows: unknown[][];
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
function oneLineError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message
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

/**
 * Runs `sql`, a single statement, on a read-only connection; more than one is a usage error.
 * `label` names it in errors ("Query failed: …", "Named query @x failed: …").
 */
export async function runQuery(dbPath: string, sql: string, label = 'Query'): Promise<QueryResult> {
  if (sql.trim() === '') throw new UsageError('The SQL is empty: give SQL text, @name or @list.');
  requireDatabase(dbPath);
  const warehouse = await openWarehouse(dbPath, { readOnly: true });
  try {
    await checkSchema(warehouse.conn, dbPath);
    await requireOneStatement(warehouse.conn, sql, label);
    let reader;
    try {
      reader = await warehouse.conn.runAndReadAll(sql);
    } catch (error) {
      throw new QueryError(`${label} failed: ${oneLineError(error)}`, 1, { cause: error });
    }
    const types = reader.columnTypes();
    const columns = reader.columnNames().map((name, i) => {
      const type = types[i];
      return { name, type: type ? type.toString() : 'UNKNOWN', json: type?.alias === 'JSON' };
    });
    const rows = reader
      .getRowsJson()
      .map((row) => row.map((value, i) => (types[i] ? normalize(value, types[i]) : value)));
    return { columns, rows };
  } finally {
    warehouse.close();
  }
}

/** One row of load_warnings, as `load` shows it. */
export interface LoadWarningRow {
  snapshotId: string;
  code: string;
  message: string;
  file: string | null;
}

/**
 * The first `limit` load warnings of the given snapshots: snapshots in the order given, each one's
 * warnings in the order they were recorded. Values are bound, never spliced into the SQL.
 */
export async function readLoadWarnings(
  dbPath: string,
  snapshotIds: readonly string[],
  limit: number,
): Promise<LoadWarningRow[]> {
  const found: LoadWarningRow[] = [];
  if (snapshotIds.length === 0 || limit <= 0) return found;
  requireDatabase(dbPath);
  const warehouse = await openWarehouse(dbPath, { readOnly: true });
  try {
    for (const snapshotId of snapshotIds) {
      if (found.length >= limit) break;
      const reader = await warehouse.conn.runAndReadAll(
        'SELECT code, message, file FROM load_warnings WHERE snapshot_id = $id ORDER BY ordinal LIMIT $limit',
        { id: snapshotId, limit: limit - found.length },
      );
      for (const [code, message, file] of reader.getRowsJson()) {
        found.push({
          snapshotId,
          code: typeof code === 'string' ? code : '',
          message: typeof message === 'string' ? message : '',
          file: typeof file === 'string' ? file : null,
        });
      }
    }
    return found;
  } finally {
    warehouse.close();
  }
}
