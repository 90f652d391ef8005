/**
 * Gate results as JUnit XML, read back with junit2json (an npm JUnit consumer CI tooling uses): the
 * same counts of tests, failures and skips as the gate report, one testcase per gate and project,
 * failure messages naming value, threshold and the rows behind it, hostile text escaped. Then the
 * `gates` command on a real warehouse built from the simulator.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse, type Property, type TestSuite, type TestSuites } from 'junit2json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { parseGateExpression } from '../../src/pipeline/gate-expression.js';
import { gateReportJunit } from '../../src/pipeline/gate-junit.js';
import { buildGateReport, type GateReport } from '../../src/pipeline/gate-report.js';
import { judgeGate, type MetricMeasurement } from '../../src/pipeline/gates.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { takeSnapshot } from '../../src/snapshot/take-snapshot.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

const HOSTILE = 'evil</failure><x a="1">&amp;\u0000\u001b[31m\u202eRLO\uFFFF\ud83e\'"';

function measurement(
  value: number | null,
  rows: number,
  extra: Partial<MetricMeasurement> = {},
): MetricMeasurement {
  return {
    value,
    aggregate: 'count',
    rows: Array.from({ length: rows }, (_, i) => ({
      label: `${HOSTILE} #${i}`,
      value: null,
      fields: { attack_run_id: `run-${i}`, severity: 'critical', goal: HOSTILE },
    })),
    exclusions: [],
    note: null,
    ...extra,
  };
}

function sampleReport(): GateReport {
  const judge = (text: string, project: string, m: MetricMeasurement, onUnknown: 'trip' | 'warn' = 'trip') =>
    judgeGate(parseGateExpression(text), project, m, onUnknown);
  return buildGateReport({
    snapshotId: '20260102T000000Z-acme-main-0001',
    previousSnapshotId: null,
    rootSha256: 'a'.repeat(64),
    results: [
      judge('new_critical_findings == 0', 'bot', measurement(3, 3)),
      judge('new_critical_findings == 0', HOSTILE, measurement(0, 0)),
      judge('overall_asr <= 0.25', 'bot', measurement(0.5833, 0, { aggregate: 'value' })),
      judge('risk_score <= 50', 'bot', measurement(null, 0)),
      judge('risk_score <= 50', 'other', measurement(null, 0), 'warn'),
      judge(
        'category.pii.asr <= 0.1',
        'bot',
        measurement(0.4, 0, { insufficient: { bound: null, reason: 'fewer than 10 trials' } }),
      ),
    ],
  });
}

function suiteOf(parsed: TestSuites | TestSuite | null | undefined): TestSuite {
  const suite = (parsed as TestSuites | undefined)?.testsuite?.[0];
  if (suite === undefined) throw new Error('no testsuite');
  return suite;
}

describe('gate results as JUnit XML', () => {
  it('junit2json reads the same counts, one testcase per gate and project, with value, threshold and rows', async () => {
    const report = sampleReport();
    const xml = gateReportJunit(report);
    // eslint-disable-next-line no-control-regex -- no raw control characters may reach the file
    expect(xml).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u202E\uFFFF]/u);
    const parsed = await parse(xml);
    const suite = suiteOf(parsed);
    expect((parsed as TestSuites).tests).toBe(report.counts.gates);
    expect(suite.tests).toBe(6);
    expect(suite.failures).toBe(report.results.filter((r) => r.trips).length);
    expect(suite.failures).toBe(3);
    expect(suite.skipped).toBe(2);
    const cases = suite.testcase ?? [];
    expect(cases.map((c) => c.name)).toEqual([
      'new_critical_findings == 0 [bot]',
      // Escaped for XML and read back whole; controls and bidi shown, U+FFFF dropped, a lone surrogate U+FFFD.
      'new_critical_findings == 0 [evil</failure><x a="1">&amp;\\u{0000}\\u{001b}[31m\\u{202e}RLO\uFFFD\'"]',
      'overall_asr <= 0.25 [bot]',
      'risk_score <= 50 [bot]',
      'risk_score <= 50 [other]',
      'category.pii.asr <= 0.1 [bot]',
    ]);
    const newCritical = cases[0]?.failure?.[0];
    expect(newCritical?.message).toBe(
      'new_critical_findings == 0: value 3, threshold == 0 does not hold (fail); 3 rows behind it',
    );
    expect(newCritical?.inner).toContain('Rows behind it (3):');
    expect(newCritical?.inner).toContain('evil</failure><x a="1">&amp;\\u{0000}\\u{001b}[31m\\u{202e}RLO');
    expect(newCritical?.inner).toContain('attack_run_id=run-2, severity=critical');
    expect(cases[1]?.failure).toBeUndefined();
    expect(cases[2]?.failure?.[0]?.message).toBe(
      'overall_asr <= 0.25: value 0.5833, threshold <= 0.25 does not hold (fail); no individual rows: the value itself breaks the threshold',
    );
    expect(cases[3]?.failure?.[0]?.type).toBe('unknown');
    expect(cases[4]?.skipped?.[0]?.message).toBe('risk_score <= 50: unknown (no data)');
    expect(cases[5]?.skipped?.[0]?.message).toContain('insufficient evidence (fewer than 10 trials)');
    const properties = new Map<string | undefined, string | undefined>(
      (suite.properties ?? []).map((p: Property) => [p.name, p.value]),
    );
    expect(properties.get('snapshot_id')).toBe(report.snapshot_id);
    expect(properties.get('root_sha256')).toBe(report.root_sha256);
    // Deterministic: the same report gives the same bytes.
    expect(gateReportJunit(sampleReport())).toBe(xml);
  });

  it('no gates is an empty, valid suite', async () => {
    const xml = gateReportJunit(
      buildGateReport({ snapshotId: 's', previousSnapshotId: null, rootSha256: null, results: [] }),
    );
    expect(await parse(xml)).toMatchObject({ tests: 0, failures: 0 });
  });
});

describe('airt-report gates on a warehouse', () => {
  let sim: RunningSimulator;
  let work: string;
  let db: string;
  let config: string;
  let second: string;

  beforeAll(async () => {
    sim = await startSimulator({
      projects: 2,
      scale: { assessmentsPerProject: 3, attacksPerAssessment: 3, trialsPerAttack: 4, evaluationJobs: 4 },
    });
    work = await makeTempDir('airt-gates-cmd-');
    db = path.join(work, 'airt.duckdb');
    const options = {
      baseUrl: sim.url,
      org: sim.org,
      workspace: sim.workspace,
      token: sim.token,
      out: path.join(work, 'snapshots'),
    };
    const a = await takeSnapshot(options, { now: () => new Date('2026-02-01T00:00:00Z') });
    sim.setEpoch(1);
    const b = await takeSnapshot(options, { now: () => new Date('2026-02-02T00:00:00Z') });
    await loadSnapshots(db, [a.dir, b.dir]);
    second = b.snapshotId;
    config = path.join(work, 'airt-report.json');
    await writeFile(
      config,
      JSON.stringify({
        connection: { base_url: sim.url, org: sim.org, workspace: sim.workspace },
        database: 'airt.duckdb',
        gates: [
          'open_critical_findings <= 0',
          'overall_asr <= 1',
          { metric: 'new_findings', op: '<=', threshold: 0, project: sim.projectKeys[0] },
        ],
      }),
    );
  });

  afterAll(async () => {
    await sim?.close();
  });

  it('writes JUnit XML whose counts match the gate report, and exits 4 when a gate trips', async () => {
    const io = recordingIO({ cwd: work });
    const junit = path.join(work, 'gates.xml');
    const json = path.join(work, 'gates.json');
    const code = await main(['gates', '--config', config, '--junit', junit, '--json', json], io);
    const report = JSON.parse(await readFile(json, 'utf8')) as GateReport;
    expect(report.snapshot_id).toBe(second);
    expect(report.previous_snapshot_id).not.toBeNull();
    // Two gates on every project (two) and one limited to a project.
    expect(report.counts.gates).toBe(5);
    expect(code).toBe(report.tripped ? 4 : 0);
    expect(report.tripped).toBe(true);
    const suite = suiteOf(await parse(await readFile(junit, 'utf8')));
    expect(suite.tests).toBe(report.counts.gates);
    expect(suite.failures).toBe(report.results.filter((r) => r.trips).length);
    expect(suite.testcase?.map((c) => c.name)).toEqual(report.results.map((r) => `${r.gate} [${r.project}]`));
    for (const [index, result] of report.results.entries()) {
      const failure = suite.testcase?.[index]?.failure?.[0];
      if (!result.trips) continue;
      expect(failure?.message).toContain(`threshold ${result.op} ${result.threshold}`);
      expect(failure?.message).toContain(`value ${Math.round((result.value ?? 0) * 10_000) / 10_000}`);
    }
    expect(io.out.join('')).toContain('# Gate report');
  });

  it('a snapshot that is not in the database is a usage error', async () => {
    const io = recordingIO({ cwd: work });
    expect(await main(['gates', '--config', config, '--snapshot', 'nope'], io)).toBe(2);
    expect(io.err.join('')).toContain('Snapshot nope is not in the database');
  });
});
