/**
 * Gates on a partial night: a project the snapshot lists but holds no summary of (its request failed)
 * is in the scope of every gate that covers it, and its gates are "unknown (no data)" and trip, with
 * the project named (by the name an earlier snapshot gave it). Before, an unscoped gate left such a
 * project out and passed as if it did not exist. The snapshots are of the simulator on 127.0.0.1,
 * port 0; the failed summary comes from the fetch the snapshot is given (500 "summary store down",
 * test/helpers/partial-snapshot-pair.ts), in `airt-report gates` and in a run.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkGates, type CheckGatesOptions } from '../../src/pipeline/check-gates.js';
import { parseGateExpression } from '../../src/pipeline/gate-expression.js';
import { gateReportJunit } from '../../src/pipeline/gate-junit.js';
import { gateReportMarkdown, type GateReport } from '../../src/pipeline/gate-report.js';
import type { GateResult } from '../../src/pipeline/gates.js';
import { runConfigFromObject } from '../../src/pipeline/run-config.js';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { startSimulator } from '../../src/simulator/index.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import {
  failingSummaryFetch,
  takePartialSnapshotPair,
  type PartialSnapshotPair,
} from '../helpers/partial-snapshot-pair.js';
import { readRawSummary } from '../helpers/raw-summary-findings.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

// Thresholds every project of this world meets: only a project without data can trip them.
const GATES = ['overall_asr <= 1', 'new_critical_findings <= 1000'];

let work: string;
let db: string;
let pair: PartialSnapshotPair;
/** The failing project's name, from its summary in the complete snapshot. */
let failingName: string;
let warehouse: Warehouse;

beforeAll(async () => {
  work = await makeTempDir('airt-gates-partial-');
  pair = await takePartialSnapshotPair(path.join(work, 'snapshots'));
  failingName = String((await readRawSummary(pair.complete.dir, pair.failing)).project_name);
  db = path.join(work, 'w.duckdb');
  await loadSnapshots(db, [pair.complete.dir, pair.partial.dir]);
  warehouse = await openWarehouse(db, { readOnly: true });
}, 120_000);

afterAll(() => {
  warehouse?.close();
});

async function gates(
  options: Partial<CheckGatesOptions> & { gates: CheckGatesOptions['gates'] },
): Promise<{ report: GateReport; warnings: string[] }> {
  const reader = await warehouse.conn.runAndReadAll(
    'SELECT org, workspace FROM snapshots WHERE snapshot_id = $1',
    [pair.partial.id],
  );
  const [org, workspace] = reader.getRows()[0]!.map(String);
  return checkGates(warehouse.conn, {
    onUnknown: 'trip',
    projects: [],
    org: org!,
    workspace: workspace!,
    snapshotId: pair.partial.id,
    previousSnapshotId: pair.complete.id,
    database: db,
    ...options,
  });
}

const unscoped = (texts: readonly string[]): CheckGatesOptions['gates'] =>
  texts.map((text) => ({ expression: parseGateExpression(text), project: null }));

function onProject(report: GateReport, project: string): GateResult[] {
  return report.results.filter((r) => r.project === project);
}

/** What every gate on the project without a summary says. */
function expectNoData(result: GateResult | undefined, partialId: string): void {
  expect(result).toMatchObject({
    status: 'unknown',
    status_text: 'unknown (no data)',
    trips: true,
    value: null,
  });
  expect(result!.note).toContain(
    `project "${failingName}" (${pair.failing}) has no summary in snapshot ${partialId}`,
  );
  expect(result!.note).toContain('GET ');
  expect(result!.note).toContain('HTTP 500');
}

describe('gates on a snapshot that lacks a project summary', () => {
  it('is partial because that summary failed (the repro)', () => {
    expect(pair.partial.status).toBe('partial');
  });

  it('an unscoped gate covers the project without a summary: unknown (no data), tripped, named', async () => {
    const { report, warnings } = await gates({ gates: unscoped(GATES) });
    expect(warnings).toEqual([]);
    // Every gate on every project the snapshot lists, in key order.
    expect(report.results.map((r) => [r.gate, r.project])).toEqual(
      GATES.flatMap((gate) => [pair.failing, pair.fetched].sort().map((project) => [gate, project])),
    );
    for (const result of onProject(report, pair.failing)) expectNoData(result, pair.partial.id);
    expect(onProject(report, pair.fetched).map((r) => r.status)).toEqual(['pass', 'pass']);
    expect(report.tripped).toBe(true);
    expect(report.counts).toMatchObject({ gates: 4, pass: 2, fail: 0, unknown: 2 });

    const markdown = gateReportMarkdown(report).replaceAll('\\', '');
    expect(markdown).toContain(`| \`overall_asr <= 1\` | ${pair.failing} | — | **unknown (no data)** |`);
    expect(markdown).toContain(`project "${failingName}" (${pair.failing}) has no summary`);
    expect(gateReportJunit(report)).toContain(
      `project &quot;${failingName}&quot; (${pair.failing}) has no summary`,
    );
  });

  it('under on_unknown_gate: warn the project is still listed, and does not trip', async () => {
    const { report } = await gates({ gates: unscoped(GATES), onUnknown: 'warn' });
    const lacking = onProject(report, pair.failing);
    expect(lacking.map((r) => [r.status_text, r.trips])).toEqual([
      ['unknown (no data)', false],
      ['unknown (no data)', false],
    ]);
    expect(report.tripped).toBe(false);
  });

  it('configured projects and a gate on that project (by UUID) cover it too, with no "not in snapshot" warning', async () => {
    const { report, warnings } = await gates({
      gates: [
        ...unscoped(['overall_asr <= 1']),
        { expression: parseGateExpression('open_critical_findings <= 1000'), project: pair.failingId },
      ],
      projects: [pair.failing, pair.fetched],
    });
    expect(warnings).toEqual([]);
    expect(report.results.map((r) => [r.gate, r.project])).toEqual([
      ['overall_asr <= 1', pair.failing],
      ['overall_asr <= 1', pair.fetched],
      ['open_critical_findings <= 1000', pair.failing],
    ]);
    for (const result of onProject(report, pair.failing)) expectNoData(result, pair.partial.id);
  });

  it('one project configured by key and by UUID is gated once', async () => {
    const { report, warnings } = await gates({
      gates: unscoped(['overall_asr <= 1']),
      projects: [pair.failing, pair.failingId, pair.fetched],
    });
    expect(warnings).toEqual([]);
    expect(report.results.map((r) => [r.gate, r.project])).toEqual([
      ['overall_asr <= 1', pair.failing],
      ['overall_asr <= 1', pair.fetched],
    ]);
  });

  it('a run on the partial night trips its unscoped gates on that project (exit 4)', async () => {
    const sim = await startSimulator({
      seed: 5,
      projects: 2,
      scale: { assessmentsPerProject: 3, attacksPerAssessment: 4, trialsPerAttack: 6, evaluationJobs: 4 },
    });
    try {
      const [failing, fetched] = sim.truth.projects();
      const dir = await makeTempDir('airt-gates-partial-run-');
      const config = runConfigFromObject(
        {
          connection: { base_url: sim.url, org: sim.org, workspace: sim.workspace },
          snapshot: { max_attempts: 2 },
          reports: [],
          bundle: { enabled: false },
          gates: GATES,
        },
        dir,
      );
      const effects = { stderr: (): void => undefined, env: { AIRT_TOKEN: sim.token } };
      // A good night first: it gives the project its name and becomes the baseline.
      const good = await runPipeline(config, effects);
      expect(good.exitCode).toBe(0);
      const partial = await runPipeline(config, {
        ...effects,
        fetch: failingSummaryFetch([failing!.key, failing!.id]),
      });
      expect(partial.summary.snapshot.status).toBe('partial');
      expect(partial.exitCode).toBe(4);
      const lacking = partial.summary.gates.filter((g) => g.project === failing!.key);
      expect(lacking.map((g) => [g.gate, g.status_text, g.trips])).toEqual([
        ['overall_asr <= 1', 'unknown (no data)', true],
        ['new_critical_findings <= 1000', 'unknown (no data)', true],
      ]);
      expect(partial.summary.gates.filter((g) => g.project === fetched!.key).map((g) => g.status)).toEqual([
        'pass',
        'pass',
      ]);
    } finally {
      await sim.close();
    }
  });
});
