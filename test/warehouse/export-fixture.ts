/**
 * What the export interruption and publishing tests start from: databases of the first fixture
 * snapshot alone and of both, a clean export of both (rows per Parquet file, the reference a rerun
 * must match) and an export of the first alone (the earlier export incremental cases add to).
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { asyncBufferFromFile, parquetMetadataAsync } from 'hyparquet';
import { exportParquet } from '../../src/warehouse/export.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { copyDatabase, FIXTURES } from './helpers.js';

export interface ExportFixture {
  work: string;
  dbFirst: string;
  dbBoth: string;
  /** Rows per Parquet file of a clean export of both snapshots. */
  clean: Record<string, number>;
  /** An export of the first snapshot alone. */
  earlier: string;
}

/** Rows per Parquet file under `dir`, read by an independent reader (hyparquet). */
export async function parquetRows(dir: string): Promise<Record<string, number>> {
  const files = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.parquet')).sort();
  const counted: Record<string, number> = {};
  for (const file of files) {
    const metadata = await parquetMetadataAsync(await asyncBufferFromFile(path.join(dir, file)));
    counted[file] = Number(metadata.num_rows);
  }
  return counted;
}

/** Builds the fixture in a new temp directory named with `prefix`. */
export async function exportFixture(prefix: string): Promise<ExportFixture> {
  const work = await makeTempDir(prefix);
  const dbFirst = path.join(work, 'first.duckdb');
  await loadSnapshots(dbFirst, [FIXTURES.first]);
  const dbBoth = await copyDatabase(dbFirst, path.join(work, 'both.duckdb'));
  await loadSnapshots(dbBoth, [FIXTURES.second]);
  const reference = path.join(work, 'clean');
  await exportParquet(dbBoth, reference);
  const earlier = path.join(work, 'earlier');
  await exportParquet(dbFirst, earlier);
  return { work, dbFirst, dbBoth, clean: await parquetRows(reference), earlier };
}
