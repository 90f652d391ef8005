/**
 * bench/nightly-load: what a second night costs the warehouse when nothing changed (issue 14), on the
 * simulator's large preset (>= 1,000,000 trials), all figures measured in this run.
 *
 *   1. snapshot (cached, shared with bench/load.ts): $TMPDIR/airt-bench-load-cache/.
 *   2. day 1: `airt-report load SNAPSHOT --db fresh.duckdb` (the built CLI, a child process): wall
 *      time, peak RSS (VmHWM), database file size and used bytes.
 *   3. day 2, unchanged: the same snapshot under the next day's id (its files hard-linked before day 1's
 *      load and left to settle, its manifest re-sealed; byte for byte what an unchanged service gives)
 *      loaded into the same database: the files are the inodes day 1 hashed, untouched since, so they
 *      are not hashed again (verified_files). Wall time / day 1 (target <= 0.10); growth of the
 *      database's data (used blocks) and of its file / day 1 (target <= 0.05).
 *   4. day 3, unchanged, linked after day 2's load, as a nightly `run --since` links: every link moved
 *      its inode's ctime, so this load hashes the small files again; the trial files, whose content
 *      the database stores, are only checked for size. Wall time / day 1, and the growth of
 *      the file on a night after the first (DuckDB reuses the blocks day 2's checkpoint freed).
 *   5. day 4 as a scheduled `run` takes it: linked just before, verified by the run's verify step
 *      (trial files whose content the database holds checked for size, not hashed), whose result the
 *      load step uses instead of hashing again (both in this process).
 *   6. DuckDB's raw `read_json` of the same trial files into a plain table: load / raw (target <= 1.2).
 *   7. day 5, one project's summary changed (its first assessment renamed), and day 6, every project's
 *      summary changed: the unchanged summaries of day 5 are taken from their memos (summary-memo.ts),
 *      day 6 parses all of them. Each load's wall time, and day 5 / day 6.
 *
 * Days 2 to 4 hold the same files as day 1: their loads map day 1's row sets and trial contents
 * (snapshot-inputs.ts), parsing nothing.
 *
 * Prints one JSON line per figure.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { SETTLED_MS } from '../src/snapshot/file-identity.js';
import { createHash } from 'node:crypto';
import { computeRootHash, type Manifest } from '../src/snapshot/manifest.js';
import { verifySnapshot } from '../src/snapshot/verify.js';
import { loadSnapshots } from '../src/warehouse/loader.js';
import { heldTrialFilesIn } from '../src/warehouse/trial-content.js';
import { buildCli, figure, largeSnapshot, rawReadJson, runCli } from './_large-snapshot.js';

/** The snapshot again as a later day's: files hard-linked, manifest under a new id and time. */
async function nextDay(dir: string, into: string, day: number): Promise<string> {
  const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  const id = `${manifest.snapshot_id}-day${day}`;
  const target = path.join(into, id);
  execFileSync('cp', ['-al', dir, target]);
  await rm(path.join(target, 'manifest.json'));
  const next = { ...manifest, snapshot_id: id };
  next.finished_at = new Date(Date.parse(manifest.finished_at) + (day - 1) * 86_400_000).toISOString();
  next.root_sha256 = computeRootHash(next.files);
  await writeFile(path.join(target, 'manifest.json'), `${JSON.stringify(next, null, 2)}\n`);
  return target;
}

/**
 * nextDay with the project summaries of `projects` (all when 'all') changed: each file replaced (never
 * written through its hard link) by the same summary with its first assessment renamed, the manifest
 * re-sealed with their new sha256 and sizes.
 */
async function nextDayWithSummaries(
  dir: string,
  into: string,
  day: number,
  projects: number | 'all',
): Promise<string> {
  const target = await nextDay(dir, into, day);
  const manifest = JSON.parse(await readFile(path.join(target, 'manifest.json'), 'utf8')) as Manifest;
  const summaries = manifest.files.filter((f) => f.kind === 'project_summary');
  for (const file of projects === 'all' ? summaries : summaries.slice(0, projects)) {
    const full = path.join(target, file.path);
    const body = JSON.parse(await readFile(full, 'utf8')) as { assessments: { name?: unknown }[] };
    const first = body.assessments[0];
    if (first) first.name = `${String(first.name)} (day ${day})`;
    const bytes = Buffer.from(JSON.stringify(body));
    await rm(full);
    await writeFile(full, bytes);
    file.sha256 = createHash('sha256').update(bytes).digest('hex');
    file.bytes = bytes.length;
  }
  manifest.root_sha256 = computeRootHash(manifest.files);
  await writeFile(path.join(target, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
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
// Beside the cache (same file system): the later days' files are hard links.
const work = await mkdtemp(path.join(tmpdir(), 'airt-bench-nightly-'));
try {
  const db = path.join(work, 'nightly.duckdb');
  const day2Dir = await nextDay(day1Dir, work, 2);
  // Settled links (file-identity.ts): day 1's load may record their digests.
  await new Promise((resolve) => setTimeout(resolve, SETTLED_MS + 500));
  const day1 = await runCli(['load', day1Dir, '--db', db, '--quiet']);
  const size1 = await databaseSize(db);
  const day2 = await runCli(['load', day2Dir, '--db', db, '--quiet']);
  const size2 = await databaseSize(db);
  const day3Dir = await nextDay(day1Dir, work, 3);
  const day3 = await runCli(['load', day3Dir, '--db', db, '--quiet']);
  const size3 = await databaseSize(db);
  const raw = await rawReadJson(
    trialFiles.map((f) => path.join(day1Dir, f.path)),
    path.join(work, 'raw.duckdb'),
  );
  figure('day1_load', day1.wallMs / 1000, 's', { trials });
  figure('day2_unchanged_load', day2.wallMs / 1000, 's', { files: 'the inodes day 1 hashed' });
  figure('day2_vs_day1_load', day2.wallMs / day1.wallMs, 'x', { target: '<= 0.10' });
  figure('day3_linked_after_load', day3.wallMs / 1000, 's', { files: 'linked after day 2 (ctime moved)' });
  figure('day3_vs_day1_load', day3.wallMs / day1.wallMs, 'x', { target: '<= 0.10' });
  // What hashing every file would cost (`verify`; the load hashes only the files it may read).
  const verifyStarted = performance.now();
  await verifySnapshot(day3Dir);
  const verifyMs = performance.now() - verifyStarted;
  figure('day3_full_verify', verifyMs / 1000, 's', {
    share_of_day3: Math.round((verifyMs / day3.wallMs) * 100) / 100,
  });
  // Day 4 as a scheduled `run` takes it: linked just before, its verify step hashes every file and
  // hands the result to its load step (in the run's process, so no CLI start in either figure).
  const day4Dir = await nextDay(day1Dir, work, 4);
  const stepStarted = performance.now();
  const day4Manifest = JSON.parse(await readFile(path.join(day4Dir, 'manifest.json'), 'utf8')) as Manifest;
  const verification = await verifySnapshot(day4Dir, { held: await heldTrialFilesIn(db, day4Manifest) });
  const loadStarted = performance.now();
  await loadSnapshots(db, [day4Dir], { verified: new Map([[path.resolve(day4Dir), verification]]) });
  const loadStep = performance.now() - loadStarted;
  figure('day4_run_verify_step', (loadStarted - stepStarted) / 1000, 's');
  figure('day4_run_load_step', loadStep / 1000, 's', {
    files: 'linked just before; verification handed over',
  });
  figure('day4_run_load_step_vs_day1_load', loadStep / day1.wallMs, 'x', { target: '<= 0.10' });
  // Day 5: one project's summary changed (the others as day 1's: memos); day 6: every summary changed.
  const day5Dir = await nextDayWithSummaries(day1Dir, work, 5, 1);
  const day6Dir = await nextDayWithSummaries(day1Dir, work, 6, 'all');
  const day5 = await runCli(['load', day5Dir, '--db', db, '--quiet']);
  const day6 = await runCli(['load', day6Dir, '--db', db, '--quiet']);
  const projects = manifest.files.filter((f) => f.kind === 'project_summary').length;
  figure('day5_one_summary_changed_load', day5.wallMs / 1000, 's', { summaries: projects, changed: 1 });
  figure('day6_every_summary_changed_load', day6.wallMs / 1000, 's', {
    summaries: projects,
    changed: projects,
  });
  figure('day5_vs_day6_load', day5.wallMs / day6.wallMs, 'x', {
    note: 'the unchanged summaries taken from their memos, not parsed',
  });
  figure('day1_db_used', size1.used / 1e6, 'MB', { file_mb: Math.round(size1.file / 1e5) / 10 });
  figure('day2_db_growth_used', (size2.used - size1.used) / size1.used, 'x', { target: '<= 0.05' });
  figure('day2_db_growth_file', (size2.file - size1.file) / size1.file, 'x', {
    target: '<= 0.05',
    note: "DuckDB's checkpoint writes the tables it appended to before freeing their old blocks",
  });
  figure('day3_db_growth_used', (size3.used - size2.used) / size1.used, 'x');
  figure('day3_db_growth_file', (size3.file - size2.file) / size1.file, 'x', {
    note: 'later nights reuse the blocks freed by the night before',
  });
  if (day1.peakRssKb !== null) figure('day1_load_peak_rss', day1.peakRssKb / 1024, 'MB', { target: '< 512' });
  figure('raw_read_json', raw / 1000, 's');
  figure('day1_load_vs_raw', day1.wallMs / raw, 'x', {
    target: '<= 1.2',
    note: 'one pair (0.98-1.34 on a 2-core machine); bench/load quotes the median of 3 rounds',
  });
} finally {
  await rm(work, { recursive: true, force: true });
}
