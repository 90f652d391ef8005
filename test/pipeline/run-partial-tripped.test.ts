/**
 * A gate that trips on a partial snapshot: the exit code is 4 (a tripped gate is never downgraded to
 * "partial, retry"), but the first stderr line and run-summary.json still say the snapshot was partial,
 * so a scheduler that retries partial snapshots does not lose it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import type { RunSummary } from '../../src/pipeline/run-summary.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

// Seed 5 with a 20% 502 rate and a single attempt loses exactly one trial list (deterministic) in a
// world of three assessments per project (as in run-baseline.test.ts).
const SCALE = { assessmentsPerProject: 3, attacksPerAssessment: 4, trialsPerAttack: 5, evaluationJobs: 20 };
const simulators: RunningSimulator[] = [];

afterEach(async () => {
  await Promise.all(simulators.splice(0).map((sim) => sim.close()));
});

describe('run: a gate tripped on a partial snapshot', () => {
  it('exits 4, and the first line and the summary say the snapshot was partial', async () => {
    const sim = await startSimulator({ projects: 2, seed: 5, faults: '502=0.2', scale: SCALE });
    simulators.push(sim);
    const dir = await makeTempDir('airt-partial-trip-');
    // The first run has no baseline: every open finding is new, so `new_findings <= 0` trips.
    await writeFile(
      path.join(dir, 'cfg.json'),
      JSON.stringify({
        connection: { base_url: sim.url, org: sim.org, workspace: sim.workspace },
        snapshot: { max_attempts: 1 },
        reports: [],
        gates: ['new_findings <= 0'],
      }),
    );
    const io = recordingIO({ cwd: dir, env: { AIRT_TOKEN: sim.token } });
    const code = await main(['run', '--config', 'cfg.json', '--quiet'], io);
    const stderr = io.err.join('');
    expect(code, stderr).toBe(4);
    const summary = JSON.parse(await readFile(io.out.join('').trim(), 'utf8')) as RunSummary;
    expect(summary).toMatchObject({
      outcome: 'gate_tripped',
      exit_code: 4,
      partial_snapshot: true,
      snapshot: { status: 'partial', failed_requests: 1 },
    });
    expect(stderr.split('\n')[0]).toBe(
      `run ${summary.snapshot.id} of ${sim.org}/${sim.workspace}: a gate tripped (exit 4) on a partial ` +
        'snapshot: 1 failed request; the next run fetches it again',
    );
    // A partial snapshot never becomes the baseline, tripped or not.
    expect(summary.baseline).toMatchObject({ advanced: false });
    expect(summary.baseline.reason).toContain('partial');
  });

  it('says in run --help which exit code wins', async () => {
    const result = await runCli(['run', '--help']);
    expect(result.code).toBe(0);
    const help = result.stdout.replace(/\s+/gu, ' ');
    expect(help).toContain('When several apply, the first of 130/143, 1, 4, 3 wins');
    expect(help).toContain('partial_snapshot in run-summary.json');
  });
});
