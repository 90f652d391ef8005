/**
 * How a run ends when it cannot do its job: a service that is not there (nothing fetched), and a
 * run stopped by SIGTERM/SIGINT — and that neither leaves a snapshot that the next run's diff and
 * gates would compare with.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { gatedBaselinePath, readGatedBaseline } from '../../src/pipeline/gated-baseline.js';
import { evaluateGates, NO_PROJECT, type GateMetricProvider } from '../../src/pipeline/gates.js';
import { parseGateExpression } from '../../src/pipeline/gate-expression.js';
import { runConfigFromObject } from '../../src/pipeline/run-config.js';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { nothingFetched } from '../../src/pipeline/run-nothing-fetched.js';
import { humanSummary, type RunSummary } from '../../src/pipeline/run-summary.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { spawnCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { writeFixtureSnapshot } from './snapshot-dir-fixture.js';
import { deadBaseUrl } from '../helpers/dead-base-url.js';

// Six assessments: the smallest world whose first project has a completed assessment that epoch 1
// re-scores to critical (the simulator's regression role). A running assessment that finishes is a new
// finding, not a regression: a finding is an attack run of a completed or failed assessment.
const SCALE = { assessmentsPerProject: 6, attacksPerAssessment: 4, trialsPerAttack: 5, evaluationJobs: 20 };
const GATES = ['new_critical_findings <= 1000', 'regressed_findings <= 1000'];
const simulators: RunningSimulator[] = [];

afterEach(async () => {
  await Promise.all(simulators.splice(0).map((sim) => sim.close()));
});

async function simulator(options: Parameters<typeof startSimulator>[0] = {}): Promise<RunningSimulator> {
  const sim = await startSimulator({ projects: 2, scale: SCALE, ...options });
  simulators.push(sim);
  return sim;
}

describe('a run whose snapshot fetched nothing', () => {
  it('fails with the connection error, skips every later step and leaves no baseline', async () => {
    const dir = await makeTempDir('airt-run-dead-');
    const dead = runConfigFromObject(
      {
        connection: { base_url: await deadBaseUrl(), org: 'acme', workspace: 'main' },
        snapshot: { max_attempts: 1 },
        gates: ['overall_asr <= 0.25'],
      },
      dir,
    );
    const err: string[] = [];
    const result = await runPipeline(dead, {
      stderr: (text) => void err.push(text),
      env: { AIRT_TOKEN: 't' },
    });

    expect(result.exitCode).toBe(1);
    expect(result.summary.outcome).toBe('failed');
    const [snapshot, ...later] = result.summary.steps;
    expect(snapshot).toMatchObject({ name: 'snapshot', status: 'failed' });
    expect(snapshot?.error).toContain('ECONNREFUSED');
    // A run names its config key, not the library's option (options.baseUrl) or the CLI's flag.
    expect(snapshot?.error).toContain('Check connection.base_url');
    expect(result.summary.failed_requests.map((request) => request.error).join('\n')).not.toMatch(
      /options\.baseUrl|--base-url/u,
    );
    expect(later.map((step) => `${step.name}:${step.status}`)).toEqual([
      'verify:skipped',
      'load:skipped',
      'diff:skipped',
      'reports:skipped',
      'gates:skipped',
      'bundle:skipped',
      'retention:skipped',
    ]);
    expect(result.summary.counts.rows_loaded).toBeNull();
    expect(existsSync(dead.database)).toBe(false);
    expect(existsSync(gatedBaselinePath(dead.database))).toBe(false);
    expect(err.join('')).toContain('ECONNREFUSED');
    expect(JSON.parse(await readFile(result.summaryPath!, 'utf8'))).toEqual(result.summary);

    // The next run, against a live service, has neither a --since nor a diff baseline.
    const sim = await simulator();
    const live = runConfigFromObject(
      {
        connection: { base_url: sim.url, org: sim.org, workspace: sim.workspace },
        gates: ['overall_asr <= 1'],
        reports: [],
      },
      dir,
    );
    const next = await runPipeline(live, { stderr: () => undefined, env: { AIRT_TOKEN: sim.token } });
    expect(next.exitCode).toBe(0);
    expect(next.summary.snapshot.since).toBeNull();
    expect(next.summary.previous_snapshot_id).toBeNull();
  });

  it('names the first failed request when a snapshot comes back with no data file', async () => {
    const root = await makeTempDir('airt-run-empty-');
    await mkdir(path.join(root, 'acme', 'main', '20260101T000000Z'), { recursive: true });
    const { dir, manifest } = await writeFixtureSnapshot({ root, snapshotId: '20260101T000000Z', files: {} });
    const failed = { method: 'GET', kind: 'config' as const, file: 'config.json', status: null, attempts: 3 };
    const message = nothingFetched({
      dir,
      manifest: {
        ...manifest,
        failed_requests: [
          { ...failed, path: '/api/v1/config', error: 'could not connect to the service (ECONNREFUSED)' },
          { ...failed, path: '/api/v1/other', error: 'HTTP 502' },
        ],
      },
    });
    expect(message).toContain(
      '2 request(s) failed, the first: could not connect to the service (ECONNREFUSED)',
    );
    expect(message).toContain(`The snapshot ${dir} is not loaded`);
    expect(message).toContain('connection.base_url');
  });

  it('lists a gate with no project to measure as unknown instead of dropping it', async () => {
    const provider: GateMetricProvider = {
      measure: () => Promise.reject(new Error('nothing should be measured without a project')),
    };
    const gate = { expression: parseGateExpression('overall_asr <= 0.25'), project: null };
    const results = await evaluateGates([gate, gate], provider, {
      snapshotId: 's',
      previousSnapshotId: null,
      projects: [],
      onUnknown: 'trip',
    });
    expect(results.map((r) => [r.project, r.status, r.trips])).toEqual([
      [NO_PROJECT, 'unknown', true],
      [NO_PROJECT, 'unknown', true],
    ]);
    expect(results[0]?.note).toContain('No project in scope');
  });
});

describe('humanSummary', () => {
  it('prints an unknown gate once, and a measured value beside a failed one', () => {
    const gate = { op: '<=', threshold: 0.1, trips: true, project: 'bot' } as const;
    const summary = {
      org: 'acme',
      workspace: 'main',
      outcome: 'gate_tripped',
      exit_code: 4,
      interruption: null,
      snapshot: { id: 's1' },
      steps: [],
      failed_requests: [],
      baseline: { advanced: true, snapshot_id: 's1', reason: null },
      warnings: [],
      gates: [
        { ...gate, gate: 'a <= 0.1', status: 'unknown', status_text: 'unknown (no data)', value: null },
        { ...gate, gate: 'b <= 0.1', status: 'fail', status_text: 'fail', value: 0.5 },
      ],
    } as unknown as RunSummary;
    const text = humanSummary(summary, null);
    expect(text).toContain('tripped: a <= 0.1 on bot: unknown (no data)\n');
    expect(text).not.toContain('value unknown');
    expect(text).toContain('tripped: b <= 0.1 on bot: fail (value 0.5)\n');
  });
});

describe('an interrupted run', () => {
  it('stops after the step in progress, says so, and is not the next run’s baseline', async () => {
    const sim = await simulator();
    const dir = await makeTempDir('airt-run-stop-');
    const config = runConfigFromObject(
      {
        connection: { base_url: sim.url, org: sim.org, workspace: sim.workspace },
        gates: GATES,
        reports: [{ kind: 'executive', formats: ['md'] }],
      },
      dir,
    );
    const env = { AIRT_TOKEN: sim.token };
    const first = await runPipeline(config, { stderr: () => undefined, env });
    expect(first.exitCode).toBe(0);
    const firstId = first.summary.snapshot.id!;

    // The service changes, and the second run is stopped (SIGTERM) once its snapshot is loaded.
    sim.setEpoch(1);
    const controller = new AbortController();
    const err: string[] = [];
    const second = await runPipeline(config, {
      stderr: (text) => void err.push(text),
      env,
      quiet: true,
      signal: controller.signal,
      onStepStart: (name) => {
        if (name === 'diff') controller.abort(new InterruptedError('SIGTERM'));
      },
    });
    expect(second.exitCode).toBe(143);
    expect(second.summary.outcome).toBe('interrupted');
    expect(second.summary.steps.map((s) => `${s.name}:${s.status}`)).toEqual([
      'snapshot:ok',
      'verify:ok',
      'load:ok',
      'diff:ok',
    ]);
    expect(second.summary.interruption).toMatchObject({ step: 'diff', reason: 'Interrupted by SIGTERM' });
    expect(second.summary.interruption?.message).toContain(
      `snapshot ${second.summary.snapshot.id} is loaded into the database but the run did not finish`,
    );
    expect(second.summary.interruption?.message).toContain(`still compare with snapshot ${firstId}`);
    expect(second.summary.interruption?.message).toContain('not run: reports, gates, bundle, retention');
    expect(err.join('').split('\n')[0]).toMatch(
      /^run interrupted during diff \(Interrupted by SIGTERM, exit 143\); /,
    );
    expect(second.summaryPath).not.toBeNull();
    expect(JSON.parse(await readFile(second.summaryPath!, 'utf8'))).toEqual(second.summary);
    expect(second.summary.paths.gate_report_json).toBeNull();
    expect(await readGatedBaseline(config.database, sim.org, sim.workspace)).toMatchObject({
      snapshot_id: firstId,
    });

    // The third run compares with the last gated snapshot (the first), so the epoch-1 regression
    // counts; compared with the ungated second snapshot it would already be "persisting".
    const third = await runPipeline(config, { stderr: () => undefined, env });
    expect(third.exitCode).toBe(0);
    expect(third.summary.previous_snapshot_id).toBe(firstId);
    expect(third.summary.counts.findings_regressed).toBeGreaterThanOrEqual(1);
    // Its executive report's "Since last snapshot" compares with the same baseline.
    const reports = third.summary.paths.reports.filter((file) => file.endsWith('.md'));
    expect(reports.length).toBeGreaterThan(0);
    for (const report of reports)
      expect(await readFile(report, 'utf8')).toContain(`previous snapshot of this project, \`${firstId}\``);
    expect(await readGatedBaseline(config.database, sim.org, sim.workspace)).toMatchObject({
      snapshot_id: third.summary.snapshot.id,
    });
  });

  it('survives a real SIGTERM long enough to write its summary and exit 143', async () => {
    const sim = await simulator({ faults: 'latency=20ms' });
    const dir = await makeTempDir('airt-run-sigterm-');
    const file = path.join(dir, 'airt-report.yaml');
    await writeFile(
      file,
      [
        `connection: {base_url: "${sim.url}", org: ${sim.org}, workspace: ${sim.workspace}}`,
        'snapshot: {concurrency: 1}',
        'reports: []',
        'gates: [overall_asr <= 1]',
        '',
      ].join('\n'),
    );
    const { child, finished } = spawnCli(['run', '--config', file, '--quiet'], {
      env: { AIRT_TOKEN: sim.token },
    });
    // Stop it once the snapshot is under way (the run lock, and with it signal-exit, is taken by then).
    const parent = path.join(dir, 'snapshots', sim.org, sim.workspace);
    const deadline = Date.now() + 30_000;
    while (!(await readdir(parent).catch(() => [] as string[])).some((n) => n.endsWith('.partial'))) {
      if (Date.now() > deadline) throw new Error('the run never started its snapshot');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGTERM');
    const run = await finished;
    expect(run.signal).toBeNull();
    expect(run.code).toBe(143);
    expect(run.stderr).toMatch(/^run interrupted during \w+ \(Interrupted by SIGTERM, exit 143\); /m);
    const summaryPath = run.stdout.trim().split('\n').at(-1)!;
    const summary = JSON.parse(await readFile(summaryPath, 'utf8')) as RunSummary;
    expect(summary.outcome).toBe('interrupted');
    expect(summary.exit_code).toBe(143);
    // Stopped before its gates: no snapshot became the baseline.
    expect(await readGatedBaseline(path.join(dir, 'airt.duckdb'), sim.org, sim.workspace)).toBeNull();
  });
});
