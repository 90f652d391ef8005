/**
 * bench/load: `airt-report load` of the simulator's large preset (>= 1,000,000 trials).
 *
 *   1. snapshot (cached): the large preset is snapshotted once with the real CLI into
 *      $TMPDIR/airt-bench-load-cache/ and reused by later runs (delete it to re-take).
 *   2. load: `airt-report load SNAPSHOT --db fresh.duckdb` (the built CLI, bin/) in a child process — wall time, trials/s,
 *      MB/s of trial JSON, peak RSS (VmHWM, sampled while it runs; target < 512 MB).
 *   3. baseline, same run: DuckDB's raw `read_json` of the same trial files into a plain table (auto
 *      detection, the simplest possible ingest); target load <= 1.2x its time.
 *   4. query: the asr_by_category named query over all latest snapshots (target < 500 ms).
 *   5. with `--limits 192MB,160MB,…`: the same load with each `--memory-limit`, to find the lowest
 *      that still loads (the default's headroom) and the peak RSS at each.
 *
 * Prints one JSON line per figure.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Manifest } from '../src/snapshot/manifest.js';
import { readNamedQuery } from '../src/warehouse/named-queries.js';
import { runQuery } from '../src/warehouse/query.js';
import { buildCli, figure, largeSnapshot, rawReadJson, runCli, runCliMeasured } from './_large-snapshot.js';

const limitsArg = process.argv.indexOf('--limits');
const limits = limitsArg > 0 ? (process.argv[limitsArg + 1] ?? '').split(',').filter(Boolean) : [];

buildCli();
const dir = await largeSnapshot();
const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
const trialFiles = manifest.files.filter((f) => f.kind === 'trials');
const trials = trialFiles.reduce((n, f) => n + (f.records ?? 0), 0);
const trialBytes = trialFiles.reduce((n, f) => n + f.bytes, 0);
const work = await mkdtemp(path.join(tmpdir(), 'airt-bench-load-'));
try {
  const db = path.join(work, 'bench.duckdb');
  const load = await runCli(['load', dir, '--db', db, '--quiet']);
  const raw = await rawReadJson(
    trialFiles.map((f) => path.join(dir, f.path)),
    path.join(work, 'raw.duckdb'),
  );
  figure('load_wall', load.wallMs / 1000, 's', { trials, trial_mb: Math.round(trialBytes / 1e6) });
  figure('raw_read_json', raw / 1000, 's');
  figure('load_vs_raw', load.wallMs / raw, 'x', { target: '<= 1.2' });
  figure('load_trials_per_s', trials / (load.wallMs / 1000), 'trials/s');
  figure('load_mb_per_s', trialBytes / 1e6 / (load.wallMs / 1000), 'MB/s');
  if (load.peakRssKb !== null) figure('load_peak_rss', load.peakRssKb / 1024, 'MB', { target: '< 512' });

  const sql = (await readNamedQuery('asr_by_category')).sql;
  const timings: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await runQuery(db, sql);
    timings.push(performance.now() - started);
  }
  const sorted = [...timings].sort((a, b) => a - b);
  figure('asr_by_category_query', sorted[Math.floor(sorted.length / 2)] ?? 0, 'ms', {
    target: '< 500',
    first_ms: Math.round(timings[0] ?? 0),
    includes: 'opening the database read-only',
  });

  let lowest: string | null = null;
  for (const limit of limits) {
    const limitDb = path.join(work, `limit-${limit}.duckdb`);
    const run = await runCliMeasured(['load', dir, '--db', limitDb, '--quiet', '--memory-limit', limit]);
    await rm(limitDb, { force: true });
    const loaded = run.code === 0 || run.code === 3;
    if (loaded) lowest = limit;
    figure(`load_at_${limit}`, (run.peakRssKb ?? 0) / 1024, 'MB', {
      loaded,
      wall_s: Math.round(run.wallMs / 100) / 10,
      ...(loaded ? {} : { error: run.stderr.trim().split('\n')[0] }),
    });
  }
  if (limits.length > 0)
    console.log(JSON.stringify({ figure: 'lowest_working_memory_limit', value: lowest, tried: limits }));
} finally {
  await rm(work, { recursive: true, force: true });
}
