/** The warehouse's public API: load snapshots and triage journals, query, export. */
export { loadSnapshots, upgradeWarehouse, SnapshotRefusedError, RecordCountError } from './loader.js';
export type {
  LoadOptions,
  LoadProgress,
  LoadResult,
  SnapshotLoadResult,
  UpgradeResult,
  VerifyProblem,
} from './loader.js';
export { loadTriageJournal } from './journal.js';
export type { JournalLoadResult } from './journal.js';
export { runQuery, streamQuery, QueryError } from './query.js';
export type { QueryResult, QueryColumn, QueryStream } from './query.js';
export {
  formatResult,
  writeResult,
  neutralizeCsvCell,
  escapeMarkdownCell,
  OUTPUT_FORMATS,
} from './output-format.js';
export type { OutputFormat, FormatOptions } from './output-format.js';
export { listNamedQueries, readNamedQuery, QUERIES_DIR } from './named-queries.js';
export type { NamedQuery } from './named-queries.js';
export { exportParquet } from './export.js';
export type { ExportResult, ExportedTable } from './export.js';
export { openWarehouse } from './db.js';
export type { Warehouse } from './db.js';
export { SCHEMA_VERSION, ensureSchema } from './ddl.js';
export { RELATIONS as WAREHOUSE_TABLES } from './schema.js';
export type { TableDef, ColumnDef, ColumnType } from './schema.js';
export { MalformedJsonError } from './json-file.js';
