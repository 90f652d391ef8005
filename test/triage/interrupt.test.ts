/**
 * `triage apply` stopped at random points, as a real child process of the CLI against the simulator:
 * SIGINT (Ctrl-C) and SIGKILL. What must hold across the interrupted run and the re-run is counted by
 * the simulator itself (PATCHes received per finding), not by our own journal:
 *
 * - SIGINT: every row reaches the service exactly once — rows in flight are waited for and journaled,
 *   the re-run sends only what is left — and the interrupted run prints its summary and writes the
 *   remaining-rows file.
 * - SIGKILL: no PATCH reaches the service without a journal line written before it left; a row whose
 *   "sending" line has no outcome is outcome_unknown on the re-run and is not sent again.
 *
 * Several children run at once (one directory and one set of findings each) to keep the file fast.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { spawnCli, type CliRun } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { journalFile, readJournalLines, run } from './helpers.js';

const ROWS = 8;
const PARALLEL = 5;
const SIGINT_BATCHES = 2;
const SIGKILL_BATCHES = 2;
/** Every response is delayed by this much, so a signal often lands while PATCHes are in flight. */
const LATENCY_MS = 25;

let sim: RunningSimulator;
let ids: string[];

beforeAll(async () => {
  sim = await startSimulator({ seed: 5, faults: `latency=${LATENCY_MS}ms` });
  ids = sim.projectKeys.flatMap((key) => sim.truth.findingIds(key)).slice(0, ROWS * PARALLEL);
  if (ids.length < ROWS * PARALLEL) throw new Error('the simulator has too few findings for this test');
});
afterAll(async () => {
  await sim.close();
});

interface Trial {
  dir: string;
  file: string;
  ids: string[];
  /** What the interrupted child did, and where it was stopped (for the failure message). */
  child: CliRun;
  stoppedAfter: number;
}

function patches(findingIds: readonly string[]): number[] {
  const received = sim.stats().patches;
  return findingIds.map((id) => received[id] ?? 0);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Starts `triage apply` in a child and sends `signal` once the simulator has received a random number
 * of this trial's PATCHes (0 = possibly before the CLI is even up), plus a random fraction of a
 * response time. Bounded: gives up waiting after 20 s and signals anyway.
 */
async function interruptedApply(batch: number, slot: number, signal: NodeJS.Signals): Promise<Trial> {
  const dir = await makeTempDir('airt-triage-int-');
  const trialIds = ids.slice(slot * ROWS, (slot + 1) * ROWS);
  const rows = trialIds.map((id, i) => [id, i % 2 ? 'accepted_risk' : 'false_positive', `b${batch} r${i}`]);
  const file = 'decisions.csv';
  await writeFile(path.join(dir, file), stringify([['finding_id', 'finding_status', 'notes'], ...rows]));
  const before = patches(trialIds);
  const { child, finished } = spawnCli(['triage', 'apply', file, '--concurrency', '2'], {
    cwd: dir,
    env: { AIRT_BASE_URL: sim.url, AIRT_ORG: sim.org, AIRT_WORKSPACE: sim.workspace, AIRT_TOKEN: sim.token },
  });
  let exited = false;
  void finished.then(() => (exited = true));
  const stopAfter = Math.floor(Math.random() * ROWS);
  const received = (): number => patches(trialIds).reduce((sum, n, i) => sum + n - (before[i] ?? 0), 0);
  for (let waited = 0; !exited && received() < stopAfter && waited < 20_000; waited += 2) await sleep(2);
  await sleep(Math.random() * LATENCY_MS);
  if (!exited) child.kill(signal);
  return { dir, file, ids: trialIds, child: await finished, stoppedAfter: stopAfter };
}

/** Runs `batches` rounds of PARALLEL interrupted trials; `check` sees each trial and the PATCH counts. */
async function trials(
  batches: number,
  signal: NodeJS.Signals,
  check: (trial: Trial, before: number[]) => Promise<void>,
): Promise<void> {
  for (let batch = 0; batch < batches; batch++) {
    // Counts are taken per batch: the findings are reused by the next batch with other notes.
    const before = patches(ids);
    const done = await Promise.all(
      Array.from({ length: PARALLEL }, (_, slot) => interruptedApply(batch, slot, signal)),
    );
    for (const [slot, trial] of done.entries())
      await check(trial, before.slice(slot * ROWS, (slot + 1) * ROWS));
  }
}

describe('triage apply interrupted at random points', () => {
  it('SIGINT: each row reaches the service exactly once across the interrupted run and the re-run', async () => {
    await trials(SIGINT_BATCHES, 'SIGINT', async (trial, before) => {
      const where = `stopped after ${trial.stoppedAfter} PATCH(es); child exit ${trial.child.code ?? trial.child.signal}; stderr:\n${trial.child.stderr}`;
      if (trial.child.code === 130) {
        // The summary names every kind of row, and the rows left to do are in the remaining file.
        expect(trial.child.stderr, where).toMatch(
          /Interrupted by SIGINT: \d+ row\(s\) applied, \d+ failed, \d+ with unknown outcome, \d+ not sent/u,
        );
        expect(trial.child.stderr, where).toContain('decisions.remaining.csv');
        const remaining = await readFile(path.join(trial.dir, 'decisions.remaining.csv'), 'utf8');
        expect(remaining.startsWith('finding_id,'), where).toBe(true);
      }
      const rerun = await run(sim, trial.dir, ['triage', 'apply', trial.file]);
      expect(rerun.code, `${where}\nre-run:\n${rerun.out}${rerun.err}`).toBe(0);
      const sent = patches(trial.ids).map((n, i) => n - (before[i] ?? 0));
      expect(sent, where).toEqual(trial.ids.map(() => 1));
      const lines = await readJournalLines(journalFile(trial.dir));
      expect(
        lines.filter((l) => l.outcome === 'applied'),
        where,
      ).toHaveLength(ROWS);
    });
  });

  it('SIGKILL: nothing reaches the service unjournaled, and an unfinished row is not re-sent blindly', async () => {
    await trials(SIGKILL_BATCHES, 'SIGKILL', async (trial, before) => {
      const where = `stopped after ${trial.stoppedAfter} PATCH(es); child exit ${trial.child.code ?? trial.child.signal}`;
      const afterKill = patches(trial.ids).map((n, i) => n - (before[i] ?? 0));
      const lines = await readJournalLines(journalFile(trial.dir), { withSending: true });
      const journaled = new Set(lines.map((l) => l.finding_id));
      // Every PATCH the service received was journaled (as "sending" at least) before it left.
      for (const [i, id] of trial.ids.entries()) {
        if ((afterKill[i] ?? 0) > 0)
          expect(journaled.has(id), `${where}: ${id} sent, not journaled`).toBe(true);
      }
      const finished = new Set(lines.filter((l) => l.outcome !== 'sending').map((l) => l.finding_id));
      const dangling = trial.ids.filter((id) => journaled.has(id) && !finished.has(id));

      const rerun = await run(sim, trial.dir, ['triage', 'apply', trial.file]);
      // Rows held back as outcome unknown leave the file undone: exit 3 (partial), not 0.
      expect(rerun.code, `${where}\n${rerun.out}${rerun.err}`).toBe(dangling.length > 0 ? 3 : 0);
      if (dangling.length > 0) {
        expect(rerun.out, where).toContain(
          `Unknown outcome in an earlier run, held back (${dangling.length})`,
        );
      }
      const sent = patches(trial.ids).map((n, i) => n - (before[i] ?? 0));
      for (const [i, id] of trial.ids.entries()) {
        // A dangling row is never sent by the re-run (at most the one PATCH that may have left before
        // the kill); every other row ends with exactly one.
        if (dangling.includes(id)) expect(sent[i], `${where}: ${id}`).toBe(afterKill[i]);
        else expect(sent[i], `${where}: ${id}`).toBe(1);
      }
    });
  });
});
