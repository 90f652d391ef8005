/** The vocabulary of the warehouse's table contract (schema.ts): column and table definitions. */
/**
 * A column's type. TOOL_CALL[] and MESSAGE_PART[] are the lists of a trial's tool calls and parts
 * (see schema-trials.ts); sqlType() spells every type as DuckDB DDL.
 */
export type ColumnType =
  | 'VARCHAR'
  | 'DOUBLE'
  | 'BIGINT'
  | 'BOOLEAN'
  | 'TIMESTAMPTZ'
  | 'JSON'
  | 'VARCHAR[]'
  | 'TOOL_CALL[]'
  | 'MESSAGE_PART[]';

export interface ColumnDef {
  name: string;
  type: ColumnType;
  /** The API body key this column is read from (type-checked). Absent for context columns. */
  from?: string;
}

export interface TableDef {
  name: string;
  /** One line: what a row is. */
  doc: string;
  /**
   * project: has project_id/project_key and gets a `latest_<name>` view. content: storage shared by
   * snapshots (no snapshot_id), read through a view that has one.
   */
  scope: 'snapshot' | 'project' | 'content';
  columns: ColumnDef[];
}

/** A column filled from the API body key of the same name (or `from`). */
export function api(name: string, type: ColumnType, from: string = name): ColumnDef {
  return { name, type, from };
}
/** A column the loader fills from context (ids of parents, ordinals, flags). */
export function ctx(name: string, type: ColumnType): ColumnDef {
  return { name, type };
}

export const SNAPSHOT = ctx('snapshot_id', 'VARCHAR');
const PROJECT = [ctx('project_id', 'VARCHAR'), ctx('project_key', 'VARCHAR')];
export const EXTRA = ctx('extra', 'JSON');

export function projectTable(name: string, doc: string, columns: ColumnDef[]): TableDef {
  return { name, doc, scope: 'project', columns: [SNAPSHOT, ...PROJECT, ...columns, EXTRA] };
}

/** Ordinal of the item in its source array (stable ordering, and part of the row identity). */
export const ORDINAL = ctx('ordinal', 'BIGINT');
export const ASSESSMENT = ctx('assessment_id', 'VARCHAR');
