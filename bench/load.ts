/**
 * bench/load: `airt-report load` of the simulator's large preset (>= 1,000,000 trials).
 *
 *   1. snapshot (cached): the large preset is snapshotted once with the real CLI into
 *      $TMPDIR/airt-bench-load-cache/ and reused by later runs (delete it to re-take).
 *   2. load: `airt-report load SNAPSHOT --db fresh.duckdb` (the built CLI, bin/) in a child process — wall time, trials/s,
 *      MB/s of trial JSON, peak RSS (VmHWM, sampled while it runs; target < 1 GB).
 *   3. baseline, same run: DuckDB's raw `read_json` of the same trial files into a plain table (auto
 *      detection, the simplest possible ingest); target load <= 1.5x its time.
 *   4. query: the asr_by_category named query over all latest snapshots (target < 500 ms).
 *
 * Prints one JSON line per figure.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { startSimulator } from '../src/simulator/index.js';
import type { Manifest } from '../src/snapshot/manifest.js';
import { readNamedQuery } from '../src/warehouse/named-queries.js';
import { runQuery } from '../src/warehouse/query.js';
import { quoteLiteral } from '../src/warehouse/sql.js';

/**
 * The installed CLI (bin/ → dist/), built fresh first: what users run, and its wall time is not
 * inflated by tsx compiling changed sources on a cold cache (that alone added 1.5 s to a load).
 */
const CLI = fileURLToPath(new URL('../bin/airt-report.js', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE = path.join(tmpdir(), 'airt-bench-load-cache');
const TOKEN = 'bench-token';

function figure(name: string, value: number, unit: string, extra: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({ figure: name, value: Math.round(value * 1000) / 1000, unit, ...extra }));
}

async function readHighWaterMarkKb(pid: number): Promise<number | null> {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Runs the CLI in a child process; returns wall time, peak RSS and stdout. */
async function runCli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ wallMs: number; peakRssKb: number | null; stdout: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let peakRssKb: number | null = null;
  const sample = (): void => {
    if (child.pid === undefined) return;
    void readHighWaterMarkKb(child.pid).then((kb) => {
      if (kb !== null) peakRssKb = Math.max(peakRssKb ?? 0, kb);
    });
  };
  const sampler = setInterval(sample, 25);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearInterval(sampler);
  const wallMs = performance.now() - started;
  if (code !== 0 && code !== 3) throw new Error(`airt-report ${args[0]} exited with ${code}:\n${stderr}`);
  return { wallMs, peakRssKb, stdout };
}

/** The cached large snapshot's directory, taking it first when there is none. */
async function largeSnapshot(): Promise<string> {
  const found = await findSnapshot(CACHE);
  if (found) {
    console.error(`using cached snapshot ${found}`);
    return found;
  }
  await rm(CACHE, { recursive: true, force: true });
  await mkdir(CACHE, { recursive: true });
  const sim = await startSimulator({ preset: 'large', token: TOKEN });
  try {
    for (const key of sim.projectKeys) sim.truth.summary(key);
    console.error(`taking the large snapshot (${sim.truth.totalTrialCount()} trials) into ${CACHE} …`);
    const run = await runCli(
      [
        'snapshot',
        '--base-url',
        sim.url,
        '--org',
        sim.org,
        '--workspace',
        sim.workspace,
        '--out',
        CACHE,
        '--quiet',
      ],
      { AIRT_TOKEN: TOKEN },
    );
    console.error(`snapshot took ${(run.wallMs / 1000).toFixed(1)} s`);
  } finally {
    await sim.close();
  }
  const dir = await findSnapshot(CACHE);
  if (!dir) throw new Error(`no finished snapshot under ${CACHE}`);
  return dir;
}

async function findSnapshot(root: string): Promise<string | null> {
  for (const org of await readdir(root).catch(() => [])) {
    for (const ws of await readdir(path.join(root, org)).catch(() => [])) {
      for (const id of await readdir(path.join(root, org, ws)).catch(() => [])) {
        const dir = path.join(root, org, ws, id);
        if (await stat(path.join(dir, 'manifest.json')).catch(() => null)) return dir;
      }
    }
  }
  return null;
}

async function rawReadJson(files: string[], dbFile: string): Promise<number> {
  const instance = await DuckDBInstance.create(dbFile);
  const conn = await instance.connect();
  try {
    const list = `[${files.map(quoteLiteral).join(', ')}]`;
    const started = performance.now();
    await conn.run(
      `CREATE TABLE raw_trials AS SELECT * FROM read_json(${list}, format = 'array', union_by_name = true)`,
    );
    await conn.run('CHECKPOINT');
    return performance.now() - started;
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

execFileSync(
  process.execPath,
  [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
  {
    cwd: ROOT,
    stdio: 'inherit',
  },
);
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
  figure('load_vs_raw', load.wallMs / raw, 'x', { target: '<= 1.5' });
  figure('load_trials_per_s', trials / (load.wallMs / 1000), 'trials/s');
  figure('load_mb_per_s', trialBytes / 1e6 / (load.wallMs / 1000), 'MB/s');
  if (load.peakRssKb !== null) figure('load_peak_rss', load.peakRssKb / 1024, 'MB', { target: '< 1024' });

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
} finally {
  await rm(work, { recursive: true, force: true });
}
