/**
 * Shared row sets (schema version 11, issue 14): the rows a snapshot gives a table are stored once per
 * distinct content, like trial rows (trial-content.ts), and mapped to every snapshot that has them. A
 * night that changed nothing then writes one mapping row per table instead of ~30,000 rows, and the
 * database neither grows nor rewrites its small tables at the load's checkpoint.
 *
 *   rows of table T for snapshot S ─▶ one group per project and assessment, in order
 *     ─▶ per group: key = sha256(T, rows without snapshot_id)
 *     ─▶ key mapped before? ─▶ no: append the rows to stored_T under the key
 *     ─▶ append (S, T, key) to snapshot_row_sets
 *
 * Per project, because a night usually changes some projects and not others: the rows of a project
 * whose summary (or findings, or jobs) did not change are shared even when another project's did.
 * And per assessment in the tables that have one (assessments, attack runs, ASR breakdown, compliance
 * matrix, reports, risk trend, findings, analytics warnings): a project's summary lists all its
 * assessments and changes whenever one is added, but the rows of the assessments already there stay
 * shared (on the large preset, ~1,300 new rows a night instead of ~30,000). Tables without those
 * columns are one group.
 *
 * A row's position in its list (`ordinal`, and an evaluation job's `page` and `page_file`) is not
 * part of what it says, and moves whenever the service lists something new ahead of it (assessments
 * and jobs come newest first): in a group of one row it is kept in the mapping, not in the stored row,
 * so a job or assessment that only moved stays shared (schema 13). Evaluation jobs and their skipped
 * members are grouped per job for the same reason.
 *
 * `T` stays what it was for every query: a view joining stored_T to snapshot_row_sets, with T's
 * columns in T's order, snapshot_id from the mapping, and a position from the mapping where it holds
 * one. Rows that belong to no snapshot (a triage journal's) are the row set `journal`, mapped once
 * with a NULL snapshot_id.
 *
 * Which tables: every table with a snapshot_id except `snapshots` (one row a snapshot) and
 * snapshot_trial_files (already the mapping of trial contents).
 */
import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { appendRows, type CellValue, type Row } from './db.js';
import { ctx, type TableDef } from './schema-core.js';
import { SNAPSHOT_TRIAL_FILES, SNAPSHOTS, TABLES } from './schema.js';
import { quoteIdent, quoteLiteral } from './sql.js';
import type { MemoRowSet } from './summary-memo.js';

/** The row set of rows that belong to no snapshot (triage journal rows). */
export const JOURNAL_ROW_SET = 'journal';

const SNAPSHOT_COLUMN = 'snapshot_id';

/** The tables whose rows are stored as shared row sets (see the module comment). */
export const SHARED_TABLES: readonly TableDef[] = TABLES.filter(
  (t) => t !== SNAPSHOTS && t !== SNAPSHOT_TRIAL_FILES && t.columns.some((c) => c.name === SNAPSHOT_COLUMN),
);

const sharedNames = new Set(SHARED_TABLES.map((t) => t.name));

export function isShared(table: TableDef): boolean {
  return sharedNames.has(table.name);
}

/**
 * Columns that say where a row stood in the list it came from, not what it says (see the module
 * comment): kept in the mapping of a one-row row set, NULL in its stored row.
 */
export const POSITION_COLUMNS = [
  ctx('ordinal', 'BIGINT'),
  ctx('page', 'BIGINT'),
  ctx('page_file', 'VARCHAR'),
];

/** A one-row row set's position in this snapshot (POSITION_COLUMNS order); null: in the stored rows. */
export type Position = readonly CellValue[] | null;

/** The position columns a table has, as indexes into its columns and into POSITION_COLUMNS. */
function positionIndexes(table: TableDef): { column: number; position: number }[] {
  return POSITION_COLUMNS.flatMap((p, position) => {
    const column = table.columns.findIndex((c) => c.name === p.name);
    return column >= 0 ? [{ column, position }] : [];
  });
}

/** Which snapshot has which row set of which table. */
export const SNAPSHOT_ROW_SETS: TableDef = {
  name: 'snapshot_row_sets',
  doc: 'Storage: which row set of each table every snapshot holds (NULL snapshot: triage journal rows).',
  scope: 'content',
  columns: [
    ctx(SNAPSHOT_COLUMN, 'VARCHAR'),
    ctx('relation', 'VARCHAR'),
    ctx('row_set', 'VARCHAR'),
    ctx('rows', 'BIGINT'),
    ...POSITION_COLUMNS,
  ],
};

/** The storage table of a shared table. */
export function storedName(table: TableDef): string {
  return `stored_${table.name}`;
}

/** stored_T: row_set, then T's columns without snapshot_id, in T's order. */
export function storedTable(table: TableDef): TableDef {
  return {
    name: storedName(table),
    doc: `Storage: the rows of ${table.name}, once per distinct row set (query ${table.name}).`,
    scope: 'content',
    columns: [ctx('row_set', 'VARCHAR'), ...table.columns.filter((c) => c.name !== SNAPSHOT_COLUMN)],
  };
}

/** Every storage table of the shared tables (DDL order). */
export const STORED_TABLES: readonly TableDef[] = SHARED_TABLES.map(storedTable);

/** The view that gives T its contract: stored rows with the snapshot_id of every snapshot mapped to them. */
export function sharedTableView(table: TableDef): string {
  const positions = new Set(POSITION_COLUMNS.map((p) => p.name));
  const columns = table.columns.map((c) =>
    c.name === SNAPSHOT_COLUMN
      ? `m.${SNAPSHOT_COLUMN}`
      : positions.has(c.name)
        ? `coalesce(m.${quoteIdent(c.name)}, s.${quoteIdent(c.name)}) AS ${quoteIdent(c.name)}`
        : `s.${quoteIdent(c.name)}`,
  );
  return `
CREATE OR REPLACE VIEW ${table.name} AS
SELECT ${columns.join(', ')}
FROM ${quoteIdent(storedName(table))} s
JOIN snapshot_row_sets m ON m.row_set = s.row_set AND m.relation = ${quoteLiteral(table.name)}`;
}

/** The rows without their snapshot_id (the stored form, and what the key is computed from). */
function withoutSnapshot(table: TableDef, rows: readonly Row[]): Row[] {
  const at = table.columns.findIndex((c) => c.name === SNAPSHOT_COLUMN);
  return rows.map((row) => row.filter((_, i) => i !== at));
}

/** JSON keeps -0, NaN and the infinities apart from 0 and null, so two row sets never collide on them. */
function exactNumbers(_key: string, value: unknown): unknown {
  return typeof value === 'number' && (!Number.isFinite(value) || Object.is(value, -0))
    ? { number: String(value) }
    : value;
}

/** Whether a cell is a number JSON cannot tell apart from another value (see exactNumbers). */
const isInexactNumber = (cell: CellValue): boolean =>
  typeof cell === 'number' && (!Number.isFinite(cell) || Object.is(cell, -0));

/** The key of a table's row set: the sha256 of the table name and its rows, in order. */
export function rowSetKey(table: TableDef, rows: readonly (readonly CellValue[])[]): string {
  // A replacer makes JSON.stringify several times slower (~30k summary rows a night): only rows that
  // hold such a number need it, and the key of every other row set is the same either way.
  const needsReplacer = rows.some((row) => row.some(isInexactNumber));
  return createHash('sha256')
    .update(table.name)
    .update('\n')
    .update(needsReplacer ? JSON.stringify(rows, exactNumbers) : JSON.stringify(rows))
    .digest('hex');
}

/**
 * The columns that say which project, and which assessment or evaluation job, a row belongs to: a
 * table's rows are one row set per distinct value of those it has (none: the table is one group).
 */
const ROW_SET_COLUMNS = ['project_id', 'project_key', 'assessment_id', 'evaluation_id'];

/**
 * `rows` grouped by project and assessment or job (the ROW_SET_COLUMNS the table has, together), each group
 * in the order of its first row and its rows in their order: the same rows always give the same groups.
 */
export function rowSetGroups(table: TableDef, rows: readonly Row[]): Row[][] {
  const at = ROW_SET_COLUMNS.map((name) => table.columns.findIndex((c) => c.name === name)).filter(
    (i) => i >= 0,
  );
  if (at.length === 0) return [[...rows]];
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const owner = JSON.stringify(at.map((i) => row[i] ?? null));
    const group = groups.get(owner);
    if (group) group.push(row);
    else groups.set(owner, [row]);
  }
  return [...groups.values()];
}

/**
 * A snapshot's rows of every shared table, written together within the load's transaction: per
 * project and assessment, the rows only when no snapshot holds the same row set yet, the mapping
 * always. One query finds the row sets already stored and one append writes every mapping: a night
 * keys ~2,000 row sets over ~20 tables, and a query and an appender per table cost more than the
 * few rows most of them store.
 */
export class SnapshotRowSets {
  private readonly sets: { table: TableDef; key: string; stored: Row[]; position: Position }[] = [];
  private readonly mapped: MemoRowSet[] = [];

  constructor(private readonly snapshotId: string) {}

  /**
   * Keys a table's rows of this snapshot; nothing is written before write(). No rows: nothing.
   * `onRowSet` hears each row set the rows form (a summary's memo records them: summary-memo.ts).
   */
  add(table: TableDef, rows: readonly Row[], onRowSet?: (set: MemoRowSet) => void): void {
    if (rows.length === 0) return;
    const at = positionIndexes(table);
    for (const group of rowSetGroups(table, rows)) {
      const [row, position] = group.length === 1 && at.length > 0 ? withoutPosition(group[0]!, at) : [];
      const stored = withoutSnapshot(table, row ? [row] : group);
      const key = rowSetKey(table, stored);
      this.sets.push({ table, key, stored, position: position ?? null });
      onRowSet?.({ relation: table.name, rowSet: key, rows: stored.length, position: position ?? null });
    }
  }

  /** Maps a row set stored before (a summary memo's) to this snapshot, without its rows. */
  map(set: MemoRowSet): void {
    this.mapped.push(set);
  }

  async write(conn: DuckDBConnection): Promise<void> {
    if (this.sets.length === 0 && this.mapped.length === 0) return;
    const mapped = await storedRowSets(
      conn,
      this.sets.map(({ table, key }) => ({ table, key })),
    );
    const toStore = new Map<TableDef, Row[]>();
    for (const { table, key, stored } of this.sets) {
      const id = rowSetId(table.name, key);
      if (mapped.has(id)) continue;
      mapped.add(id);
      const rows = toStore.get(table) ?? [];
      for (const row of stored) rows.push([key, ...row]);
      toStore.set(table, rows);
    }
    for (const [table, rows] of toStore) await appendRows(conn, storedTable(table), rows);
    await appendRows(conn, SNAPSHOT_ROW_SETS, [
      ...this.sets.map(({ table, key, stored, position }) =>
        mappingRow(this.snapshotId, table.name, key, stored.length, position),
      ),
      ...this.mapped.map((set) =>
        mappingRow(this.snapshotId, set.relation, set.rowSet, set.rows, set.position),
      ),
    ]);
  }
}

/** The cells of a position (POSITION_COLUMNS order): all NULL when the rows keep their positions. */
export function positionCells(position: Position): CellValue[] {
  return position ? [...position] : POSITION_COLUMNS.map(() => null);
}

/** A snapshot_row_sets row: the mapping, and the row's position when the row set holds one row. */
function mappingRow(
  snapshotId: string | null,
  relation: string,
  rowSet: string,
  rows: number | null,
  position: Position,
): Row {
  return [snapshotId, relation, rowSet, rows, ...positionCells(position)];
}

/** A row with its position columns NULL, and those columns' values (POSITION_COLUMNS order, null where absent). */
function withoutPosition(row: Row, at: readonly { column: number; position: number }[]): [Row, CellValue[]] {
  const position: CellValue[] = POSITION_COLUMNS.map(() => null);
  const stripped = [...row];
  for (const { column, position: i } of at) {
    position[i] = row[column] ?? null;
    stripped[column] = null;
  }
  return [stripped, position];
}

/** How storedRowSets names a row set of a relation. */
const rowSetId = (relation: string, rowSet: string): string => `${relation}\n${rowSet}`;

/**
 * Which of `sets` some snapshot (or the journal) maps, by rowSetId: one query for all of them. A row
 * set is mapped exactly when its rows are stored (every row set has rows; retention deletes the rows
 * no mapping names, in the transaction that deletes the mappings: deleteUnmappedRowSets), so this
 * looks in the stored tables, which grow with what changed, not in the mappings, which grow with
 * every row set every snapshot holds.
 */
async function storedRowSets(
  conn: DuckDBConnection,
  sets: readonly { table: TableDef; key: string }[],
): Promise<Set<string>> {
  const byTable = new Map<TableDef, Set<string>>();
  for (const { table, key } of sets) {
    const keys = byTable.get(table);
    if (keys) keys.add(key);
    else byTable.set(table, new Set([key]));
  }
  if (byTable.size === 0) return new Set();
  const sql = [...byTable]
    .map(
      ([table, keys]) =>
        `SELECT DISTINCT ${quoteLiteral(table.name)} AS relation, row_set FROM ${quoteIdent(storedName(table))}
         WHERE row_set IN (${[...keys].map(quoteLiteral).join(', ')})`,
    )
    .join(' UNION ALL ');
  const reader = await conn.runAndReadAll(sql);
  return new Set(reader.getRows().map(([relation, rowSet]) => rowSetId(String(relation), String(rowSet))));
}

/**
 * Appends rows that belong to no snapshot (a triage journal's) to a shared table, within the caller's
 * transaction: they join the `journal` row set, mapped once.
 */
export async function appendJournalRows(
  conn: DuckDBConnection,
  table: TableDef,
  rows: readonly Row[],
): Promise<void> {
  if (rows.length === 0) return;
  const stored = withoutSnapshot(table, rows);
  const at = table.columns.findIndex((c) => c.name === SNAPSHOT_COLUMN);
  if (rows.some((row) => row[at] !== null))
    throw new Error(`journal rows of ${table.name} must not name a snapshot`);
  if (
    !(await storedRowSets(conn, [{ table, key: JOURNAL_ROW_SET }])).has(rowSetId(table.name, JOURNAL_ROW_SET))
  )
    await appendRows(conn, SNAPSHOT_ROW_SETS, [mappingRow(null, table.name, JOURNAL_ROW_SET, null, null)]);
  await appendRows(
    conn,
    storedTable(table),
    stored.map((row) => [JOURNAL_ROW_SET, ...row]),
  );
}

/**
 * Deletes the stored rows no snapshot (or journal) maps any more, within the caller's transaction:
 * retention calls it after deleting the pruned snapshots' mappings.
 */
export async function deleteUnmappedRowSets(conn: DuckDBConnection): Promise<void> {
  for (const table of SHARED_TABLES) {
    await conn.run(`DELETE FROM ${quoteIdent(storedName(table))} s WHERE NOT EXISTS (
      SELECT 1 FROM snapshot_row_sets m WHERE m.relation = ${quoteLiteral(table.name)} AND m.row_set = s.row_set)`);
  }
}
