/**
 * bench/nightly-load: what a second night costs the warehouse when nothing changed (issue 14), on the
 * simulator's large preset (>= 1,000,000 trials), all figures measured in this run.
 *
 *   1. snapshot (cached, shared with bench/load.ts): $TMPDIR/airt-bench-load-cache/.
 *   2. day 1: `airt-report load SNAPSHOT --db fresh.duckdb` (the built CLI, a child process): wall
 *      time, peak RSS (VmHWM), database file size and used bytes.
 *   3. day 2, unchanged: the same snapshot under the next day's id (its files hard-linked, its manifest
 *      re-sealed; byte for byte what an unchanged service gives) loaded into the same database: wall
 *      time / day 1 (target <= 0.10); growth of the database's data (used blocks) and of its file /
 *      day 1 (target <= 0.05; the file grows once more than the data, see below).
 *   4. DuckDB's raw `read_json` of the same trial files into a plain table: load / raw (target <= 1.2).
 *
 * Prints one JSON line per figure.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { computeRootHash, type Manifest } from '../src/snapshot/manifest.js';
import { verifySnapshot } from '../src/snapshot/verify.js';
import { buildCli, figure, largeSnapshot, rawReadJson, runCli } from './_large-snapshot.js';

/** The snapshot again as the next day's: files hard-linked, manifest under a new id and time. */
async function nextDay(dir: string, into: string): Promise<string> {
  const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  const id = `${manifest.snapshot_id}-day2`;
  const target = path.join(into, id);
  execFileSync('cp', ['-al', dir, target]);
  await rm(path.join(target, 'manifest.json'));
  const next = { ...manifest, snapshot_id: id };
  next.finished_at = new Date(Date.parse(manifest.finished_at) + 86_400_000).toISOString();
  next.root_sha256 = computeRootHash(next.files);
  await writeFile(path.join(target, 'manifest.json'), `${JSON.stringify(next, null, 2)}\n`);
  return target;
}

/** The database's data (used blocks) and file size, in bytes. */
async function databaseSize(db: string): Promise<{ used: number; file: number }> {
  const instance = await DuckDBInstance.create(db, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    const reader = await conn.runAndReadAll('SELECT used_blocks, block_size FROM pragma_database_size()');
    const [used, blockSize] = reader.getRows()[0] ?? [0, 0];
    return { used: Number(used) * Number(blockSize), file: (await stat(db)).size };
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

buildCli();
const day1Dir = await largeSnapshot();
const manifest = JSON.parse(await readFile(path.join(day1Dir, 'manifest.json'), 'utf8')) as Manifest;
const trialFiles = manifest.files.filter((f) => f.kind === 'trials');
const trials = trialFiles.reduce((n, f) => n + (f.records ?? 0), 0);
// Beside the cache (same file system): the day-2 snapshot's files are hard links.
const work = await mkdtemp(path.join(tmpdir(), 'airt-bench-nightly-'));
try {
  const db = path.join(work, 'nightly.duckdb');
  const day2Dir = await nextDay(day1Dir, work);
  const day1 = await runCli(['load', day1Dir, '--db', db, '--quiet']);
  const size1 = await databaseSize(db);
  const day2 = await runCli(['load', day2Dir, '--db', db, '--quiet']);
  const size2 = await databaseSize(db);
  const raw = await rawReadJson(
    trialFiles.map((f) => path.join(day1Dir, f.path)),
    path.join(work, 'raw.duckdb'),
  );
  figure('day1_load', day1.wallMs / 1000, 's', { trials });
  figure('day2_unchanged_load', day2.wallMs / 1000, 's');
  figure('day2_vs_day1_load', day2.wallMs / day1.wallMs, 'x', { target: '<= 0.10' });
  // What day 2 still spends: re-hashing every file of the snapshot (load verifies it whole).
  const verifyStarted = performance.now();
  await verifySnapshot(day2Dir);
  figure('day2_verify', (performance.now() - verifyStarted) / 1000, 's', {
    share_of_day2: Math.round(((performance.now() - verifyStarted) / day2.wallMs) * 100) / 100,
  });
  figure('day1_db_used', size1.used / 1e6, 'MB', { file_mb: Math.round(size1.file / 1e5) / 10 });
  figure('day2_db_growth_used', (size2.used - size1.used) / size1.used, 'x', { target: '<= 0.05' });
  figure('day2_db_growth_file', (size2.file - size1.file) / size1.file, 'x', {
    note: "DuckDB's checkpoint writes the tables it appended to before freeing their old blocks; later loads reuse them",
  });
  if (day1.peakRssKb !== null) figure('day1_load_peak_rss', day1.peakRssKb / 1024, 'MB', { target: '< 512' });
  figure('raw_read_json', raw / 1000, 's');
  figure('day1_load_vs_raw', day1.wallMs / raw, 'x', { target: '<= 1.2' });
} finally {
  await rm(work, { recursive: true, force: true });
}
