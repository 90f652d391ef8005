/**
 * Retention keeps the gated baseline's snapshot directory while partial nights cannot replace it: a
 * user tryout ran two good nights, then partial ones (a listed project the service answers 404 for)
 * with `keep_last: 2`, and the second partial night deleted the baseline's directory. The next diff
 * and gates still compared with it (its database rows were kept), but it could no longer be verified
 * or bundled. Once a complete run replaces the baseline, the old directory goes as before.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConfigFromObject } from '../../src/pipeline/run-config.js';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { verifySnapshot } from '../../src/snapshot/verify.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

const SCALE = { assessmentsPerProject: 3, attacksPerAssessment: 3, trialsPerAttack: 3, evaluationJobs: 5 };
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ projects: 2, scale: SCALE });
});
afterAll(async () => {
  await sim.close();
});

describe('retention and the gated baseline', () => {
  it('keeps the baseline directory through partial nights, and lets it go once a complete run replaces it', async () => {
    const dir = await makeTempDir('airt-retention-baseline-');
    const config = (projects: string[]) =>
      runConfigFromObject(
        {
          connection: { base_url: sim.url, org: sim.org, workspace: sim.workspace },
          projects,
          reports: [],
          retention: { keep_last: 1 },
        },
        dir,
      );
    const effects = { stderr: (): void => undefined, env: { AIRT_TOKEN: sim.token } };
    const good = config(sim.projectKeys);
    const partial = config([...sim.projectKeys, 'ghost-project']);

    const baseline = await runPipeline(good, effects);
    expect(baseline.exitCode).toBe(0);
    const baselineDir = baseline.summary.snapshot.dir!;
    const partials = [];
    for (const epoch of [1, 2]) {
      sim.setEpoch(epoch);
      const night = await runPipeline(partial, effects);
      expect(night.exitCode).toBe(3);
      expect(night.summary.baseline).toMatchObject({
        advanced: false,
        snapshot_id: baseline.summary.snapshot.id,
      });
      partials.push(night);
    }
    // keep_last 1: the older partial night is gone, the baseline is not, and it still verifies.
    expect(existsSync(partials[0]!.summary.snapshot.dir!)).toBe(false);
    expect(existsSync(baselineDir)).toBe(true);
    expect((await verifySnapshot(baselineDir)).ok).toBe(true);

    sim.setEpoch(3);
    const next = await runPipeline(good, effects);
    expect(next.exitCode).toBe(0);
    expect(next.summary.previous_snapshot_id).toBe(baseline.summary.snapshot.id);
    expect(next.summary.baseline).toMatchObject({ advanced: true, snapshot_id: next.summary.snapshot.id });
    expect(existsSync(baselineDir)).toBe(false);
  }, 120_000);
});
