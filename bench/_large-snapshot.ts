/**
 * What the load benches share: the built CLI run in a child process with its wall time and peak RSS
 * (VmHWM), the cached snapshot of the simulator's large preset, and DuckDB's raw `read_json` of the
 * same trial files as the same-run baseline; the loader run as `run`'s load step calls it (runLoadStep).
 * bench/load.ts, bench/nightly-load.ts and bench/nightly-snapshot.ts use it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { startSimulator } from '../src/simulator/index.js';
import { quoteLiteral } from '../src/warehouse/sql.js';

/**
 * The installed CLI (bin/ → dist/), built fresh first: what users run, and its wall time is not
 * inflated by tsx compiling changed sources on a cold cache (that alone added 1.5 s to a load).
 */
export const CLI = fileURLToPath(new URL('../bin/airt-report.cjs', import.meta.url));
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CACHE = path.join(tmpdir(), 'airt-bench-load-cache');
export const TOKEN = 'bench-token';

export function figure(name: string, value: number, unit: string, extra: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({ figure: name, value: Math.round(value * 1000) / 1000, unit, ...extra }));
}

export async function readHighWaterMarkKb(pid: number): Promise<number | null> {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** A finished CLI child process: exit code, output, wall time and peak RSS (VmHWM). */
export interface MeasuredRun {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  peakRssKb: number | null;
}

/** Runs the built CLI in a child process, sampling its peak RSS; never throws on the exit code. */
export async function runCliMeasured(args: string[], env: Record<string, string> = {}): Promise<MeasuredRun> {
  return runNodeMeasured([CLI, ...args], env);
}

/** Runs Node with `args` in a child process, sampling its peak RSS; never throws on the exit code. */
async function runNodeMeasured(args: string[], env: Record<string, string>): Promise<MeasuredRun> {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let peakRssKb: number | null = null;
  // VmHWM only grows; sampling often enough catches the last value before the process exits.
  const sample = (): void => {
    if (child.pid === undefined) return;
    void readHighWaterMarkKb(child.pid).then((kb) => {
      if (kb !== null) peakRssKb = Math.max(peakRssKb ?? 0, kb);
    });
  };
  const sampler = setInterval(sample, 25);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearInterval(sampler);
  return { code, stdout, stderr, wallMs: performance.now() - started, peakRssKb };
}

/** Runs the CLI in a child process; returns wall time, peak RSS and stdout (exit 0 or 3, else throws). */
export async function runCli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ wallMs: number; peakRssKb: number | null; stdout: string }> {
  const { code, stdout, stderr, wallMs, peakRssKb } = await runCliMeasured(args, env);
  if (code !== 0 && code !== 3) throw new Error(`airt-report ${args[0]} exited with ${code}:\n${stderr}`);
  return { wallMs, peakRssKb, stdout };
}

/**
 * The built loader, as a scheduled `run` calls it in its load step: `loadSnapshots` in a child process,
 * timed from the call to its return (opening the database, loading, committing, closing). Node's
 * start and the imports (~0.5 s on a 2-core machine) are left out, as a snapshot's time leaves them
 * out (it runs from its manifest's started_at): a `run` pays them once a night, before any step.
 */
const LOAD_STEP = `
const [dir, db] = process.argv.slice(1);
const { loadSnapshots } = await import(${JSON.stringify(new URL('../dist/warehouse/loader.js', import.meta.url).href)});
const started = performance.now();
await loadSnapshots(db, [dir]);
process.stdout.write(JSON.stringify({ ms: performance.now() - started }));
`;

/** loadSnapshots(db, [dir]) as `run`'s load step makes it (LOAD_STEP): its time and peak RSS. */
export async function runLoadStep(
  dir: string,
  db: string,
): Promise<{ ms: number; peakRssKb: number | null }> {
  // The CLI's entry sets the same thread pool size (bin/airt-report.cjs) before anything starts it.
  const run = await runNodeMeasured(['--input-type=module', '-e', LOAD_STEP, dir, db], {
    UV_THREADPOOL_SIZE: '8',
  });
  if (run.code !== 0) throw new Error(`the load step exited with ${run.code}:\n${run.stderr}`);
  return { ms: (JSON.parse(run.stdout) as { ms: number }).ms, peakRssKb: run.peakRssKb };
}

/** The cached large snapshot's directory, taking it first when there is none. */
export async function largeSnapshot(): Promise<string> {
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

export async function findSnapshot(root: string): Promise<string | null> {
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

export async function rawReadJson(files: string[], dbFile: string): Promise<number> {
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

/** Builds dist/ so the CLI timed is the one users install (no tsx compile on a cold cache). */
export function buildCli(): void {
  execFileSync(
    process.execPath,
    [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
}
