/**
 * bench/load-kill: SIGKILL during a first `load`, at random points. Each trial starts a first load
 * of a fixture snapshot into a fresh database path in a child process and kills it either a random
 * delay after start or a random few ms after a file appears at the database path; then checks what
 * the path holds and that a next load works (test/warehouse/first-load-kill.ts).
 *
 * Figures: trials, trials whose child was really killed mid-load, files left without a schema (must
 * be 0), failed next loads (must be 0). Override the trial count with LOAD_KILL_TRIALS.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { killFirstLoad, type KillTrigger } from '../test/warehouse/first-load-kill.js';

const SNAPSHOT = fileURLToPath(
  new URL('../fixtures/snapshots/acme/main/20260301T060000Z-first', import.meta.url),
);
const TRIALS = Number(process.env.LOAD_KILL_TRIALS ?? 30);
const PARALLEL = 3;

function figure(name: string, value: number, unit: string): void {
  console.log(JSON.stringify({ figure: name, value, unit }));
}

const work = await mkdtemp(path.join(tmpdir(), 'airt-bench-load-kill-'));
try {
  const results = [];
  for (let i = 0; i < TRIALS; i += PARALLEL) {
    const batch = Array.from({ length: Math.min(PARALLEL, TRIALS - i) }, async (_, j) => {
      const n = i + j;
      const trigger: KillTrigger =
        n % 2 === 0
          ? { afterStartMs: Math.floor(Math.random() * 500) }
          : { afterFileMs: Math.floor(Math.random() * 20) };
      const dir = path.join(work, `trial-${n}`);
      await mkdir(dir);
      return killFirstLoad(dir, SNAPSHOT, trigger);
    });
    results.push(...(await Promise.all(batch)));
    console.error(`  ${results.length}/${TRIALS} trials`);
  }
  figure('first_load_kill_trials', results.length, 'trials');
  figure('killed_mid_load', results.filter((r) => r.killed).length, 'trials');
  figure(
    'files_left_with_complete_schema',
    results.filter((r) => r.fileLeft && !r.withoutSchema).length,
    'files',
  );
  figure('files_left_without_schema', results.filter((r) => r.withoutSchema).length, 'files');
  figure('next_load_failed', results.filter((r) => !r.nextLoadOk).length, 'trials');
  if (results.some((r) => r.withoutSchema || !r.nextLoadOk)) process.exitCode = 1;
} finally {
  await rm(work, { recursive: true, force: true });
}
