import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import type { GateReport } from '../../src/pipeline/gate-report.js';
import { acquireRunLock } from '../../src/pipeline/lock.js';
import { runConfigFromObject } from '../../src/pipeline/run-config.js';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import type { RunSummary } from '../../src/pipeline/run-summary.js';
import { verifyBundle } from '../../src/pipeline/verify-bundle.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { diskUsage } from '../../src/snapshot/disk-usage.js';
import type { Manifest } from '../../src/snapshot/manifest.js';
import { verifySnapshot } from '../../src/snapshot/verify.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

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

function baseConfig(sim: RunningSimulator, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    connection: { base_url: sim.url, org: sim.org, workspace: sim.workspace },
    reports: [{ kind: 'executive', formats: ['md'] }],
    ...extra,
  };
}

async function sha256(file: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
}

/** Every file the summary lists exists with the recorded hash; the summary on disk is the returned one. */
async function expectSummaryMatchesDisk(summary: RunSummary, summaryPath: string | null): Promise<void> {
  expect(summaryPath).not.toBeNull();
  expect(JSON.parse(await readFile(summaryPath!, 'utf8'))).toEqual(summary);
  expect(summary.outputs.length).toBeGreaterThan(0);
  for (const output of summary.outputs) {
    expect(await sha256(output.path), output.path).toBe(output.sha256);
  }
  const listed = new Set(summary.outputs.map((o) => o.path));
  for (const file of [
    summary.paths.diff_md,
    summary.paths.gate_report_json,
    summary.paths.bundle,
    ...summary.paths.reports,
  ]) {
    if (file !== null) expect(listed.has(file), file).toBe(true);
  }
  expect(existsSync(summary.snapshot.dir!)).toBe(true);
}

describe('runPipeline against the simulator', () => {
  it('runs twice (second after the service changed), diffs, keeps the newest snapshot and bundles', async () => {
    const sim = await simulator();
    const dir = await makeTempDir('airt-run-');
    const config = runConfigFromObject(
      baseConfig(sim, {
        gates: ['overall_asr <= 1', 'regressed_findings >= 0', 'new_critical_findings <= 1000'],
        retention: { keep_last: 1 },
      }),
      dir,
    );
    const effects = { stderr: (): void => undefined, env: { AIRT_TOKEN: sim.token } };

    const first = await runPipeline(config, effects);
    expect(first.exitCode).toBe(0);
    expect(first.summary.steps.map((s) => `${s.name}:${s.status}`)).toEqual([
      'snapshot:ok',
      'verify:ok',
      'load:ok',
      'diff:ok',
      'reports:ok',
      'gates:ok',
      'bundle:ok',
      'retention:ok',
    ]);
    expect(first.summary.previous_snapshot_id).toBeNull();
    expect(first.summary.projects).toEqual(sim.projectKeys);
    await expectSummaryMatchesDisk(first.summary, first.summaryPath);

    const firstBytes = (await diskUsage([first.summary.snapshot.dir!])).bytes;
    sim.setEpoch(1);
    const second = await runPipeline(config, effects);
    expect(second.exitCode).toBe(0);
    await expectSummaryMatchesDisk(second.summary, second.summaryPath);
    const firstId = first.summary.snapshot.id!;
    expect(second.summary.previous_snapshot_id).toBe(firstId);
    expect(second.summary.snapshot.since).toBe(first.summary.snapshot.dir);
    // The epoch-1 service re-scored one attack run to critical: a regression, not a new finding.
    expect(second.summary.counts.findings_regressed).toBeGreaterThanOrEqual(1);
    const gates = JSON.parse(await readFile(second.summary.paths.gate_report_json!, 'utf8')) as GateReport;
    const regressed = gates.results.filter(
      (r) => r.gate === 'regressed_findings >= 0' && r.value !== null && r.value > 0,
    );
    expect(regressed.length).toBeGreaterThanOrEqual(1);

    // Retention: the first snapshot directory is gone, the second kept; run outputs stay.
    // The second snapshot shares the first's unchanged trial lists by hard link, so deleting the first
    // freed less than it held, and the second is still whole.
    expect(second.summary.retention).toMatchObject({
      kept: [second.summary.snapshot.id],
      deleted: [firstId],
    });
    const secondManifest = JSON.parse(
      await readFile(path.join(second.summary.snapshot.dir!, 'manifest.json'), 'utf8'),
    ) as Manifest;
    const shared = secondManifest.files.filter((f) => f.stored === 'linked' && f.linked_from === firstId);
    expect(shared.length).toBeGreaterThan(0);
    // The shared trial lists' content is in the warehouse: the verify step does not hash them.
    const sharedTrials = shared.filter((f) => f.kind === 'trials').length;
    expect(sharedTrials).toBeGreaterThan(0);
    expect(first.summary.steps.find((s) => s.name === 'verify')?.detail).not.toContain('not hashed');
    expect(second.summary.steps.find((s) => s.name === 'verify')?.detail).toContain(
      `(${sharedTrials} trial files held by the warehouse, not hashed)`,
    );
    const { kept_bytes: keptBytes, freed_bytes: freedBytes } = second.summary.retention!;
    expect(keptBytes).toBe((await diskUsage([second.summary.snapshot.dir!])).bytes);
    expect(freedBytes).toBeGreaterThan(0);
    expect(freedBytes).toBeLessThan(firstBytes);
    expect((await verifySnapshot(second.summary.snapshot.dir!)).ok).toBe(true);
    expect(existsSync(first.summary.snapshot.dir!)).toBe(false);
    expect(existsSync(first.summaryPath!)).toBe(true);

    // The executive report's own section compares with the first snapshot; the summary no longer repeats it.
    const executive = await readFile(
      second.summary.paths.reports.find((p) => p.endsWith('.md'))!,
      'utf8',
    );
    expect(executive).toContain('## Since last snapshot');
    expect(executive).toContain(`Compared with the previous snapshot of this project, \`${firstId}\``);
    expect(executive).toMatch(
      /\| New \| Resolved \| Regressed \| Persisting \|\n.*\n\| \d+ \| \d+ \| \d+ \| \d+ \|/u,
    );
    // The narrative summary no longer carries the comparison; the one-page summary gives the counts.
    expect(
      executive.slice(executive.indexOf('## Summary'), executive.indexOf('## Since last snapshot')),
    ).not.toContain('Since the last snapshot');
    const firstExecutive = first.summary.paths.reports.find((p) => p.endsWith('.md'))!;
    expect(await readFile(firstExecutive, 'utf8')).not.toContain('Since last snapshot');

    const bundle = await verifyBundle(second.summary.paths.bundle!);
    expect(bundle.problems).toEqual([]);
    expect(bundle.provenance_checked).toContain('gate-report.json');
    expect(bundle.provenance_checked.some((name) => name.startsWith('reports/'))).toBe(true);
  });

  it('exits 4 through the CLI when a gate trips, with the reports still written and the rows named', async () => {
    const sim = await simulator();
    const dir = await makeTempDir('airt-run-');
    const file = path.join(dir, 'airt-report.yaml');
    await writeFile(
      file,
      [
        `connection: {base_url: "${sim.url}", org: ${sim.org}, workspace: ${sim.workspace}}`,
        `projects: [${sim.projectKeys[0]}]`,
        'reports: [{kind: executive, formats: [md]}]',
        'gates:',
        '  - overall_asr <= 0',
        '  - risk_score <= 10',
        'bundle: {enabled: false}',
        '',
      ].join('\n'),
    );
    const io = recordingIO({ cwd: dir, env: { AIRT_TOKEN: sim.token } });
    const code = await main(['run', '--config', 'airt-report.yaml', '--quiet'], io);
    expect(code).toBe(4);
    const summaryPath = io.out.join('').trim().split('\n').at(-1)!;
    const summary = JSON.parse(await readFile(summaryPath, 'utf8')) as RunSummary;
    expect(summary.outcome).toBe('gate_tripped');
    expect(summary.gates.map((g) => [g.gate, g.status])).toEqual([
      ['overall_asr <= 0', 'fail'],
      ['risk_score <= 10', 'pass'],
    ]);
    expect(summary.steps.find((s) => s.name === 'bundle')).toMatchObject({
      status: 'skipped',
      detail: 'disabled in the config',
    });
    expect(existsSync(summary.paths.reports[0]!)).toBe(true);
    const markdown = await readFile(summary.paths.gate_report_md!, 'utf8');
    // The assessments behind the pooled ASR (some may be at 0 themselves), or the ones breaking it.
    expect(markdown).toMatch(/Rows (?:that tripped it|behind the value) \(\d+\):/u);
    expect(io.err.join('')).toContain('tripped: overall_asr <= 0 on');
  });

  it('exits 3 when a request fails for good and the snapshot is partial', async () => {
    // Seed 5 with a 20% 502 rate and a single attempt loses exactly one trial list (deterministic) in a
    // world of three assessments per project.
    const sim = await simulator({
      seed: 5,
      faults: '502=0.2',
      scale: { ...SCALE, assessmentsPerProject: 3 },
    });
    const dir = await makeTempDir('airt-run-');
    const config = runConfigFromObject(baseConfig(sim, { snapshot: { max_attempts: 1 } }), dir);
    const result = await runPipeline(config, { stderr: () => undefined, env: { AIRT_TOKEN: sim.token } });
    expect(result.exitCode).toBe(3);
    expect(result.summary.outcome).toBe('partial');
    expect(result.summary.snapshot).toMatchObject({ status: 'partial', failed_requests: 1 });
    expect(result.summary.steps.find((s) => s.name === 'snapshot')?.status).toBe('partial');
    await expectSummaryMatchesDisk(result.summary, result.summaryPath);
  });

  it('names the config key, not a CLI flag, when the service rejects the token', async () => {
    const sim = await simulator();
    const dir = await makeTempDir('airt-run-');
    const config = runConfigFromObject(baseConfig(sim, {}), dir);
    const result = await runPipeline(config, { stderr: () => undefined, env: { AIRT_TOKEN: 'wrong-token' } });
    expect(result.exitCode).toBe(1);
    const error = result.summary.steps.find((s) => s.name === 'snapshot')?.error ?? '';
    expect(error).toContain('401');
    expect(error).toContain('Set AIRT_TOKEN or connection.token_file in the config to a valid token.');
    expect(error).not.toContain('--token-file');
  });

  it('exits 130 when interrupted, with the outcome recorded as interrupted', async () => {
    const sim = await simulator();
    const dir = await makeTempDir('airt-run-');
    const config = runConfigFromObject(baseConfig(sim, {}), dir);
    const controller = new AbortController();
    controller.abort(new Error('Ctrl-C'));
    const result = await runPipeline(config, {
      stderr: () => undefined,
      env: { AIRT_TOKEN: sim.token },
      signal: controller.signal,
    });
    expect(result.exitCode).toBe(130);
    expect(result.summary.outcome).toBe('interrupted');
    expect(result.summary.steps.find((s) => s.name === 'snapshot')?.error).toContain('Interrupted');
  });

  it('refuses to start while another run holds the database lock', async () => {
    const dir = await makeTempDir('airt-run-');
    const config = runConfigFromObject(
      { connection: { base_url: 'http://127.0.0.1:9', org: 'acme', workspace: 'main' } },
      dir,
    );
    const release = await acquireRunLock([config.database], {
      waitSeconds: 0,
      onCompromised: () => undefined,
    });
    try {
      await expect(
        runPipeline(config, { stderr: () => undefined, env: { AIRT_TOKEN: 't' } }),
      ).rejects.toThrow(/Another airt-report run holds the lock on .*airt\.duckdb/);
    } finally {
      await release();
    }
  });

  it('prints the config JSON Schema', async () => {
    const io = recordingIO();
    expect(await main(['run', '--print-config-schema'], io)).toBe(0);
    const schema = JSON.parse(io.out.join('')) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toContain('gates');
  });
});
