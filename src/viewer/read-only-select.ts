/**
 * A SQL text typed on the query page, run as one read-only SELECT: DuckDB's own parser splits it
 * (extract_statements) and names each statement's type, so anything but a single SELECT (PRAGMA,
 * COPY, ATTACH, SET, EXPORT, CALL …) is refused before it runs. The real guarantee stays the
 * read-only database with external access off (viewer-database.ts); this check gives a clear answer
 * instead of DuckDB's error. Rows stop at `rowCap` (DuckDB streams and stops reading); the turn's
 * time limit interrupts the rest.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { StatementType } from '../warehouse/duckdb-api.js';
import { UsageError } from '../errors.js';
import { oneLineError } from '../warehouse/query.js';

export interface CappedResult {
  columns: string[];
  rows: Record<string, unknown>[];
  /** More rows existed than the cap. */
  truncated: boolean;
}

/** Runs `sql` when it is one SELECT; at most `rowCap` rows. SQL errors come back as UsageErrors. */
export async function runReadOnlySelect(
  conn: DuckDBConnection,
  sql: string,
  rowCap: number,
): Promise<CappedResult> {
  let statements;
  try {
    statements = await conn.extractStatements(sql);
  } catch (error) {
    throw new UsageError(`The SQL does not parse: ${oneLineError(error)}`);
  }
  if (statements.count !== 1) {
    throw new UsageError(`The query page runs one SELECT statement; this SQL holds ${statements.count}.`);
  }
  // Refused by their first word, before DuckDB binds them: it prepares a PRAGMA as the SELECT of a
  // pragma function (PRAGMA database_list named the database file's path), and COPY … TO or EXPORT
  // DATABASE fail while bound (file access is off) with an error that did not say why.
  if (/^(PRAGMA|COPY|EXPORT|IMPORT)\b/iu.test(withoutLeadingComments(sql))) throw new UsageError(SELECT_ONLY);
  try {
    const prepared = await statements.prepare(0);
    if (prepared.statementType !== StatementType.SELECT) throw new UsageError(SELECT_ONLY);
    const reader = await prepared.streamAndReadUntil(rowCap + 1);
    const rows = reader.getRowObjectsJson() as Record<string, unknown>[];
    return { columns: reader.columnNames(), rows: rows.slice(0, rowCap), truncated: rows.length > rowCap };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`The query failed: ${oneLineError(error)}`);
  }
}

const SELECT_ONLY = 'The query page runs SELECT statements only: the warehouse is read-only here.';

/** `sql` from its first token: leading whitespace and -- or block comments removed. */
function withoutLeadingComments(sql: string): string {
  let rest = sql;
  for (;;) {
    const trimmed = rest.replace(/^\s+/u, '');
    if (trimmed.startsWith('--')) rest = trimmed.replace(/^--[^\n]*(\n|$)/u, '');
    else if (trimmed.startsWith('/*')) {
      const end = trimmed.indexOf('*/');
      rest = end === -1 ? '' : trimmed.slice(end + 2);
    } else return trimmed;
  }
}
