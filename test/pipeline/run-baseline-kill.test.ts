/**
 * The baseline record under SIGKILL and SIGINT at random points of a real `run` process: it is always
 * either the old record or the new one (written atomically, never corrupt), and it names the new
 * snapshot only when that run had finished every step.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatedBaselinePath, readGatedBaseline } from '../../src/pipeline/gated-baseline.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { spawnCli, type CliRun } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { prng } from '../helpers/prng.js';

const SCALE = { assessmentsPerProject: 3, attacksPerAssessment: 4, trialsPerAttack: 5, evaluationJobs: 20 };
const TRIALS = 6;

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ projects: 1, scale: SCALE });
});
afterAll(async () => {
  await sim.close();
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The unfinished snapshot directories in `dir` (a killed run leaves its own behind). */
async function partials(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter((name) => name.endsWith('.partial'));
}

describe('the gated baseline when `run` is killed', () => {
  // Each trial is a real process (tsx start-up included), so this test needs more than the default.
  it(
    'is the old record or the new one, and new only after a run that finished every step',
    { timeout: 90_000 },
    async () => {
      const dir = await makeTempDir('airt-base-kill-');
      const config = path.join(dir, 'airt-report.json');
      await writeFile(
        config,
        JSON.stringify({
          connection: { base_url: sim.url, org: sim.org, workspace: sim.workspace },
          // No reports: they only make each run slower; the steps around the record are what matter.
          reports: [],
          gates: ['overall_asr <= 1'],
        }),
      );
      const database = path.join(dir, 'airt.duckdb');
      const baselineFile = gatedBaselinePath(database);
      const workspaceDir = path.join(dir, 'snapshots', sim.org, sim.workspace);
      const run = (): ReturnType<typeof spawnCli> =>
        spawnCli(['run', '--config', config, '--quiet'], { env: { AIRT_TOKEN: sim.token } });
      const baselineId = async (): Promise<string | null> =>
        (await readGatedBaseline(database, sim.org, sim.workspace))?.snapshot_id ?? null;

      // An undisturbed run sets the first baseline and tells how long the steps take (start-up aside).
      const first = await run().finished;
      expect(first.code, first.stderr).toBe(0);
      const firstSummary = JSON.parse(await readFile(first.stdout.trim().split('\n').at(-1)!, 'utf8')) as {
        started_at: string;
        finished_at: string;
      };
      const steps = Date.parse(firstSummary.finished_at) - Date.parse(firstSummary.started_at);
      let before = await baselineId();
      expect(before).not.toBeNull();

      const random = prng(13);
      const outcomes: string[] = [];
      for (let trial = 0; trial < TRIALS; trial++) {
        const signal = trial % 2 === 0 ? 'SIGKILL' : 'SIGINT';
        const leftPartials = new Set(await partials(workspaceDir));
        const leftRuns = new Set(await readdir(path.join(dir, 'runs')));
        const { child, finished } = run();
        let exited = false;
        void finished.then(() => (exited = true));
        const waitFor = async (ready: () => Promise<boolean>): Promise<void> => {
          const deadline = Date.now() + 30_000;
          while (!exited && !(await ready())) {
            if (Date.now() > deadline) throw new Error(`${signal} trial ${trial}: the run never got there`);
            await sleep(10);
          }
        };
        if (trial === 0) {
          // Once during start-up, before the run has a lock or a snapshot.
          await sleep(Math.round(500 * random()));
        } else if (trial % 3 !== 0) {
          // From the moment its snapshot starts to a little past the steps' usual end.
          await waitFor(async () => (await partials(workspaceDir)).some((name) => !leftPartials.has(name)));
          await sleep(Math.round(steps * 1.2 * random()));
        } else {
          // Near the end: once its gate report is written (bundle, retention, the record, the summary).
          await waitFor(async () =>
            (await readdir(path.join(dir, 'runs'))).some(
              (name) => !leftRuns.has(name) && existsSync(path.join(dir, 'runs', name, 'gate-report.json')),
            ),
          );
          await sleep(Math.round(400 * random()));
        }
        child.kill(signal);
        const ended: CliRun = await finished;
        // A killed run leaves its locks for 15 s; it is dead, so they are released by hand.
        await rm(`${database}.lock`, { recursive: true, force: true });
        await rm(`${workspaceDir}.lock`, { recursive: true, force: true });

        // Never corrupt: the record parses (readGatedBaseline throws on anything else).
        JSON.parse(await readFile(baselineFile, 'utf8'));
        const after = await baselineId();
        expect(after).not.toBeNull();
        if (after !== before) {
          // Advanced: every step of that run finished, so all its outputs are on disk.
          const runDir = path.join(dir, 'runs', after!);
          for (const file of ['diff.json', 'gate-report.json', `airt-report-${after}.zip`])
            expect(existsSync(path.join(runDir, file)), `${signal} trial ${trial}: ${file}`).toBe(true);
          expect(ended.code === null || ended.code === 0, `${signal} trial ${trial}: ${ended.stderr}`).toBe(
            true,
          );
        } else if (ended.code === 0) {
          throw new Error(`${signal} trial ${trial}: exit 0 without advancing the baseline\n${ended.stderr}`);
        }
        if (ended.code !== null && ended.code !== 0) expect(after, `${signal} trial ${trial}`).toBe(before);
        outcomes.push(`${signal}:${ended.code ?? ended.signal}:${after === before ? 'kept' : 'advanced'}`);
        before = after;
      }

      console.log(`kill trials (steps of the first run: ${steps} ms): ${outcomes.join(' ')}`);
      // The warehouse and the record still work: a last run compares with the last recorded baseline.
      const last = await run().finished;
      expect(last.code, `${outcomes.join(' ')}\n${last.stderr}`).toBe(0);
      const summary = JSON.parse(await readFile(last.stdout.trim().split('\n').at(-1)!, 'utf8')) as {
        previous_snapshot_id: string | null;
      };
      expect(summary.previous_snapshot_id).toBe(before);
      expect(await baselineId()).not.toBe(before);
    },
  );
});
