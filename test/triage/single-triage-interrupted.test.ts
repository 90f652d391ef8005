/**
 * A single `triage FINDING_ID` stopped while its PATCH is in flight, as a real child process of the
 * CLI against the simulator (every response delayed, so the signal lands mid-request), then run again
 * with the same command. A tester found the re-run sent the change a second time, adding a duplicate
 * review event: after SIGKILL the journal holds a "sending" line with no outcome, after SIGINT an
 * outcome_unknown line, and the single triage only skipped a change the journal showed applied —
 * while `triage apply` holds such rows back. SIGINT also exited 1 (not 130) and told the operator to
 * send the same command again, which is what duplicated it.
 *
 * What reached the service is counted by the simulator itself: the PATCHes it received for the
 * finding, and the review events carrying this trial's notes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { spawnCli, type CliRun } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { journalFile, readFinding, readJournalLines, run } from './helpers.js';

/** Every response is delayed by this much: the signal is sent while the PATCH waits for its answer. */
const LATENCY_MS = 700;
/** Interrupted single triages per signal, run at once (one finding and one directory each). */
const TRIALS = 3;

let sim: RunningSimulator;
let ids: string[];

beforeAll(async () => {
  sim = await startSimulator({ seed: 23, faults: `latency=${LATENCY_MS}ms` });
  ids = sim.projectKeys.flatMap((key) => sim.truth.findingIds(key)).slice(0, 3 * TRIALS);
  if (ids.length < 3 * TRIALS) throw new Error('the simulator has too few findings for this test');
});
afterAll(async () => {
  await sim.close();
});

interface Trial {
  id: string;
  dir: string;
  argv: string[];
  notes: string;
  child: CliRun;
  /** PATCHes the simulator had received for the finding before the trial. */
  before: number;
}

const patches = (id: string): number => sim.stats().patches[id] ?? 0;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Review events on the service that carry `notes` (each trial's notes are its own). The read is itself
 * a PATCH (with an empty body, which the simulator answers without an event): counted in `patches`.
 */
async function eventsWith(id: string, notes: string): Promise<number> {
  return (await readFinding(sim, id)).review_events.filter((event) => event.reasoning === notes).length;
}

/**
 * Starts `triage ID --status … --notes …` in a child and sends `signal` once its PATCH has reached the
 * simulator, plus a random part of the response delay, so the request is still unanswered. Bounded:
 * gives up waiting after 20 s and signals anyway (the test then fails on the child's exit).
 */
async function interruptedTriage(id: string, signal: NodeJS.Signals, slot: number): Promise<Trial> {
  const dir = await makeTempDir('airt-triage-single-int-');
  const notes = `${signal} trial ${slot}`;
  const argv = ['triage', id, '--status', slot % 2 ? 'remediated' : 'accepted_risk', '--notes', notes];
  const before = patches(id);
  const { child, finished } = spawnCli(argv, {
    cwd: dir,
    env: { AIRT_BASE_URL: sim.url, AIRT_ORG: sim.org, AIRT_WORKSPACE: sim.workspace, AIRT_TOKEN: sim.token },
  });
  let exited = false;
  void finished.then(() => (exited = true));
  for (let waited = 0; !exited && patches(id) === before && waited < 20_000; waited += 5) await sleep(5);
  await sleep(Math.random() * (LATENCY_MS / 2));
  if (!exited) child.kill(signal);
  return { id, dir, argv, notes, child: await finished, before };
}

function interruptedTriages(signal: NodeJS.Signals, offset: number): Promise<Trial[]> {
  return Promise.all(
    Array.from({ length: TRIALS }, (_, slot) => interruptedTriage(ids[offset + slot] ?? '', signal, slot)),
  );
}

/**
 * The re-run of the same command sends nothing, says the earlier outcome is unknown, how to check it
 * and that --resend sends it anyway, and exits 3; the service holds exactly one review event.
 */
async function expectRerunHeldBack(trial: Trial, where: string): Promise<void> {
  const rerun = await run(sim, trial.dir, trial.argv);
  const said = `${where}\nre-run exit ${rerun.code}:\n${rerun.out}${rerun.err}`;
  expect(rerun.code, said).toBe(3);
  expect(rerun.err, said).toContain('Nothing was sent');
  expect(rerun.err, said).toContain(`finding ${trial.id}`);
  expect(rerun.err, said).toContain('outcome unknown');
  expect(rerun.err, said).toContain("finding's review history in the service");
  expect(rerun.err, said).toContain('--resend');
  expect(patches(trial.id) - trial.before, said).toBe(1);
  expect(await eventsWith(trial.id, trial.notes), said).toBe(1);
}

describe('a single triage stopped mid-PATCH, run again', () => {
  it('SIGKILL: the re-run sends nothing (exit 3) and the service has one review event', async () => {
    const trials = await interruptedTriages('SIGKILL', 0);
    await Promise.all(
      trials.map(async (trial) => {
        const where = `finding ${trial.id}: child exit ${trial.child.code ?? trial.child.signal}\n${trial.child.stderr}`;
        expect(trial.child.signal, where).toBe('SIGKILL');
        const lines = await readJournalLines(journalFile(trial.dir), { withSending: true });
        expect(
          lines.map((line) => line.outcome),
          where,
        ).toEqual(['sending']);
        await expectRerunHeldBack(trial, where);
      }),
    );
  });

  it('SIGINT: exits 130 saying the outcome is unknown, and the re-run sends nothing', async () => {
    const trials = await interruptedTriages('SIGINT', TRIALS);
    await Promise.all(
      trials.map(async (trial) => {
        const where = `finding ${trial.id}: child exit ${trial.child.code ?? trial.child.signal}\n${trial.child.stderr}`;
        expect(trial.child.code, where).toBe(130);
        expect(trial.child.stderr, where).toContain('Interrupted by SIGINT');
        expect(trial.child.stderr, where).toContain('may or may not have been applied');
        expect(trial.child.stderr, where).toContain('--resend');
        expect(trial.child.stderr, where).not.toContain('send the same triage command again');
        const lines = await readJournalLines(journalFile(trial.dir), { withSending: true });
        expect(
          lines.map((line) => line.outcome),
          where,
        ).toEqual(['sending', 'outcome_unknown']);
        await expectRerunHeldBack(trial, where);
      }),
    );
  });

  it('SIGTERM exits 143; --resend then sends the change anyway', async () => {
    const trials = await interruptedTriages('SIGTERM', 2 * TRIALS);
    await Promise.all(
      trials.map(async (trial) => {
        const where = `finding ${trial.id}: child exit ${trial.child.code ?? trial.child.signal}\n${trial.child.stderr}`;
        expect(trial.child.code, where).toBe(143);
        expect(trial.child.stderr, where).toContain('Interrupted by SIGTERM');
        await expectRerunHeldBack(trial, where);
      }),
    );
    const [trial] = trials;
    if (trial === undefined) throw new Error('no trial');
    const before = patches(trial.id);
    const resent = await run(sim, trial.dir, [...trial.argv, '--resend']);
    expect(resent.code, resent.err).toBe(0);
    expect(patches(trial.id)).toBe(before + 1);
    // Applied last: the same command now says so and sends nothing (exit 0).
    const again = await run(sim, trial.dir, trial.argv);
    expect(again.code, again.err).toBe(0);
    expect(again.out).toContain('Nothing was sent');
    expect(patches(trial.id)).toBe(before + 1);
    expect(await eventsWith(trial.id, trial.notes)).toBe(2);
  });
});
