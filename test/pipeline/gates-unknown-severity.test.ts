/* eslint-disable @typescript-eslint/no-unsafe-member-access -- raw snapshot JSON is read untyped on purpose (the independent recomputation) */
/**
 * Count gates over findings whose severity is unknown (their attack run lacks the required
 * `best_score`): a count that could change once those severities are known is unknown and trips; a
 * verdict that holds whatever they are stands. The fixture: two simulator snapshots (127.0.0.1, port
 * 0), the second's summary of one project with best_score renamed on every attack run below critical
 * (the critical ones keep it), resealed and loaded with the clean first one. What each gate should
 * say is recomputed here from the raw JSON (which runs lack a score, which are known critical), and
 * the gates are read as `airt-report gates` gives them: the gate report and its JUnit XML.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse, type TestCase, type TestSuites } from 'junit2json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotInfo } from '../../src/diff/warehouse-source.js';
import { checkGates } from '../../src/pipeline/check-gates.js';
import { parseGateExpression } from '../../src/pipeline/gate-expression.js';
import { gateReportJunit } from '../../src/pipeline/gate-junit.js';
import { gateReportJson, gateReportMarkdown } from '../../src/pipeline/gate-report.js';
import {
  evaluateGates,
  judgeGate,
  type GateResult,
  type MetricMeasurement,
} from '../../src/pipeline/gates.js';
import { warehouseMetricProvider } from '../../src/pipeline/warehouse-metrics.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { restoreBestScores } from '../helpers/partly-unscored-summary.js';
import { analyzedRuns, readRawSummary, severityBand } from '../helpers/raw-summary-findings.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { takeUnscoredSnapshotPair, type UnscoredSnapshotPair } from '../helpers/unscored-snapshot-pair.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let pair: UnscoredSnapshotPair;
let db: string;
let warehouse: Warehouse;
let org: string;
let workspace: string;
/** From the raw JSON of the tampered project's later summary: the findings (analyzed runs). */
let unscored: string[];
let knownCritical: string[];
/** The unscored findings' bands in the clean snapshot, by run id. */
let before: Map<string, string>;

const gate = (text: string, project: string) => ({ expression: parseGateExpression(text), project });

async function evaluate(
  texts: readonly string[],
  project: string,
  options: { previous?: string | null; onUnknown?: 'trip' | 'warn' } = {},
): Promise<GateResult[]> {
  return evaluateGates(
    texts.map((text) => gate(text, project)),
    warehouseMetricProvider(warehouse.conn),
    {
      snapshotId: pair.renamed.id,
      previousSnapshotId: options.previous === undefined ? pair.clean.id : options.previous,
      projects: [project],
      onUnknown: options.onUnknown ?? 'trip',
    },
  );
}

beforeAll(async () => {
  const work = await makeTempDir('airt-gates-unknown-severity-');
  pair = await takeUnscoredSnapshotPair(path.join(work, 'snapshots'));
  // Critical runs keep their score: the project then has known criticals beside unscored findings.
  await restoreBestScores(pair.renamed.dir, pair.tampered, (s) => typeof s === 'number' && s >= 0.9);
  db = path.join(work, 'w.duckdb');
  await loadSnapshots(db, [pair.clean.dir, pair.renamed.dir]);
  warehouse = await openWarehouse(db, { readOnly: true });
  const info = await snapshotInfo(warehouse.conn, pair.renamed.id);
  if (info === null) throw new Error(`snapshot ${pair.renamed.id} is not loaded`);
  ({ org, workspace } = info);

  const runs = analyzedRuns(await readRawSummary(pair.renamed.dir, pair.tampered));
  unscored = runs.filter((run) => !Object.hasOwn(run, 'best_score')).map((run) => String(run.id));
  knownCritical = runs
    .filter((run) => typeof run.best_score === 'number' && severityBand(run.best_score) === 'critical')
    .map((run) => String(run.id));
  const cleanRuns = analyzedRuns(await readRawSummary(pair.clean.dir, pair.tampered));
  before = new Map(
    cleanRuns.map((run) => [String(run.id), severityBand((run.best_score as number | null) ?? null)]),
  );
  // The fixture: known criticals beside open findings without a score, none triaged (no findings/:
  // every severity is its score's band, every finding open); the unscored ones were below critical
  // in the clean snapshot, so they could have regressed.
  expect(knownCritical.length).toBeGreaterThan(0);
  expect(unscored.length).toBeGreaterThan(0);
  await expect(readFile(path.join(pair.renamed.dir, 'findings'), 'utf8')).rejects.toThrow();
  for (const id of unscored) expect(before.get(id)).not.toBe('critical');
}, 120_000);

afterAll(() => warehouse?.close());

describe('count gates over findings of unknown severity', () => {
  it('open_critical_findings: unknown and tripping while the unscored findings could change the verdict', async () => {
    const known = knownCritical.length;
    const most = known + unscored.length;
    const [undecided, exact, undecidedWarn] = [
      ...(await evaluate(
        [`open_critical_findings <= ${most - 1}`, `open_critical_findings == ${known}`],
        pair.tampered,
      )),
      ...(await evaluate([`open_critical_findings <= ${most - 1}`], pair.tampered, { onUnknown: 'warn' })),
    ];
    for (const result of [undecided, exact]) {
      expect(result).toMatchObject({
        status: 'unknown',
        trips: true,
        value: null,
        value_range: { min: known, max: most },
      });
      expect(result?.status_text).toContain(
        `${unscored.length} open findings of unknown severity, whose attack runs lack the required best_score, could be critical: the count is between ${known} and ${most}`,
      );
      // The findings that left it unknown are its rows.
      expect(result?.tripping_rows.map((row) => row.fields.attack_run_id).sort()).toEqual(
        [...unscored].sort(),
      );
      for (const row of result?.tripping_rows ?? []) expect(row.fields.severity).toBe('unknown');
    }
    expect(undecidedWarn).toMatchObject({ status: 'unknown', trips: false });
  });

  it('open_critical_findings: a verdict the unscored findings cannot change stands (fail over the known criticals, pass above all)', async () => {
    const known = knownCritical.length;
    const most = known + unscored.length;
    const [fail, pass] = await evaluate(
      ['open_critical_findings <= 0', `open_critical_findings <= ${most}`],
      pair.tampered,
    );
    expect(fail).toMatchObject({
      status: 'fail',
      trips: true,
      value: known,
      value_range: { min: known, max: most },
    });
    expect(fail?.status_text).toMatch(
      /^fail \(.*could be critical: the count is between \d+ and \d+, and every count in it fails/u,
    );
    expect(fail?.tripping_rows.map((row) => row.fields.attack_run_id).sort()).toEqual(
      [...knownCritical].sort(),
    );
    expect(pass).toMatchObject({ status: 'pass', trips: false, value: known });
    expect(pass?.status_text).toContain('every count in it passes');
  });

  it('regressed_findings and new_critical_findings: unknown and tripping, naming how many findings and why', async () => {
    const [regressed, newCritical, newFindings] = await evaluate(
      ['regressed_findings == 0', 'new_critical_findings == 0', 'new_findings == 0'],
      pair.tampered,
    );
    // Each unscored finding was below critical before: it could be critical now (regressed at critical).
    for (const [result, what] of [
      [regressed, 'have regressed'],
      [newCritical, 'be new or regressed at critical'],
    ] as const) {
      expect(result).toMatchObject({ status: 'unknown', trips: true, value: null });
      expect(result?.value_range).toEqual({ min: 0, max: unscored.length });
      expect(result?.status_text).toContain(
        `${unscored.length} open findings of unknown severity, whose attack runs lack the required best_score, could ${what}`,
      );
      expect(result?.tripping_rows.map((row) => row.fields.attack_run_id).sort()).toEqual(
        [...unscored].sort(),
      );
    }
    // Every unscored finding was in the clean snapshot: none of them can be new, so this one is decided.
    expect(newFindings).toMatchObject({ status: 'pass', trips: false, value: 0 });
    expect(newFindings?.value_range).toBeUndefined();
    // The project whose scores are all known is judged as before.
    const control = await evaluate(
      ['open_critical_findings <= 0', 'regressed_findings == 0', 'new_critical_findings == 0'],
      pair.control,
    );
    for (const result of control) {
      expect(result.value_range).toBeUndefined();
      expect(result.status === 'pass' || result.status === 'fail').toBe(true);
    }
  });

  it('new_findings without a previous snapshot: the unscored findings could be new', async () => {
    const known = knownCritical.length;
    const most = known + unscored.length;
    const [undecided, atLeast, below] = await evaluate(
      [`new_findings <= ${known}`, `new_findings >= ${known}`, `new_findings < ${known}`],
      pair.tampered,
      { previous: null },
    );
    expect(undecided).toMatchObject({
      status: 'unknown',
      trips: true,
      value_range: { min: known, max: most },
    });
    expect(undecided?.status_text).toContain('could be new');
    expect(atLeast).toMatchObject({ status: 'pass', value: known });
    expect(below).toMatchObject({ status: 'fail', value: known });
  });

  it('airt-report gates: the gate report and its JUnit XML carry the unknown count, its range and its findings', async () => {
    const known = knownCritical.length;
    const most = known + unscored.length;
    const { report } = await checkGates(warehouse.conn, {
      gates: [
        gate(`open_critical_findings <= ${most - 1}`, pair.tampered),
        gate('open_critical_findings <= 0', pair.tampered),
        gate('new_findings == 0', pair.tampered),
      ],
      onUnknown: 'trip',
      projects: [],
      org,
      workspace,
      snapshotId: pair.renamed.id,
      previousSnapshotId: pair.clean.id,
      database: db,
    });
    expect(report.tripped).toBe(true);
    expect(report.counts).toMatchObject({ gates: 3, pass: 1, fail: 1, unknown: 1 });
    const json = JSON.parse(gateReportJson(report)) as Json;
    expect(json.results[0]).toMatchObject({
      status: 'unknown',
      value: null,
      value_range: { min: known, max: most },
    });

    const markdown = gateReportMarkdown(report);
    expect(markdown).toContain(`| ${known} to ${most} | **unknown \\(`);
    expect(markdown).toContain(`Findings of unknown severity that could count (${unscored.length}):`);

    const suites = (await parse(gateReportJunit(report))) as TestSuites;
    const cases: TestCase[] = suites.testsuite?.[0]?.testcase ?? [];
    expect(suites).toMatchObject({ tests: 3, failures: 2 });
    const unknown = cases[0]?.failure?.[0];
    expect(unknown?.type).toBe('unknown');
    expect(unknown?.message).toContain(
      `value between ${known} and ${most}, threshold <= ${most - 1} cannot be checked`,
    );
    expect(unknown?.message).toContain(
      `${unscored.length} open findings of unknown severity, whose attack runs lack the required best_score, could be critical`,
    );
    expect(unknown?.message).toContain(`${unscored.length} findings of unknown severity behind it`);
    for (const id of unscored) expect(unknown?.inner).toContain(`attack_run_id=${id}`);
    const definite = cases[1]?.failure?.[0];
    expect(definite?.type).toBe('gate_failed');
    expect(definite?.message).toContain(`value ${known}, threshold <= 0 does not hold`);
    expect(cases[2]?.failure).toBeUndefined();
  });
});

describe('judgeGate over a count with findings of unknown severity', () => {
  const measured = (value: number, unknown: number): MetricMeasurement => ({
    value,
    aggregate: 'count',
    rows: [],
    exclusions: [],
    note: null,
    unknownSeverity: {
      rows: Array.from({ length: unknown }, (_, i) => ({ label: `run ${i}`, value: null, fields: {} })),
      reason: `${unknown} open findings of unknown severity could be critical`,
    },
  });
  const judge = (text: string, m: MetricMeasurement) => judgeGate(parseGateExpression(text), 'p', m, 'trip');

  it('== and != are decided only when the threshold lies outside the range of counts', () => {
    // Between 3 and 5.
    expect(judge('open_critical_findings == 4', measured(3, 2)).status).toBe('unknown');
    expect(judge('open_critical_findings != 4', measured(3, 2)).status).toBe('unknown');
    expect(judge('open_critical_findings == 5', measured(3, 2)).status).toBe('unknown');
    expect(judge('open_critical_findings == 7', measured(3, 2)).status).toBe('fail');
    expect(judge('open_critical_findings != 7', measured(3, 2)).status).toBe('pass');
    expect(judge('open_critical_findings == 4.5', measured(3, 2)).status).toBe('fail');
    expect(judge('open_critical_findings < 3', measured(3, 2)).status).toBe('fail');
    expect(judge('open_critical_findings > 2.5', measured(3, 2)).status).toBe('pass');
    expect(judge('open_critical_findings > 3', measured(3, 2)).status).toBe('unknown');
    // No finding of unknown severity that could count: judged on the value alone.
    const alone = judge('open_critical_findings == 3', measured(3, 0));
    expect(alone).toMatchObject({ status: 'pass', status_text: 'pass', value: 3 });
    expect(alone.value_range).toBeUndefined();
  });
});
