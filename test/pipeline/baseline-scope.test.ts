/**
 * A gated baseline never compares snapshots of different workspaces: a baseline record that names
 * another workspace's snapshot (copied or edited by hand) is not used; the run warns and compares
 * with no snapshot instead of matching projects by key across workspaces.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { gatedBaselinePath } from '../../src/pipeline/gated-baseline.js';
import { runConfigFromObject } from '../../src/pipeline/run-config.js';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { FIXTURES } from '../warehouse/helpers.js';

const SCALE = { assessmentsPerProject: 2, attacksPerAssessment: 3, trialsPerAttack: 3, evaluationJobs: 5 };
const simulators: RunningSimulator[] = [];

afterEach(async () => {
  await Promise.all(simulators.splice(0).map((sim) => sim.close()));
});

describe('the gated baseline', () => {
  it('is not used when it names a snapshot of another workspace', async () => {
    const sim = await startSimulator({ projects: 1, scale: SCALE });
    simulators.push(sim);
    const dir = await makeTempDir('airt-baseline-scope-');
    const config = runConfigFromObject(
      {
        connection: { base_url: sim.url, org: sim.org, workspace: sim.workspace },
        gates: ['new_critical_findings <= 1000'],
        reports: [],
      },
      dir,
    );
    const env = { AIRT_TOKEN: sim.token };
    const first = await runPipeline(config, { stderr: () => undefined, env, quiet: true });
    expect(first.exitCode).toBe(0);
    // Another workspace's snapshot in the same database, and a record pointing at it.
    await loadSnapshots(config.database, [FIXTURES.partial], { now: () => new Date('2026-04-01T00:00:00Z') });
    const file = gatedBaselinePath(config.database);
    const record = JSON.parse(await readFile(file, 'utf8')) as {
      workspaces: Record<string, { snapshot_id: string }>;
    };
    const entry = record.workspaces[`${sim.org}/${sim.workspace}`];
    expect(entry).toBeDefined();
    entry!.snapshot_id = '20260320T060000Z-partial';
    await writeFile(file, JSON.stringify(record));

    sim.setEpoch(1);
    const second = await runPipeline(config, { stderr: () => undefined, env, quiet: true });
    expect(second.summary.warnings.join('\n')).toContain(
      'belongs to acme/staging, not acme/main; this run compares with no snapshot',
    );
    expect(second.summary.steps.find((step) => step.name === 'diff')?.status).toBe('ok');
    expect(second.exitCode).toBe(0);
  });
});
