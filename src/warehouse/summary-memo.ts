/**
 * A project summary whose bytes were loaded before is not parsed again (issue 14: "a file whose sha256
 * is already in the database is not parsed again"). Schema version 12.
 *
 *   summary file ─▶ memo key = sha256(format, airt-report version, the tables' columns, the file's
 *                                      sha256, path and records, the manifest's project entry)
 *     ─▶ memo stored, and every row set it names still mapped? ─▶ yes: map those row sets to this
 *        snapshot, replay its warnings and altered values, take its scope; the file is not read
 *     ─▶ no: parse it (its assessments each with a memo of their own: assessment-memo.ts); its rows
 *        form row sets of their own (never mixed with another file's rows), recorded as its memo when
 *        the load commits, with the memos of its assessments named, not repeated
 *
 * What a summary gives a load is a function of those inputs alone: its rows in the project tables
 * (projects, assessments, attack runs, the summary's findings, …), the warnings it raised and the
 * values it stored altered (in order), its project scope, the ids of its assessments and attack runs
 * (trial files and finding details take their project from them) and its assessment count. Only a
 * verified file is memoized: an unverified one (a forced load) is always read.
 *
 * Retention deletes a memo once any of its row sets is no longer mapped (its rows are gone), and a
 * summary's memo with any assessment memo it names, in the transaction that deletes the mappings: so a
 * stored memo's row sets are always there, and the load only checks that every memo a summary's memo
 * names is stored.
 */
import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ManifestFile } from '../snapshot/manifest.js';
import { VERSION } from '../version.js';
import type { AlteredValue } from './altered-values.js';
import type { ScopeContext } from './assessment-rows.js';
import { appendRows, type CellValue } from './db.js';
import type { LoadWarning, RowCollector } from './row-builder.js';
import { POSITION_COLUMNS, positionCells, SHARED_TABLES, type Position } from './row-sets.js';
import { ROW_FORMAT } from './row-format.js';
import { ASSESSMENTS, ATTACK_RUNS } from './schema.js';
import { ctx, type TableDef } from './schema-core.js';
import type { ProjectEntry } from './summary-rows.js';
import { quoteLiteral } from './sql.js';

/**
 * Bumped whenever what a memo holds changes within one version (how rows are built is ROW_FORMAT, the
 * columns of the tables TABLE_COLUMNS: both are in the key by themselves). 2: row sets carry positions.
 * 3: a summary's memo names its assessments' memos (MEMO_REFERENCE). 4: an assessment's memo is keyed
 * by its bytes and holds its id (assessment-memo.ts).
 */
const MEMO_FORMAT = 4;

/**
 * A summary_memo_row_sets row of this relation names another memo instead of a row set: a summary's
 * memo names each of its assessments' memos (row_set = that memo's key, ordinal = the assessment's
 * index), so their row sets are not listed twice (format 3).
 */
const MEMO_REFERENCE = '@memo';

/** Every shared table's columns and types: rows built for other columns are not this load's rows. */
const TABLE_COLUMNS = createHash('sha256')
  .update(
    JSON.stringify(
      SHARED_TABLES.map((t) => [t.name, t.columns.map((c) => [c.name, c.type, c.from ?? null])]),
    ),
  )
  .digest('hex');

export const SUMMARY_MEMOS: TableDef = {
  name: 'summary_memos',
  doc: 'Internal: what a project summary file, an assessment in one or an evaluation job gave a load, by memo key, so that the same bytes are not parsed or built again.',
  scope: 'content',
  columns: [ctx('memo_key', 'VARCHAR'), ctx('memo', 'VARCHAR')],
};

export const SUMMARY_MEMO_ROW_SETS: TableDef = {
  name: 'summary_memo_row_sets',
  doc: 'Internal: the row sets of each summary memo (relation, row_set, rows, the position of a one-row set).',
  scope: 'content',
  columns: [
    ctx('memo_key', 'VARCHAR'),
    ctx('relation', 'VARCHAR'),
    ctx('row_set', 'VARCHAR'),
    ctx('rows', 'BIGINT'),
    ...POSITION_COLUMNS,
  ],
};

/** A row set a summary's rows formed in one table. */
export interface MemoRowSet {
  relation: string;
  rowSet: string;
  rows: number;
  /** Where its one row stood in the summary (row-sets.ts); null when its rows keep their positions. */
  position: Position;
}

/** What a summary gave a load, besides its rows (stored as the memo's JSON). */
export interface SummaryOutcome {
  /** The project scope without its snapshot_id (the loading snapshot's is put back). */
  scope: Omit<ScopeContext, 'snapshot_id'>;
  assessments: number;
  /** The string ids of its assessments (trial files take their project from them). */
  assessmentIds: string[];
  warnings: LoadWarning[];
  altered: AlteredValue[];
}

export interface SummaryMemo extends SummaryOutcome {
  rowSets: MemoRowSet[];
  /** The ids in its attack runs rows (read from those rows, not stored twice). */
  attackRunIds: string[];
}

/**
 * A memo key: the sha256 of what every memo depends on (the memo format, how rows are built, the
 * airt-report version, the shared tables' columns), the memo's kind and its own facts, then `text`.
 */
export function memoKey(
  kind: 'summary' | 'assessment' | 'evaluation_job',
  facts: unknown,
  text: string | Uint8Array = '',
): string {
  return createHash('sha256')
    .update(
      JSON.stringify({
        format: MEMO_FORMAT,
        rows: ROW_FORMAT,
        version: VERSION,
        columns: TABLE_COLUMNS,
        kind,
        facts,
      }),
    )
    .update('\n')
    .update(text)
    .digest('hex');
}

/** The memo key of a summary file read for `entry` (see the module comment). */
export function summaryMemoKey(file: ManifestFile, entry: ProjectEntry): string {
  return memoKey('summary', {
    file: { path: file.path, sha256: file.sha256, records: file.records ?? null },
    entry: {
      requestedKey: entry.requestedKey,
      manifestProjectId: entry.manifestProjectId,
      manifestStatus: entry.manifestStatus,
      summaryFile: entry.summaryFile,
    },
  });
}

/**
 * The memos stored under `keys`, with their row sets and the ids in their attack_runs rows, and with
 * the memos they name (a summary's assessments') in place: one query for the memos and their row
 * sets, one for the attack runs' ids where a memo has attack_runs rows (a job's memo has none: the ids
 * were a join every lookup paid), and the same again for named memos.
 * A memo naming one that is gone is not usable. Every row set a stored memo names is mapped: retention
 * deletes a memo in the same transaction as the last mapping of any of its row sets
 * (deleteStaleSummaryMemos), and nothing else deletes mappings, so this does not look at the mappings
 * (that scan grows with every night of history, and a load makes one lookup per changed summary).
 */
export async function readSummaryMemos(
  conn: DuckDBConnection,
  keys: readonly string[],
): Promise<Map<string, SummaryMemo>> {
  const found = new Map<string, SummaryMemo>();
  if (keys.length === 0) return found;
  const list = [...new Set(keys)].map(quoteLiteral).join(', ');
  const reader = await conn.runAndReadAll(
    `SELECT m.memo_key, m.memo, r.relation, r.row_set, r.rows,
            ${POSITION_COLUMNS.map((c) => `r.${c.name}`).join(', ')}
     FROM summary_memos m
     LEFT JOIN summary_memo_row_sets r ON r.memo_key = m.memo_key
     WHERE m.memo_key IN (${list})
     ORDER BY m.memo_key, r.relation, r.row_set, r.ordinal`,
  );
  const memos = new Map<
    string,
    {
      outcome: string;
      rowSets: MemoRowSet[];
      references: { key: string; ordinal: number }[];
    }
  >();
  for (const [key, memo, relation, rowSet, rows, ...cells] of reader.getRows()) {
    let entry = memos.get(String(key));
    if (!entry) memos.set(String(key), (entry = { outcome: String(memo), rowSets: [], references: [] }));
    if (relation === null) continue;
    const position = cells.map((v) => (typeof v === 'bigint' ? Number(v) : v)) as CellValue[];
    if (relation === MEMO_REFERENCE) {
      entry.references.push({ key: String(rowSet), ordinal: Number(position[ORDINAL]) });
      continue;
    }
    entry.rowSets.push({ relation: String(relation), rowSet: String(rowSet), rows: Number(rows), position });
  }
  // The ids in their attack runs rows, only where a memo has such rows (a job's memo has none).
  const runIds = await attackRunIds(
    conn,
    [...memos.values()].flatMap((m) => m.rowSets.filter((s) => s.relation === ATTACK_RUNS.name)),
  );
  const referenced = await readSummaryMemos(
    conn,
    [...memos.values()].flatMap((m) => m.references.map((r) => r.key)),
  );
  for (const [key, { outcome, rowSets, references }] of memos) {
    if (!references.every((r) => referenced.has(r.key))) continue;
    const parts = references.map((r) => ({ ...r, memo: referenced.get(r.key)! }));
    found.set(key, {
      ...(JSON.parse(outcome) as SummaryOutcome),
      rowSets: [...rowSets, ...parts.flatMap((part) => placedRowSets(part.memo.rowSets, part.ordinal))],
      attackRunIds: [
        ...rowSets.flatMap((set) => runIds.get(set.rowSet) ?? []),
        ...parts.flatMap((part) => part.memo.attackRunIds),
      ],
    });
  }
  return found;
}

/** The attack run ids in each of these attack_runs row sets' stored rows, in id order: one query. */
async function attackRunIds(
  conn: DuckDBConnection,
  sets: readonly MemoRowSet[],
): Promise<Map<string, string[]>> {
  const ids = new Map<string, string[]>();
  if (sets.length === 0) return ids;
  const reader = await conn.runAndReadAll(
    `SELECT row_set, to_json(list(attack_run_id ORDER BY attack_run_id))::VARCHAR
     FROM stored_attack_runs
     WHERE row_set IN (${[...new Set(sets.map((s) => s.rowSet))].map(quoteLiteral).join(', ')})
       AND attack_run_id IS NOT NULL
     GROUP BY row_set`,
  );
  for (const [rowSet, list] of reader.getRows())
    ids.set(String(rowSet), JSON.parse(String(list)) as string[]);
  return ids;
}

const ORDINAL = POSITION_COLUMNS.findIndex((c) => c.name === 'ordinal');

/** A position with only the ordinal. */
const placedAt = (ordinal: number): Position =>
  POSITION_COLUMNS.map((_, i) => (i === ORDINAL ? ordinal : null));

/**
 * An assessment memo's row sets as a snapshot maps them where it lists the assessment at `ordinal`:
 * the assessment's own row there (its other rows' positions are within the assessment, unchanged).
 */
export function placedRowSets(sets: readonly MemoRowSet[], ordinal: number): MemoRowSet[] {
  return sets.map((set) =>
    set.relation === ASSESSMENTS.name ? { ...set, position: placedAt(ordinal) } : set,
  );
}

/** A summary parsed by this load: what it gave, the row sets its rows formed, the memos it names. */
interface ParsedSummary {
  key: string;
  outcome: SummaryOutcome;
  rowSets: MemoRowSet[];
  references: readonly { key: string; ordinal: number }[];
}

/** Stores memos (within the load's transaction); a key stored already is left as it is. */
async function saveSummaryMemos(conn: DuckDBConnection, parsed: readonly ParsedSummary[]): Promise<void> {
  if (parsed.length === 0) return;
  const list = [...new Set(parsed.map((p) => p.key))].map(quoteLiteral).join(', ');
  const stored = await conn.runAndReadAll(`SELECT memo_key FROM summary_memos WHERE memo_key IN (${list})`);
  const have = new Set(stored.getRows().map(([key]) => String(key)));
  const fresh: ParsedSummary[] = [];
  for (const summary of parsed) {
    if (have.has(summary.key)) continue;
    have.add(summary.key);
    fresh.push(summary);
  }
  await appendRows(
    conn,
    SUMMARY_MEMOS,
    fresh.map(({ key, outcome }) => [key, JSON.stringify(outcome)]),
  );
  await appendRows(
    conn,
    SUMMARY_MEMO_ROW_SETS,
    fresh.flatMap(({ key, rowSets, references }) => [
      ...rowSets.map((s) => [key, s.relation, s.rowSet, s.rows, ...positionCells(s.position)]),
      ...references.map((r) => [key, MEMO_REFERENCE, r.key, null, ...positionCells(placedAt(r.ordinal))]),
    ]),
  );
}

/** Retention: deletes the memos one of whose row sets no snapshot maps any more (within its transaction). */
export async function deleteStaleSummaryMemos(conn: DuckDBConnection): Promise<void> {
  await conn.run(`CREATE OR REPLACE TEMP TABLE stale_summary_memos AS
    SELECT DISTINCT memo_key FROM summary_memo_row_sets r
    WHERE r.relation <> '${MEMO_REFERENCE}'
      AND NOT EXISTS (SELECT 1 FROM snapshot_row_sets m WHERE m.relation = r.relation AND m.row_set = r.row_set)`);
  // A summary's memo goes with any assessment memo it names (references are one level deep).
  await conn.run(`INSERT INTO stale_summary_memos
    SELECT DISTINCT memo_key FROM summary_memo_row_sets r
    WHERE r.relation = '${MEMO_REFERENCE}'
      AND (r.row_set IN (SELECT memo_key FROM stale_summary_memos)
           OR r.row_set NOT IN (SELECT memo_key FROM summary_memos))`);
  await conn.run('DELETE FROM summary_memos WHERE memo_key IN (SELECT memo_key FROM stale_summary_memos)');
  await conn.run(
    'DELETE FROM summary_memo_row_sets WHERE memo_key IN (SELECT memo_key FROM stale_summary_memos)',
  );
  await conn.run('DROP TABLE stale_summary_memos');
}

/** The rows of each table a unit being parsed added to the collector: [start, end) per table. */
type Ranges = Map<string, readonly [number, number]>;

/**
 * A summary, or an assessment within one, being parsed by this load: the collector's row counts when
 * it began, then its rows' ranges and outcome once it is closed, the row sets its own rows formed and,
 * for a summary, the memos of its assessments (named, not repeated: MEMO_REFERENCE).
 */
export interface MemoUnit {
  readonly key: string;
  readonly before: ReadonlyMap<string, number>;
  ranges: Ranges;
  outcome: SummaryOutcome | undefined;
  readonly rowSets: MemoRowSet[];
  /** The assessment memos a summary's memo names, at the assessments' indexes. */
  readonly references: { key: string; ordinal: number }[];
}

/**
 * One snapshot load's use of memos: which summaries (and assessments of changed summaries,
 * assessment-memo.ts) it may take from a memo, and the memos of those it parses.
 */
export class SummaryMemoLoad {
  private readonly memos = new Map<string, SummaryMemo>();
  private readonly units: MemoUnit[] = [];
  /** Summaries taken from a memo (not read). */
  reused = 0;

  /** Reads the usable memos of these keys (one query each for memos and their row sets). */
  async prepare(conn: DuckDBConnection, keys: readonly string[]): Promise<void> {
    for (const [key, memo] of await readSummaryMemos(conn, keys)) this.memos.set(key, memo);
  }

  memoOf(key: string): SummaryMemo | undefined {
    return this.memos.get(key);
  }

  /** The collector's row count per table (where a unit's rows begin). */
  static mark(rows: ReadonlyMap<string, readonly unknown[]>): Map<string, number> {
    return new Map([...rows].map(([table, list]) => [table, list.length]));
  }

  /**
   * Begins a unit whose rows the collector is about to receive (an assessment's begins within its
   * summary's: a unit opened later is the inner one).
   */
  open(key: string, rows: ReadonlyMap<string, readonly unknown[]>): MemoUnit {
    const unit: MemoUnit = {
      key,
      before: SummaryMemoLoad.mark(rows),
      ranges: new Map(),
      outcome: undefined,
      rowSets: [],
      references: [],
    };
    this.units.push(unit);
    return unit;
  }

  /** Ends a unit: the rows it added since open() are its own, and `outcome` is its memo. */
  close(unit: MemoUnit, rows: ReadonlyMap<string, readonly unknown[]>, outcome: SummaryOutcome): void {
    for (const [table, list] of rows) {
      const start = unit.before.get(table) ?? 0;
      if (list.length > start) unit.ranges.set(table, [start, list.length]);
    }
    unit.outcome = outcome;
  }

  /**
   * Collects an item's rows (`collect`) as a unit of its own, memoized with `outcome` unless it raised
   * a warning: a warning names the item's JSON path, which moves with it (an assessment's, a job's).
   * True when it is memoized.
   */
  collectUnit(key: string, sink: RowCollector, collect: () => void, outcome: () => SummaryOutcome): boolean {
    const unit = this.open(key, sink.rows);
    const warningsBefore = sink.warnings.length;
    collect();
    if (sink.warnings.length > warningsBefore) {
      this.discard(unit);
      return false;
    }
    this.close(unit, sink.rows, outcome());
    return true;
  }

  /** Gives up a unit (it will not be memoized): its rows stay those of the unit around it, if any. */
  discard(unit: MemoUnit): void {
    this.units.splice(this.units.indexOf(unit), 1);
  }

  /** Names, in `unit`'s memo, the memo of the assessment it lists at `ordinal` (taken or made now). */
  reference(unit: MemoUnit, key: string, ordinal: number): void {
    unit.references.push({ key, ordinal });
  }

  /**
   * Splits a table's collected rows into the closed units' own (each row to the innermost unit whose
   * range holds it: an assessment's rows are not its summary's part) and the rest; `add` is called
   * once for each part that has rows, with the unit's row sets to record into.
   */
  split<R>(
    table: string,
    rows: readonly R[],
    add: (part: readonly R[], onRowSet?: (set: MemoRowSet) => void) => void,
  ): void {
    const units = this.units.filter((u) => u.outcome !== undefined && u.ranges.has(table));
    if (units.length === 0) {
      add(rows);
      return;
    }
    // Units open in order and nest (an assessment opens after its summary): a later one is inner.
    const owner = new Int32Array(rows.length).fill(-1);
    units.forEach((unit, n) => {
      const [start, end] = unit.ranges.get(table)!;
      owner.fill(n, start, end);
    });
    // One pass (a first load builds every assessment: thousands of units over as many rows).
    const parts: R[][] = units.map(() => []);
    const rest: R[] = [];
    rows.forEach((row, i) => (owner[i] === -1 ? rest : parts[owner[i]!]!).push(row));
    units.forEach((unit, n) => {
      if (parts[n]!.length > 0) add(parts[n]!, (set) => unit.rowSets.push(set));
    });
    if (rest.length > 0) add(rest);
  }

  /** Stores the memos of the units parsed by this load (after its row sets were written). */
  async save(conn: DuckDBConnection): Promise<void> {
    await saveSummaryMemos(
      conn,
      this.units.flatMap(({ key, outcome, rowSets, references }) =>
        outcome ? [{ key, outcome, rowSets, references }] : [],
      ),
    );
  }
}
