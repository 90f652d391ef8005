/**
 * Many reads of one warehouse on one read-only connection. Each `runQuery` opens the file anew (a
 * DuckDB instance, an ATTACH, the schema check: ~50 ms); a test comparing every table of two
 * databases made ~50 such opens (~2.5 s). Opened as `runQuery` opens it (openWarehouse read-only, the
 * schema version checked), so the same views answer; values are DuckDB's JSON conversion of them
 * (what `runQuery` normalizes further: integers as numbers, ISO timestamps), exact for comparisons.
 */
import { openWarehouse, requireDatabase } from '../../src/warehouse/db.js';
import { checkSchema } from '../../src/warehouse/ddl.js';

/** The rows of each statement of `sqls` as objects, in order, read on one read-only connection. */
export async function readEach(db: string, sqls: readonly string[]): Promise<Record<string, unknown>[][]> {
  requireDatabase(db);
  const warehouse = await openWarehouse(db, { readOnly: true });
  try {
    await checkSchema(warehouse.conn, db);
    const results: Record<string, unknown>[][] = [];
    for (const sql of sqls) results.push((await warehouse.conn.runAndReadAll(sql)).getRowObjectsJson());
    return results;
  } finally {
    warehouse.close();
  }
}
