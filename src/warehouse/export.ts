/**
 * Exports every warehouse table (message_parts: the view, with every part) as Parquet, Hive-partitioned by the snapshot's date:
 *   DIR/<table>/snapshot_date=YYYY-MM-DD/data_0.parquet
 * (rows without a snapshot — triage journal rows — land in snapshot_date=__HIVE_DEFAULT_PARTITION__,
 * Hive's NULL partition). DuckDB, Spark, Trino/Presto, Athena and pandas/pyarrow read this layout as
 * one table per directory with `snapshot_date` as a partition column.
 *
 * Written to DIR.partial-<pid> first and renamed when complete, so DIR never holds half an export.
 */
import { mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { CliError } from '../errors.js';
import { checkOutputDirectory } from '../output-file.js';
import { openWarehouse, requireDatabase, scalarNumber } from './db.js';
import { checkSchema } from './ddl.js';
import { METRIC_VIEW_NAMES } from './metric-views.js';
import { RELATIONS } from './schema.js';
import { quoteIdent, quoteLiteral } from './sql.js';

/** One exported table: rows and the Parquet partitions written. */
export interface ExportedTable {
  table: string;
  rows: number;
  /** Partition directories written (empty when the table has no rows and was skipped). */
  partitions: string[];
}

/** Where exportParquet wrote and what: one entry per table. */
export interface ExportResult {
  dir: string;
  tables: ExportedTable[];
}

async function ensureEmptyTarget(dir: string): Promise<void> {
  const entries = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (entries === null) return;
  if (entries.length > 0) {
    throw new CliError(
      `${dir} exists and is not empty; export writes a fresh directory. Choose another --out or remove it.`,
    );
  }
  await rmdir(dir);
}

/** Exports all tables (read-only on the database). Tables without rows are listed with rows 0. */
export async function exportParquet(dbPath: string, outDir: string): Promise<ExportResult> {
  const target = path.resolve(outDir);
  const work = `${target}.partial-${process.pid}`;
  requireDatabase(dbPath);
  const warehouse = await openWarehouse(dbPath, { readOnly: true });
  try {
    await checkSchema(warehouse.conn, dbPath);
    // The shared output rules: an existing parent, no link, FIFO or file in the way, no system path.
    await checkOutputDirectory(target);
    await ensureEmptyTarget(target);
    await rm(work, { recursive: true, force: true });
    await mkdir(work, { recursive: true });
    const tables: ExportedTable[] = [];
    // The tables, then the metrics layer's views: the figures as reports, diff and gates define them.
    for (const table of [...RELATIONS, ...METRIC_VIEW_NAMES.map((name) => ({ name }))]) {
      const name = quoteIdent(table.name);
      const rows = await scalarNumber(warehouse.conn, `SELECT count(*) FROM ${name}`);
      if (rows === 0) {
        tables.push({ table: table.name, rows, partitions: [] });
        continue;
      }
      await warehouse.conn.run(
        `COPY (
           SELECT t.*, strftime(s.fetched_at, '%Y-%m-%d') AS snapshot_date
           FROM ${name} t LEFT JOIN snapshots s ON s.snapshot_id = t.snapshot_id
           ORDER BY snapshot_date, t.snapshot_id
         ) TO ${quoteLiteral(path.join(work, table.name))}
         (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (snapshot_date))`,
      );
      const partitions = (await readdir(path.join(work, table.name))).sort();
      tables.push({ table: table.name, rows, partitions });
    }
    await rename(work, target);
    return { dir: target, tables };
  } catch (error) {
    await rm(work, { recursive: true, force: true });
    throw error;
  } finally {
    warehouse.close();
  }
}
