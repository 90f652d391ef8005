/**
 * bench/triage-interrupt: interrupted `triage apply` trials and PATCHes received per row.
 *
 * Each trial: a decisions file of ROWS rows, `airt-report triage apply --concurrency 2` as a child
 * process (the real CLI) against the simulator (25 ms per answer), stopped with SIGINT (or SIGKILL)
 * once the simulator has received a random number of the trial's PATCHes, then the same command run
 * again to completion (for SIGKILL: rows left with an unknown outcome are held back, as designed).
 * The simulator counts PATCHes per finding; the target is exactly 1 for every row after SIGINT, and
 * at most 1 (never 2) after SIGKILL. Prints one JSON line per signal with the counts.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startSimulator } from '../src/simulator/index.js';

const TRIALS = Number(process.env.BENCH_TRIALS ?? 25);
const ROWS = 8;
const LATENCY_MS = 25;
const MAIN = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

const sim = await startSimulator({ seed: 9, faults: `latency=${LATENCY_MS}ms` });
const ids = sim.projectKeys.flatMap((key) => sim.truth.findingIds(key)).slice(0, ROWS);
const root = await mkdtemp(path.join(tmpdir(), 'airt-bench-triage-'));

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const received = (): number[] => ids.map((id) => sim.stats().patches[id] ?? 0);

/** Runs the CLI in `cwd`; stops it with `signal` after `stopAfter` PATCHes when a signal is given. */
async function apply(cwd: string, signal?: NodeJS.Signals, stopAfter = 0): Promise<number | null> {
  const child = spawn(
    process.execPath,
    ['--import', TSX, MAIN, 'triage', 'apply', 'd.csv', '--concurrency', '2'],
    {
      cwd,
      env: {
        PATH: process.env.PATH,
        AIRT_BASE_URL: sim.url,
        AIRT_ORG: sim.org,
        AIRT_WORKSPACE: sim.workspace,
        AIRT_TOKEN: sim.token,
      },
      stdio: ['ignore', 'ignore', process.env.BENCH_DEBUG ? 'inherit' : 'ignore'],
    },
  );
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code, killedBy) => {
      if (process.env.BENCH_DEBUG) console.error('child exit', code, killedBy);
      resolve(code);
    }),
  );
  if (signal !== undefined) {
    let done = false;
    void exited.then(() => (done = true));
    const before = received().reduce((a, b) => a + b, 0);
    for (let waited = 0; !done && waited < 20_000; waited += 2) {
      if (received().reduce((a, b) => a + b, 0) - before >= stopAfter) break;
      await sleep(2);
    }
    await sleep(Math.random() * LATENCY_MS);
    if (!done) child.kill(signal);
  }
  return exited;
}

try {
  for (const signal of ['SIGINT', 'SIGKILL'] as const) {
    const histogram: Record<string, number> = {};
    let exitedEarly = 0;
    for (let trial = 0; trial < TRIALS; trial++) {
      const dir = path.join(root, `${signal}-${trial}`);
      await mkdir(dir, { recursive: true });
      await writeFile(
        path.join(dir, 'd.csv'),
        `finding_id,finding_status,notes\n${ids.map((id) => `${id},false_positive,${signal} trial ${trial}`).join('\n')}\n`,
      );
      const before = received();
      const code = await apply(dir, signal, Math.floor(Math.random() * ROWS));
      if (code === 130) exitedEarly++;
      await apply(dir);
      for (const [i, n] of received().entries()) {
        const key = String(n - (before[i] ?? 0));
        histogram[key] = (histogram[key] ?? 0) + 1;
      }
    }
    process.stdout.write(
      `${JSON.stringify({
        figure: `triage apply interrupted by ${signal}, then re-run`,
        trials: TRIALS,
        rows: TRIALS * ROWS,
        rows_by_patches_received: histogram,
        rows_sent_twice: Object.entries(histogram)
          .filter(([n]) => Number(n) > 1)
          .reduce((sum, [, count]) => sum + count, 0),
        ...(signal === 'SIGINT' ? { trials_exiting_130_with_summary: exitedEarly } : {}),
      })}\n`,
    );
  }
} finally {
  await sim.close();
  await rm(root, { recursive: true, force: true });
}
