/**
 * bench/snapshot: throughput and memory of `airt-report snapshot` against the simulator.
 *
 * (a) throughput — simulator with 20 ms latency per request, `--concurrency 8`, ~490 requests: the
 *     ideal is 8 / 0.020 s = 400 requests/s; target >= 85% of it. Timed from the manifest's
 *     started_at to finished_at (the run itself, not Node's start-up).
 * (b) memory — the simulator's large preset (>= 1,000,000 trials): peak RSS of the snapshot process
 *     (VmHWM from /proc/<pid>/status, sampled while it runs), wall time and MB/s; target < 250 MB.
 *
 * The simulator runs in this process and the snapshot in a child process (the real CLI), so the
 * figures are the CLI's own. Prints one JSON line per figure.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, fetch } from 'undici';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulator, type SimulatorOptions } from '../src/simulator/index.js';
import { apiPaths } from '../src/api/paths.js';
import type { Manifest } from '../src/snapshot/manifest.js';

const MAIN = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const CLIENT = fileURLToPath(new URL('../src/api/client.ts', import.meta.url));
const TOKEN = 'bench-token';

interface ChildRun {
  code: number | null;
  dir: string;
  wallMs: number;
  peakRssKb: number | null;
  stderr: string;
}

async function readHighWaterMarkKb(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

async function runSnapshot(
  simulator: SimulatorOptions,
  out: string,
  extra: string[] = [],
): Promise<ChildRun> {
  const sim = await startSimulator({ ...simulator, token: TOKEN });
  // The simulator computes a project summary on first request (seconds on big projects) and caches
  // it; computing them up front keeps the simulator's own CPU out of the snapshot's timing.
  for (const key of sim.projectKeys) sim.truth.summary(key);
  try {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        MAIN,
        'snapshot',
        '--base-url',
        sim.url,
        '--org',
        sim.org,
        '--workspace',
        sim.workspace,
        '--out',
        out,
        '--quiet',
        ...extra,
      ],
      {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', AIRT_TOKEN: TOKEN },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    let peakRssKb: number | null = null;
    // VmHWM only grows; sampling often enough catches the last value before the process exits.
    const sampler = setInterval(() => {
      void readHighWaterMarkKb(child.pid!).then((kb) => {
        if (kb !== null) peakRssKb = Math.max(peakRssKb ?? 0, kb);
      });
    }, 100);
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    clearInterval(sampler);
    return {
      code,
      dir: stdout.trim().split('\n').at(-1) ?? '',
      wallMs: performance.now() - started,
      peakRssKb,
      stderr,
    };
  } finally {
    await sim.close();
  }
}

/**
 * The environment's ceiling: the same requests sent by the bare API client (`send`, body discarded, no
 * files) from a child process at the same concurrency. The gap between this and 400/s is the
 * simulator's own CPU per request; the gap between this and the snapshot is the snapshot's cost.
 */
async function bareClientRequestsPerSecond(
  simulator: SimulatorOptions,
  paths: readonly string[],
): Promise<number> {
  const sim = await startSimulator({ ...simulator, token: TOKEN });
  for (const key of sim.projectKeys) sim.truth.summary(key);
  try {
    const script = `
      const { createApiClient } = await import(${JSON.stringify(CLIENT)});
      const paths = JSON.parse(process.env.BENCH_PATHS);
      const client = createApiClient({ baseUrl: process.env.BENCH_URL, token: process.env.AIRT_TOKEN, concurrency: 8 });
      const started = performance.now();
      await Promise.all(paths.map((path) => client.send({ method: 'GET', path }, async (response) => {
        for await (const _chunk of response.body) { /* discard */ }
      })));
      console.log(paths.length / ((performance.now() - started) / 1000));
      await client.close();`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: {
        PATH: process.env.PATH,
        AIRT_TOKEN: TOKEN,
        BENCH_URL: sim.url,
        BENCH_PATHS: JSON.stringify(paths),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    if (code !== 0) throw new Error(`bare client run failed (${code})`);
    return Number(stdout.trim());
  } finally {
    await sim.close();
  }
}

async function manifestOf(dir: string): Promise<Manifest> {
  return JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
}

function runSeconds(manifest: Manifest): number {
  return (Date.parse(manifest.finished_at) - Date.parse(manifest.started_at)) / 1000;
}

/**
 * From started_at to the end of publishing: finished_at is taken before the data files are fsynced,
 * the manifest written and the directory renamed, and all of that is part of what a snapshot costs.
 * The rename sets the directory's ctime, so that marks the end (Node's start-up stays out).
 */
async function publishedSeconds(dir: string, manifest: Manifest): Promise<number> {
  const { ctimeMs } = await stat(dir);
  return (Math.max(ctimeMs, Date.parse(manifest.finished_at)) - Date.parse(manifest.started_at)) / 1000;
}

/**
 * What this machine allows at all: a trivial node:http server that answers after a 20 ms timer and the
 * same undici client at concurrency 8, both in this process. Timer and loopback overhead put the
 * ceiling below the theoretical 8 / 0.020 s, so the snapshot's figure is read against it too.
 */
async function trivialServerRequestsPerSecond(requests: number): Promise<number> {
  const server = createServer((_request, response) => {
    setTimeout(() => response.end('[]'), 20);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ connections: 8 });
  try {
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next++ < requests) {
          const response = await fetch(`http://127.0.0.1:${port}/`, { dispatcher: agent });
          await response.text();
        }
      }),
    );
    return requests / ((performance.now() - started) / 1000);
  } finally {
    await agent.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function emit(figure: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(figure)}\n`);
}

/** The middle value (the mean of the two middle ones for an even count). */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Rounds of (trivial server, bare client, snapshot): interleaved so load from elsewhere hits all three. */
const THROUGHPUT_ROUNDS = 5;

const root = await mkdtemp(path.join(tmpdir(), 'airt-bench-snapshot-'));
try {
  // (a) throughput at 20 ms latency, concurrency 8. One trial per list keeps the simulator's CPU
  // per request small, so the figure is about latency and the snapshot's own overhead. The three
  // measurements run interleaved, several rounds; ratios are taken per round and the median reported,
  // because a shared machine's load moves all three together but not evenly over a minute.
  const throughputWorkspace: SimulatorOptions = {
    seed: 1,
    projects: 4,
    scale: { assessmentsPerProject: 120, attacksPerAssessment: 1, trialsPerAttack: 1, evaluationJobs: 300 },
    faults: 'latency=20ms',
  };
  const rounds: { snapshot: number; bare: number; trivial: number; seconds: number; requests: number }[] = [];
  let paths: string[] | undefined;
  for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
    const dir = path.join(root, `throughput-${round}`);
    const run = await runSnapshot(throughputWorkspace, dir, ['--concurrency', '8']);
    if (run.code !== 0) throw new Error(`throughput run failed (${run.code}): ${run.stderr}`);
    const manifest = await manifestOf(run.dir);
    paths ??= manifest.files.map((file) => file.request?.path ?? apiPaths.config());
    const seconds = await publishedSeconds(run.dir, manifest);
    const bare = await bareClientRequestsPerSecond(throughputWorkspace, paths);
    const trivial = await trivialServerRequestsPerSecond(manifest.files.length);
    rounds.push({
      snapshot: manifest.files.length / seconds,
      bare,
      trivial,
      seconds,
      requests: manifest.files.length,
    });
    await rm(dir, { recursive: true, force: true });
  }
  const achieved = median(rounds.map((r) => r.snapshot));
  emit({
    figure: 'snapshot_requests_per_second',
    latency_ms: 20,
    concurrency: 8,
    requests: rounds[0]!.requests,
    rounds: THROUGHPUT_ROUNDS,
    seconds: Number(median(rounds.map((r) => r.seconds)).toFixed(3)),
    requests_per_second: Number(achieved.toFixed(1)),
    ideal_requests_per_second: 400,
    ratio_of_ideal: Number((achieved / 400).toFixed(3)),
    target_ratio: 0.85,
    bare_client_requests_per_second: Number(median(rounds.map((r) => r.bare)).toFixed(1)),
    ratio_of_bare_client: Number(median(rounds.map((r) => r.snapshot / r.bare)).toFixed(3)),
    trivial_server_requests_per_second: Number(median(rounds.map((r) => r.trivial)).toFixed(1)),
    ratio_of_trivial_server: Number(median(rounds.map((r) => r.snapshot / r.trivial)).toFixed(3)),
    target_ratio_of_trivial_server: 0.9,
    per_round_ratio_of_trivial_server: rounds.map((r) => Number((r.snapshot / r.trivial).toFixed(3))),
  });

  // (b) peak RSS on the large preset (`-- --throughput-only` skips it while profiling (a)).
  if (!process.argv.includes('--throughput-only')) await largeWorkspace(root);
} finally {
  await rm(root, { recursive: true, force: true });
}

async function largeWorkspace(root: string): Promise<void> {
  const large = await runSnapshot({ seed: 1, preset: 'large' }, path.join(root, 'large'));
  if (large.code !== 0) throw new Error(`large run failed (${large.code}): ${large.stderr}`);
  const manifest = await manifestOf(large.dir);
  const trials = manifest.files
    .filter((f) => f.kind === 'trials')
    .reduce((sum, f) => sum + (f.records ?? 0), 0);
  const bytes = manifest.files.reduce((sum, f) => sum + f.bytes, 0);
  const largeSeconds = runSeconds(manifest);
  emit({
    figure: 'snapshot_large_workspace',
    trials,
    files: manifest.files.length,
    bytes,
    wall_seconds: Number((large.wallMs / 1000).toFixed(1)),
    run_seconds: Number(largeSeconds.toFixed(1)),
    mb_per_second: Number((bytes / 1e6 / largeSeconds).toFixed(1)),
    peak_rss_mb: large.peakRssKb === null ? null : Number((large.peakRssKb / 1024).toFixed(1)),
    target_peak_rss_mb: 250,
    status: manifest.status,
  });
}
