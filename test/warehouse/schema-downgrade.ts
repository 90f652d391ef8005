/** Rewrites a current warehouse into the storage of an earlier schema version (upgrade tests). */
import { SHARED_TABLES } from '../../src/warehouse/row-sets.js';

/**
 * What schema 10 stored: every shared table a plain table again (no row sets). The other warehouse
 * views stay (an upgrade drops and recreates them); the schema version says 10.
 */
export function toVersion10Storage(): string[] {
  return [
    ...SHARED_TABLES.map((t) => `CREATE TABLE v10_${t.name} AS SELECT * FROM ${t.name}`),
    ...SHARED_TABLES.flatMap((t) => [
      `DROP VIEW ${t.name}`,
      `DROP TABLE stored_${t.name}`,
      `ALTER TABLE v10_${t.name} RENAME TO ${t.name}`,
    ]),
    'DROP TABLE snapshot_row_sets',
    // Version 21's table (what retention pruned): none before it.
    'DROP TABLE pruned_snapshots',
  ];
}

/** toVersion10Storage(), recorded as schema version 10. */
export function toVersion10Statements(): string[] {
  return [
    ...toVersion10Storage(),
    'DELETE FROM schema_version',
    `INSERT INTO schema_version VALUES (10, 'test', now(), 'test')`,
  ];
}
