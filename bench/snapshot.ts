/**
 * bench/snapshot: throughput and memory of `airt-report snapshot` against the simulator.
 *
 * (a) throughput — 20 ms latency per request, `--concurrency 8`, ~490 requests. Figure: the snapshot's
 *     requests/s over the bare API client's requests/s, both fetching the same recorded responses
 *     (same bytes) from one trivial replay server (bench/_replay-server.ts) in the same round;
 *     target >= 0.90. Timed from the manifest's started_at to the end of publishing.
 * (b) memory — the simulator's large preset (>= 1,000,000 trials): peak RSS of the snapshot process
 *     (VmHWM from /proc/<pid>/status, sampled while it runs), wall time and MB/s; target < 250 MB.
 *
 * The simulator runs in this process and the snapshot in a child process (the installed CLI, bin/ →
 * dist/, built first), so the figures are the CLI's own. Prints one JSON line per figure.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulator, type SimulatorOptions } from '../src/simulator/index.js';
import { buildCli, runCliMeasured } from './_large-snapshot.js';
import { startReplayServer } from './_replay-server.js';
import type { Manifest } from '../src/snapshot/manifest.js';

/** The compiled API client (dist/, built with the CLI at the start), the bare client's code. */
const CLIENT = fileURLToPath(new URL('../dist/api/client.js', import.meta.url));
const TOKEN = 'bench-token';

interface ChildRun {
  code: number | null;
  dir: string;
  wallMs: number;
  peakRssKb: number | null;
  stderr: string;
}

interface Target {
  url: string;
  org: string;
  workspace: string;
}

/** The real CLI's `snapshot` in a child process against `target`, with its peak RSS sampled. */
async function runCli(target: Target, out: string, extra: string[] = []): Promise<ChildRun> {
  const run = await runCliMeasured(
    [
      'snapshot',
      ...['--base-url', target.url, '--org', target.org, '--workspace', target.workspace],
      ...['--out', out, '--quiet', ...extra],
    ],
    { AIRT_TOKEN: TOKEN },
  );
  return { ...run, dir: run.stdout.trim().split('\n').at(-1) ?? '' };
}

/** A snapshot of a simulator started for it (in this process) with `simulator`'s options. */
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
    return await runCli({ url: sim.url, org: sim.org, workspace: sim.workspace }, out, extra);
  } finally {
    await sim.close();
  }
}

/**
 * The baseline: the bare API client (`send`, body discarded, no files, no validation) from a child
 * process, the same client code and concurrency the snapshot uses, sending every request of the
 * snapshot to `url`. Run against the replay server, it gets exactly the bytes the snapshot gets.
 */
async function bareClientRequestsPerSecond(url: string, paths: readonly string[]): Promise<number> {
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
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: {
      PATH: process.env.PATH,
      AIRT_TOKEN: TOKEN,
      BENCH_URL: url,
      BENCH_PATHS: JSON.stringify(paths),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`bare client run failed (${code})`);
  return Number(stdout.trim());
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

function emit(figure: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(figure)}\n`);
}

/** The middle value (the mean of the two middle ones for an even count). */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Rounds of (snapshot, bare client) on the replay server: interleaved so load from elsewhere hits both,
 * and in alternating order (odd rounds run the bare client first) so a load that rises or falls during
 * a round does not always favour the same side. BENCH_ROUNDS sets more on a busy machine.
 */
const THROUGHPUT_ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 5) || 5);
const LATENCY_MS = 20;
const CONCURRENCY = 8;

interface Round {
  snapshot: number;
  trivial: number;
  seconds: number;
  simulatorSnapshot: number;
}

/** sha256 by path of a snapshot's files, as its manifest lists them. */
function hashesOf(manifest: Manifest): string {
  return JSON.stringify(manifest.files.map((file) => [file.path, file.sha256]).sort());
}

// The installed CLI (bin/ → dist/), built fresh: what users run, without tsx compiling the sources
// (and again in each worker thread) inside the timed run.
buildCli();
const root = await mkdtemp(path.join(tmpdir(), 'airt-bench-snapshot-'));
try {
  // (a) throughput at 20 ms latency, concurrency 8. The figure compares two clients on one server:
  // a first snapshot of the simulator is served back byte for byte by a trivial replay server
  // (bench/_replay-server.ts: a timer and a map lookup per request), then the snapshot and the bare
  // API client (same client code, same concurrency, no files, no validation) each fetch every one of
  // those responses from it. Serving the same bytes to both is what makes the ratio the snapshot's
  // own overhead: against the simulator the ratio would include the simulator's CPU per request, and
  // against a server answering `[]` it would leave out the bytes the snapshot must receive. Each
  // round also snapshots the simulator itself (informational). Ratios are taken per round and the
  // median reported, because a shared machine's load moves all runs together but not evenly.
  const throughputWorkspace: SimulatorOptions = {
    seed: 1,
    projects: 4,
    scale: { assessmentsPerProject: 120, attacksPerAssessment: 1, trialsPerAttack: 1, evaluationJobs: 300 },
    faults: `latency=${LATENCY_MS}ms`,
  };
  const sim = await startSimulator({ ...throughputWorkspace, token: TOKEN });
  for (const key of sim.projectKeys) sim.truth.summary(key);
  const target = { org: sim.org, workspace: sim.workspace };
  const concurrency = ['--concurrency', String(CONCURRENCY)];
  const recorded = await runCli({ ...target, url: sim.url }, path.join(root, 'recorded'), concurrency);
  if (recorded.code !== 0) throw new Error(`recording run failed (${recorded.code}): ${recorded.stderr}`);
  const recordedManifest = await manifestOf(recorded.dir);
  const replay = await startReplayServer(recorded.dir, LATENCY_MS);
  const rounds: Round[] = [];
  try {
    for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
      const bareFirst = round % 2 === 1;
      const trivialBefore = bareFirst ? await bareClientRequestsPerSecond(replay.url, replay.paths) : 0;
      const servedBefore = replay.served();
      const dir = path.join(root, `replay-${round}`);
      const run = await runCli({ ...target, url: replay.url }, dir, concurrency);
      if (run.code !== 0) throw new Error(`replay run failed (${run.code}): ${run.stderr}`);
      const manifest = await manifestOf(run.dir);
      // Like with like: the replayed snapshot made exactly the recorded requests and stored the same bytes.
      if (replay.served() - servedBefore !== replay.paths.length || manifest.status !== 'complete')
        throw new Error(
          `the replayed snapshot made ${replay.served() - servedBefore} requests, not ${replay.paths.length}`,
        );
      if (hashesOf(manifest) !== hashesOf(recordedManifest))
        throw new Error('the replayed snapshot stored other bytes than the recorded one');
      const seconds = await publishedSeconds(run.dir, manifest);
      const trivial = bareFirst ? trivialBefore : await bareClientRequestsPerSecond(replay.url, replay.paths);
      const simRun = await runCli(
        { ...target, url: sim.url },
        path.join(root, `simulator-${round}`),
        concurrency,
      );
      if (simRun.code !== 0) throw new Error(`simulator run failed (${simRun.code}): ${simRun.stderr}`);
      const simManifest = await manifestOf(simRun.dir);
      rounds.push({
        snapshot: manifest.files.length / seconds,
        trivial,
        seconds,
        simulatorSnapshot: simManifest.files.length / (await publishedSeconds(simRun.dir, simManifest)),
      });
      // The rounds' directories stay until the end (~15 MB a round): on ext4 without a journal (as
      // this machine mounts it) a new file's inode skips every inode freed in the last minutes, so
      // deleting ~1,000 files here made each later round's ~490 file creations cost up to ~0.8 ms of
      // CPU each (~25 µs when nothing was just deleted): the bench's own cleanup, counted as the
      // snapshot's. Everything is removed once, after the last round. BENCH_DELETE_ROUNDS=1 deletes
      // after each round as before, to compare.
      if (process.env.BENCH_DELETE_ROUNDS === '1') {
        await rm(dir, { recursive: true, force: true });
        await rm(path.join(root, `simulator-${round}`), { recursive: true, force: true });
      }
    }
  } finally {
    await replay.close();
    await sim.close();
  }
  const achieved = median(rounds.map((r) => r.snapshot));
  const ideal = CONCURRENCY / (LATENCY_MS / 1000);
  emit({
    figure: 'snapshot_requests_per_second',
    latency_ms: LATENCY_MS,
    concurrency: CONCURRENCY,
    requests: replay.paths.length,
    body_bytes: replay.bytes,
    rounds: THROUGHPUT_ROUNDS,
    seconds: Number(median(rounds.map((r) => r.seconds)).toFixed(3)),
    requests_per_second: Number(achieved.toFixed(1)),
    ideal_requests_per_second: ideal,
    ratio_of_ideal: Number((achieved / ideal).toFixed(3)),
    trivial_server_requests_per_second: Number(median(rounds.map((r) => r.trivial)).toFixed(1)),
    ratio_of_trivial_server: Number(median(rounds.map((r) => r.snapshot / r.trivial)).toFixed(3)),
    target_ratio_of_trivial_server: 0.9,
    per_round_ratio_of_trivial_server: rounds.map((r) => Number((r.snapshot / r.trivial).toFixed(3))),
    simulator_snapshot_requests_per_second: Number(median(rounds.map((r) => r.simulatorSnapshot)).toFixed(1)),
  });

  // (b) peak RSS on the large preset (`npm run bench -- snapshot --throughput-only` skips it while profiling (a)).
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
