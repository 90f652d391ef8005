/**
 * When a run becomes the baseline of the next run's diff, gates and "Since last snapshot": only after
 * every step succeeded on a complete snapshot. An unreachable service (even with a triage journal
 * that gives the snapshot a few files), a failed report, a partial snapshot: none of them moves it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import { gatedBaselinePath, readGatedBaseline } from '../../src/pipeline/gated-baseline.js';
import { runConfigFromObject } from '../../src/pipeline/run-config.js';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import type { RunSummary } from '../../src/pipeline/run-summary.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { deadBaseUrl } from '../helpers/dead-base-url.js';
import { journalWithOneTriage } from '../helpers/triaged-journal.js';

// Six assessments: the smallest world whose first project has a completed assessment that epoch 1
// re-scores to critical (the simulator's regression role). A running assessment that finishes is a new
// finding, not a regression: a finding is an attack run of a completed or failed assessment.
const SCALE = { assessmentsPerProject: 6, attacksPerAssessment: 4, trialsPerAttack: 5, evaluationJobs: 20 };
const simulators: RunningSimulator[] = [];

afterEach(async () => {
  await Promise.all(simulators.splice(0).map((sim) => sim.close()));
});

async function simulator(options: Parameters<typeof startSimulator>[0] = {}): Promise<RunningSimulator> {
  const sim = await startSimulator({ projects: 2, scale: SCALE, ...options });
  simulators.push(sim);
  return sim;
}

function connection(sim: RunningSimulator, baseUrl = sim.url): Record<string, string> {
  return { base_url: baseUrl, org: sim.org, workspace: sim.workspace };
}

const quiet = { stderr: (): void => undefined };

describe('the gated baseline', () => {
  it('is left alone by a run that cannot reach the service, even with a triage journal configured', async () => {
    const sim = await simulator();
    const dir = await makeTempDir('airt-base-dead-');
    const env = { AIRT_TOKEN: sim.token };
    const journal = await journalWithOneTriage(sim, dir);

    const gates = ['new_findings <= 0', 'new_critical_findings <= 0'];
    const config = (baseUrl: string): Record<string, unknown> => ({
      connection: connection(sim, baseUrl),
      snapshot: { triage_journal: journal, max_attempts: 1 },
      reports: [],
      gates,
    });
    const first = await runPipeline(runConfigFromObject(config(sim.url), dir), { ...quiet, env });
    // The first run has no baseline: every open finding is new, so the gates trip; it still advances.
    expect(first.exitCode).toBe(4);
    const firstId = first.summary.snapshot.id!;
    const baselineFile = gatedBaselinePath(path.join(dir, 'airt.duckdb'));
    const before = await readFile(baselineFile, 'utf8');
    expect(JSON.parse(before)).toMatchObject({
      workspaces: { [`${sim.org}/${sim.workspace}`]: { snapshot_id: firstId } },
    });

    // The same config pointed at an address where nothing listens, through the CLI.
    await writeFile(path.join(dir, 'dead.json'), JSON.stringify(config(await deadBaseUrl())));
    const io = recordingIO({ cwd: dir, env });
    const code = await main(['run', '--config', 'dead.json', '--quiet'], io);
    const stderr = io.err.join('');
    expect(code, stderr).toBe(1);
    // The first thing it says is that the service could not be reached, and why.
    expect(stderr.split('\n')[0]).toMatch(/could not reach|Nothing was fetched/iu);
    expect(stderr.split('\n')[0]).toContain('ECONNREFUSED');
    expect(stderr).not.toContain('unknown (no data)');
    const summary = JSON.parse(await readFile(io.out.join('').trim(), 'utf8')) as RunSummary;
    expect(summary.outcome).toBe('failed');
    expect(summary.steps.find((s) => s.name === 'snapshot')?.status).toBe('failed');
    expect(summary.gates).toEqual([]);
    expect(summary.failed_requests.length).toBeGreaterThan(0);
    expect(summary.failed_requests[0]?.error).toContain('ECONNREFUSED');
    expect(summary.baseline).toMatchObject({ advanced: false, snapshot_id: firstId });
    expect(summary.baseline.reason).toContain('snapshot');
    expect(await readFile(baselineFile, 'utf8')).toBe(before);

    // The next healthy run compares with the first snapshot: nothing is new, no gate trips.
    const next = await runPipeline(runConfigFromObject(config(sim.url), dir), { ...quiet, env });
    expect(next.summary.previous_snapshot_id).toBe(firstId);
    expect(next.summary.counts.findings_new).toBe(0);
    expect(next.exitCode).toBe(0);
  });

  it('is left alone by a run whose reports step failed; the next run still sees the changes', async () => {
    const sim = await simulator();
    const dir = await makeTempDir('airt-base-report-');
    const env = { AIRT_TOKEN: sim.token };
    const config = runConfigFromObject(
      {
        connection: connection(sim),
        reports: [{ kind: 'executive', formats: ['md', 'pdf'] }],
        gates: ['new_findings <= 1000', 'regressed_findings <= 0'],
      },
      dir,
    );
    const mdOnly = runConfigFromObject(
      {
        connection: connection(sim),
        reports: [{ kind: 'executive', formats: ['md'] }],
        gates: ['new_findings <= 1000', 'regressed_findings <= 0'],
      },
      dir,
    );
    const healthy = await runPipeline(mdOnly, { ...quiet, env });
    expect(healthy.exitCode).toBe(0);
    expect(healthy.summary.previous_snapshot_id).toBeNull();
    const healthyId = healthy.summary.snapshot.id!;
    expect(healthy.summary.baseline).toEqual({ advanced: true, snapshot_id: healthyId, reason: null });

    // The service changes (new assessments, a regression) and the next run's PDF cannot be made.
    sim.setEpoch(1);
    const missing = path.join(dir, 'no-such-chromium');
    const broken = await runPipeline(config, { ...quiet, env: { ...env, AIRT_CHROMIUM: missing } });
    expect(broken.exitCode).toBe(1);
    const reports = broken.summary.steps.find((s) => s.name === 'reports');
    expect(reports).toMatchObject({ status: 'failed' });
    expect(reports?.error).toContain(missing);
    expect(broken.summary.failed_steps).toEqual(['reports']);
    expect(broken.summary.baseline).toMatchObject({ advanced: false, snapshot_id: healthyId });
    expect(broken.summary.baseline.reason).toContain('reports');
    expect(await readGatedBaseline(config.database, sim.org, sim.workspace)).toMatchObject({
      snapshot_id: healthyId,
    });

    // The next healthy run still compares with the last complete run: the changes count, the gate trips.
    const next = await runPipeline(mdOnly, { ...quiet, env });
    expect(next.summary.previous_snapshot_id).toBe(healthyId);
    expect(next.summary.counts.findings_regressed).toBeGreaterThanOrEqual(1);
    expect(next.exitCode).toBe(4);
    expect(next.summary.gates.some((g) => g.gate === 'regressed_findings <= 0' && g.trips)).toBe(true);
    const executive = await readFile(
      next.summary.paths.reports.find((p) => p.endsWith('.md'))!,
      'utf8',
    );
    expect(executive).toContain(`previous snapshot of this project, \`${healthyId}\``);
    // A tripped gate still completed every step: the run is the new baseline.
    expect(next.summary.baseline).toEqual({
      advanced: true,
      snapshot_id: next.summary.snapshot.id,
      reason: null,
    });
  });

  it('is left alone by a partial snapshot, whose failed requests the summary names', async () => {
    // Seed 5 with a 20% 502 rate and a single attempt loses exactly one trial list (deterministic) in a
    // world of three assessments per project.
    const small = { ...SCALE, assessmentsPerProject: 3 };
    const clean = await simulator({ seed: 5, scale: small });
    const faulty = await simulator({ seed: 5, faults: '502=0.2', scale: small });
    const dir = await makeTempDir('airt-base-partial-');
    const env = { AIRT_TOKEN: clean.token };
    // The faulty run keeps its snapshots apart, so it fetches every trial list instead of reusing them.
    const config = (sim: RunningSimulator): ReturnType<typeof runConfigFromObject> =>
      runConfigFromObject(
        {
          connection: connection(sim),
          snapshot: { max_attempts: 1, out_dir: sim === clean ? 'snapshots' : 'snapshots-faulty' },
          reports: [],
        },
        dir,
      );
    const first = await runPipeline(config(clean), { ...quiet, env });
    expect(first.exitCode).toBe(0);
    const firstId = first.summary.snapshot.id!;
    const before = await readFile(gatedBaselinePath(config(clean).database), 'utf8');

    const err: string[] = [];
    const partial = await runPipeline(config(faulty), { stderr: (text) => void err.push(text), env });
    expect(partial.exitCode).toBe(3);
    expect(partial.summary.failed_requests).toHaveLength(1);
    const [failed] = partial.summary.failed_requests;
    expect(failed).toMatchObject({ method: 'GET', status: 502, attempts: 1 });
    expect(err.join('')).toContain(`failed request: GET ${failed!.path}`);
    expect(partial.summary.baseline).toMatchObject({ advanced: false, snapshot_id: firstId });
    expect(partial.summary.baseline.reason).toContain('partial');
    expect(await readFile(gatedBaselinePath(config(clean).database), 'utf8')).toBe(before);

    const next = await runPipeline(config(clean), { ...quiet, env });
    expect(next.exitCode).toBe(0);
    expect(next.summary.previous_snapshot_id).toBe(firstId);
  });

  it('advances after a fully healthy run', async () => {
    const sim = await simulator();
    const dir = await makeTempDir('airt-base-ok-');
    const env = { AIRT_TOKEN: sim.token };
    const config = runConfigFromObject({ connection: connection(sim), reports: [] }, dir);
    const first = await runPipeline(config, { ...quiet, env });
    const second = await runPipeline(config, { ...quiet, env });
    expect([first.exitCode, second.exitCode]).toEqual([0, 0]);
    expect(second.summary.previous_snapshot_id).toBe(first.summary.snapshot.id);
    expect(await readGatedBaseline(config.database, sim.org, sim.workspace)).toMatchObject({
      snapshot_id: second.summary.snapshot.id,
    });
    expect(second.summary.failed_steps).toEqual([]);
    expect(second.summary.failed_requests).toEqual([]);
  });
});

describe('the run summary of a run that could not reach the service', () => {
  it('names the request that failed although no manifest was written', async () => {
    const dir = await makeTempDir('airt-base-nomanifest-');
    const config = runConfigFromObject(
      {
        connection: { base_url: await deadBaseUrl(), org: 'acme', workspace: 'main' },
        snapshot: { max_attempts: 1 },
        reports: [],
        gates: [],
      },
      dir,
    );
    const result = await runPipeline(config, { ...quiet, env: { AIRT_TOKEN: 'token-not-sent-anywhere' } });
    expect(result.exitCode).toBe(1);
    expect(result.summary.snapshot.id).toBeNull();
    expect(result.summary.failed_steps).toEqual(['snapshot']);
    // Every request the snapshot made failed: the config and the evaluation jobs' first page.
    const requests = result.summary.failed_requests;
    expect(requests.map(({ method, status, attempts }) => ({ method, status, attempts }))).toEqual([
      { method: 'GET', status: null, attempts: 1 },
      { method: 'GET', status: null, attempts: 1 },
    ]);
    expect(requests[0]?.path).toBe('/api/v1/config');
    expect(requests[1]?.path).toMatch(/\/evaluations\?page=1/u);
    for (const request of result.summary.failed_requests) expect(request.error).toMatch(/ECONNREFUSED/u);
  });
});
