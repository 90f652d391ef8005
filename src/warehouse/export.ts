/**
 * Exports the warehouse as Parquet for a distributed engine (Spark, Trino, Athena, DuckDB, pyarrow),
 * incrementally: a nightly export into the same directory only adds the new snapshots' partitions.
 *
 *   DIR/<table>/snapshot_id=<id>/data_0.parquet    every relation of the table contract, one partition
 *                                                  per snapshot; written once, never touched again
 *   DIR/<table>/snapshot_id=journal/data_0.parquet rows without a snapshot (triage journal findings and
 *                                                  review events), rewritten by every export
 *   DIR/<view>/data_0.parquet                      "current" views, rewritten by every export: the
 *                                                  metrics layer's metric_* figures, latest_findings
 *                                                  (one row per finding), latest_project_snapshots
 *                                                  (which snapshot is each project's newest) and
 *                                                  latest_analytics_exclusions
 *   DIR/_airt_export.json                          marks the directory as an export (format, time of
 *                                                  the last complete one), written first
 *
 * Hive layout: the partition column `snapshot_id` is in the path, not in the files, as Spark and Trino
 * expect. Snappy compression: Parquet's common default, which every engine and pure-JS readers decode. Timestamps are Parquet TIMESTAMP (UTC); trials.timestamp, text in the API, is exported typed
 * (NULL when it does not parse) with the original text in `timestamp_text`. Each partition and each
 * current view is written into a hidden temp directory beside its place and renamed into it, so a
 * reader (or a killed export) never sees half a partition; a partition that already exists is kept,
 * and the next export removes the temp directories a killed one left.
 * A snapshot's rows never change once loaded, so its partitions stay right; what does change (the
 * newest snapshot per project, current triage status, figures) is in the rewritten current views.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isProcessAlive } from '../process-alive.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import { WordedError, wordsFlags } from '../errors.js';
import { checkOutputDirectory } from '../output-file.js';
import { openWarehouse, requireDatabase, scalarNumber } from './db.js';
import { checkSchema } from './ddl.js';
import { narrowLatestMetricViews } from './narrow-latest.js';
import { METRIC_VIEW_NAMES } from './metric-views.js';
import { RELATIONS, type TableDef } from './schema.js';
import { quoteIdent, quoteLiteral } from './sql.js';

/** One exported table: rows and the Parquet partitions written. */
export interface ExportedTable {
  table: string;
  rows: number;
  /** Partition directories written by this export (a current view: its own directory). */
  partitions: string[];
  /** Partitions already in the directory, kept as they are. */
  kept: number;
}

/** Where exportParquet wrote and what: one entry per table. */
export interface ExportResult {
  dir: string;
  tables: ExportedTable[];
}

const MARKER = '_airt_export.json';
const FORMAT = 'airt-parquet/2';
/** The partition of rows that belong to no snapshot. */
export const JOURNAL_PARTITION = 'journal';
/** Views exported whole, rewritten every time (small, and their rows change as snapshots arrive). */
const CURRENT_VIEWS = [
  'latest_project_snapshots',
  'latest_findings',
  'latest_analytics_exclusions',
  ...METRIC_VIEW_NAMES,
];
/** Text columns of the API that hold timestamps: exported typed, their text kept beside them. */
const TEXT_TIMESTAMPS: Readonly<Record<string, readonly string[]>> = { trials: ['timestamp'] };

/**
 * Row order inside a partition (deterministic files): the trial relations by their keys (sorting a
 * million trials by every column would cost more than writing them), every other relation by all columns.
 */
const ORDER_KEYS: Readonly<Record<string, string>> = {
  trials: 'project_key, assessment_id, trial_ordinal',
  trial_tool_calls: 'project_key, assessment_id, trial_ordinal, call_ordinal',
  message_parts: 'project_key, assessment_id, trial_ordinal, role, part_ordinal',
};

const partitionName = (key: string): string => `snapshot_id=${key}`;
const tempName = (name: string): string => `.${name}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;

/** A new directory, an empty one, or an earlier export (its marker): anything else is refused. */
async function prepareTarget(dir: string): Promise<void> {
  await checkOutputDirectory(dir);
  const entries = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (entries === null) await mkdir(dir);
  else if (entries.length > 0 && !entries.includes(MARKER))
    throw new WordedError(
      (name) =>
        `${dir} is not empty and holds no earlier export (${MARKER}); export writes a new directory or adds to its own. Choose another ${wordsFlags(name) ? name('out') : 'directory'} or remove it.`,
    );
  // Marked before anything is written: an export killed halfway is continued by the next one.
  if (!entries?.includes(MARKER)) await writeMarker(dir, null);
}

async function writeMarker(dir: string, exportedAt: string | null): Promise<void> {
  await writeFile(
    path.join(dir, MARKER),
    `${JSON.stringify({ format: FORMAT, exported_at: exportedAt }, null, 2)}\n`,
  );
}

/** Temp directories of exports whose process is gone (killed): removed, never a live export's. */
async function removeAbandoned(dir: string, entries: readonly string[]): Promise<void> {
  for (const name of entries) {
    const pid = Number(/\.tmp-(\d+)-[0-9a-f]+(?:\.old)?$/.exec(name)?.[1]);
    if (!name.startsWith('.') || !Number.isInteger(pid) || pid <= 0 || isProcessAlive(pid)) continue;
    await rm(path.join(dir, name), { recursive: true, force: true });
  }
}

/** The SELECT list of a relation as exported: snapshot_id left out (it is the partition), timestamps typed. */
function exportColumns(table: TableDef): string {
  const typed = TEXT_TIMESTAMPS[table.name] ?? [];
  return table.columns
    .filter((c) => c.name !== 'snapshot_id')
    .flatMap((c) => {
      const name = quoteIdent(c.name);
      if (!typed.includes(c.name)) return [name];
      return [`TRY_CAST(${name} AS TIMESTAMPTZ) AS ${name}`, `${name} AS ${quoteIdent(`${c.name}_text`)}`];
    })
    .join(', ');
}

/** Writes `select` as DIR/data_0.parquet through a temp directory renamed into place (replacing). */
async function writeDirectory(conn: DuckDBConnection, select: string, dir: string): Promise<void> {
  const temp = path.join(path.dirname(dir), tempName(path.basename(dir)));
  await mkdir(temp, { recursive: true });
  try {
    await conn.run(
      `COPY (${select}) TO ${quoteLiteral(path.join(temp, 'data_0.parquet'))} (FORMAT parquet, COMPRESSION snappy)`,
    );
    // A directory cannot be renamed over a non-empty one: the old one steps aside first.
    const old = (await stat(dir).catch(() => null)) ? `${temp}.old` : null;
    if (old) await rename(dir, old);
    await rename(temp, dir);
    if (old) await rm(old, { recursive: true, force: true });
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
}

/**
 * A current view's SELECT: sums DuckDB types HUGEINT are written as BIGINT (Parquet has no 128-bit
 * integer; DuckDB would write DOUBLE, and a count would read as a float in Spark or Trino).
 */
async function currentSelect(conn: DuckDBConnection, view: string): Promise<string> {
  const described = await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${quoteIdent(view)}`);
  const columns = described.getRows().map(([name, type]) => {
    const column = quoteIdent(String(name));
    return String(type) === 'HUGEINT' ? `CAST(${column} AS BIGINT) AS ${column}` : column;
  });
  return `SELECT ${columns.join(', ')} FROM ${quoteIdent(view)} ORDER BY ALL`;
}

/** One relation: the partitions of snapshots not exported yet, and the journal partition again. */
async function exportRelation(
  conn: DuckDBConnection,
  table: TableDef,
  target: string,
): Promise<ExportedTable> {
  const name = quoteIdent(table.name);
  const rows = await scalarNumber(conn, `SELECT count(*) FROM ${name}`);
  const dir = path.join(target, table.name);
  await mkdir(dir, { recursive: true });
  const entries = await readdir(dir);
  await removeAbandoned(dir, entries);
  const existing = new Set(entries);
  const keys = (
    await conn.runAndReadAll(
      `SELECT DISTINCT coalesce(snapshot_id, '${JOURNAL_PARTITION}') FROM ${name} ORDER BY 1`,
    )
  )
    .getRows()
    .map(([key]) => String(key));
  const written: string[] = [];
  let kept = 0;
  for (const key of keys) {
    const partition = partitionName(key);
    if (key !== JOURNAL_PARTITION && existing.has(partition)) {
      kept++;
      continue;
    }
    const where = key === JOURNAL_PARTITION ? 'snapshot_id IS NULL' : `snapshot_id = ${quoteLiteral(key)}`;
    await writeDirectory(
      conn,
      `SELECT ${exportColumns(table)} FROM ${name} WHERE ${where} ORDER BY ${ORDER_KEYS[table.name] ?? 'ALL'}`,
      path.join(dir, partition),
    );
    written.push(partition);
  }
  // A journal partition whose rows are gone (none left without a snapshot) goes too.
  if (!keys.includes(JOURNAL_PARTITION) && existing.has(partitionName(JOURNAL_PARTITION)))
    await rm(path.join(dir, partitionName(JOURNAL_PARTITION)), { recursive: true, force: true });
  return { table: table.name, rows, partitions: written, kept };
}

/**
 * Exports the warehouse into `outDir` (read-only on the database): a new or empty directory, or one
 * an earlier export wrote, which gets the new partitions (see the module comment).
 */
export async function exportParquet(
  dbPath: string,
  outDir: string,
  now: () => Date = () => new Date(),
): Promise<ExportResult> {
  const target = path.resolve(outDir);
  requireDatabase(dbPath);
  const warehouse = await openWarehouse(dbPath, { readOnly: true });
  try {
    await checkSchema(warehouse.conn, dbPath);
    // latest_findings reads latest_metric_findings.
    await narrowLatestMetricViews(warehouse.conn);
    await prepareTarget(target);
    const tables: ExportedTable[] = [];
    for (const table of RELATIONS) tables.push(await exportRelation(warehouse.conn, table, target));
    for (const view of CURRENT_VIEWS) {
      const rows = await scalarNumber(warehouse.conn, `SELECT count(*) FROM ${quoteIdent(view)}`);
      await writeDirectory(
        warehouse.conn,
        await currentSelect(warehouse.conn, view),
        path.join(target, view),
      );
      tables.push({ table: view, rows, partitions: [view], kept: 0 });
    }
    await writeMarker(target, now().toISOString());
    return { dir: target, tables };
  } finally {
    warehouse.close();
  }
}
