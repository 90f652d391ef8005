/* eslint-disable @typescript-eslint/no-unsafe-return -- the gate report is read untyped, as another tool would */
/**
 * A run whose config names a project the service does not know (it answers 404): its gates are
 * "unknown (no data)" and trip, and the diff lists it not compared, as for a project whose summary
 * request failed; before, both left it out and the gates passed on the other project alone, with one
 * warning. Unconfigured, such a project (an evaluation job naming a deleted one) stays out. Two runs
 * against the simulator on 127.0.0.1 port 0 (a healthy baseline, then the night with the typo).
 */
import { readFile } from 'node:fs/promises';
import { afterEach, expect, it } from 'vitest';
import { runConfigFromObject } from '../../src/pipeline/run-config.js';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import type { RawJson } from '../helpers/raw-summary-findings.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

const SCALE = { assessmentsPerProject: 3, attacksPerAssessment: 4, trialsPerAttack: 5, evaluationJobs: 2 };
const GHOST = 'ghost-project';
const simulators: RunningSimulator[] = [];

afterEach(async () => {
  await Promise.all(simulators.splice(0).map((sim) => sim.close()));
});

it('trips the gates of a configured project the service answers 404 for, and the diff lists it', async () => {
  const sim = await startSimulator({ seed: 5, projects: 1, scale: SCALE });
  simulators.push(sim);
  const known = sim.truth.projects()[0]!.key;
  const dir = await makeTempDir('airt-run-unknown-project-');
  const env = { AIRT_TOKEN: sim.token };
  const quiet = { stderr: (): void => undefined };
  const configOf = (projects: string[]) =>
    runConfigFromObject(
      {
        connection: { base_url: sim.url, org: sim.org, workspace: sim.workspace },
        snapshot: { max_attempts: 1 },
        projects,
        reports: [],
        gates: ['overall_asr <= 1'],
      },
      dir,
    );
  const healthy = await runPipeline(configOf([known]), { ...quiet, env });
  expect(healthy.exitCode).toBe(0);
  const night = await runPipeline(configOf([known, GHOST]), { ...quiet, env });
  // The repro: the service does not know it (404), so the snapshot is partial.
  const manifest = JSON.parse(
    await readFile(`${night.summary.snapshot.dir!}/manifest.json`, 'utf8'),
  ) as RawJson;
  expect((manifest.projects as RawJson[]).find((p) => p.key === GHOST)?.status).toBe('not_found');
  expect(night.exitCode).toBe(4);

  const gates = JSON.parse(await readFile(night.summary.paths.gate_report_json!, 'utf8')) as RawJson;
  const results = gates.results as RawJson[];
  expect(results.map((r) => [r.project, r.status_text, r.trips])).toEqual([
    [known, 'pass', false],
    [GHOST, 'unknown (no data)', true],
  ]);
  expect(String(results[1]!.note)).toContain('(HTTP 404) failed');

  const diff = JSON.parse(await readFile(night.summary.paths.diff_json!, 'utf8')) as RawJson;
  const ghost = (diff.projects as RawJson[]).find((p) => p.project === GHOST);
  expect(ghost).toMatchObject({ compared: false, in_current: true });
  expect(night.summary.warnings.filter((w) => w.includes(GHOST))).toEqual([
    expect.stringContaining(`project ${GHOST} has no summary in snapshot ${night.summary.snapshot.id}`),
  ]);
}, 120_000);
