import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import type { SnapshotDiff } from '../../src/diff/diff-report.js';
import { queryRows } from '../../src/diff/warehouse-source.js';
import { parseGateExpression } from '../../src/pipeline/gate-expression.js';
import { judgeGate, type GateMetricProvider } from '../../src/pipeline/gates.js';
import { warehouseMetricProvider } from '../../src/pipeline/warehouse-metrics.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { takeSnapshot } from '../../src/snapshot/take-snapshot.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

// Six assessments in one project: enough for the simulator's planted roles (an assessment with an
// erroneous asr_by_category slice, and one whose attack run regresses to critical at epoch 1).
const SCALE = { assessmentsPerProject: 6, attacksPerAssessment: 4, trialsPerAttack: 5, evaluationJobs: 20 };

let sim: RunningSimulator;
let work: string;
let db: string;
let before: string;
let after: string;
let project: string;
let warehouse: Warehouse;
let provider: GateMetricProvider;

beforeAll(async () => {
  sim = await startSimulator({ projects: 1, scale: SCALE });
  work = await makeTempDir('airt-gates-');
  db = path.join(work, 'airt.duckdb');
  const options = {
    baseUrl: sim.url,
    org: sim.org,
    workspace: sim.workspace,
    token: sim.token,
    out: path.join(work, 'snapshots'),
  };
  const first = await takeSnapshot(options, { now: () => new Date('2026-02-01T00:00:00Z') });
  sim.setEpoch(1);
  const second = await takeSnapshot(options, { now: () => new Date('2026-02-02T00:00:00Z') });
  await loadSnapshots(db, [first.dir, second.dir]);
  before = first.snapshotId;
  after = second.snapshotId;
  project = sim.projectKeys[0]!;
  warehouse = await openWarehouse(db, { readOnly: true });
  provider = warehouseMetricProvider(warehouse.conn);
});

afterAll(async () => {
  warehouse?.close();
  await sim?.close();
});

async function measure(expression: string) {
  const gate = parseGateExpression(expression);
  const measurement = await provider.measure(gate.metric, {
    snapshotId: after,
    previousSnapshotId: before,
    project,
  });
  return { gate, measurement };
}

/** Judges `metric <= value` (passes) and `metric < value` (trips) for a metric whose value is > 0. */
async function passAndTrip(metric: string, op: '<' | '>' = '<') {
  const { measurement } = await measure(`${metric} >= 0`);
  expect(measurement.value, metric).not.toBeNull();
  const value = measurement.value!;
  const holds = op === '<' ? `${metric} <= ${value}` : `${metric} >= ${value}`;
  const breaks = op === '<' ? `${metric} < ${value}` : `${metric} > ${value}`;
  const pass = judgeGate(parseGateExpression(holds), project, measurement, 'trip');
  const fail = judgeGate(parseGateExpression(breaks), project, measurement, 'trip');
  return { value, pass, fail, measurement };
}

describe('gates measured in the warehouse', () => {
  it('finding gates: new critical, new, regressed, open critical', async () => {
    for (const metric of [
      'new_critical_findings',
      'new_findings',
      'regressed_findings',
      'open_critical_findings',
    ]) {
      const { value, pass, fail } = await passAndTrip(metric);
      expect(value, metric).toBeGreaterThan(0);
      expect(pass.status).toBe('pass');
      expect(fail.status).toBe('fail');
      expect(fail.tripping_rows).toHaveLength(value);
      expect(Object.keys(fail.tripping_rows[0]!.fields)).toEqual([
        'attack_run_id',
        'assessment',
        'severity',
        'score',
        'triage',
        'change',
      ]);
    }
    // The planted regression: an attack run re-scored from below 0.5 to critical.
    const { measurement } = await measure('regressed_findings <= 0');
    expect(
      measurement.rows.some(
        (row) => row.fields.severity === 'critical' && String(row.fields.change).includes('→ critical'),
      ),
    ).toBe(true);
  });

  it('project figures: overall ASR and risk score list the assessments behind them', async () => {
    for (const metric of ['overall_asr', 'risk_score']) {
      const { pass, fail, measurement } = await passAndTrip(metric);
      expect(pass.status).toBe('pass');
      expect(fail.status).toBe('fail');
      expect(fail.tripping_rows).toHaveLength(measurement.rows.length);
      expect(measurement.rows.length).toBe(6); // the analyzed assessments (completed or failed) behind the recomputed figure
    }
  });

  it('category ASR names only the assessments over the threshold and says what was excluded', async () => {
    const categories = await queryRows(
      warehouse.conn,
      `SELECT key FROM asr_breakdown WHERE snapshot_id = $1 AND dimension = 'category' AND asr > 0
       GROUP BY key ORDER BY count(*) DESC, key LIMIT 1`,
      [after],
    );
    const category = String(categories[0]!.key);
    const { pass, fail, measurement } = await passAndTrip(`category.${category}.asr`);
    expect(pass.status_text).toBe('pass (excludes 1 assessment with erroneous asr_by_category)');
    expect(fail.status_text).toBe('fail (excludes 1 assessment with erroneous asr_by_category)');
    expect(fail.tripping_rows.length).toBeGreaterThan(0);
    expect(fail.tripping_rows.every((row) => row.value === measurement.value)).toBe(true);
    // No assessment ran it, the excluded one included: no data, not data excluded (the diff's rule).
    const unknown = await measure('category.no_such_category.asr <= 0.1');
    expect(judgeGate(unknown.gate, project, unknown.measurement, 'trip').status_text).toBe(
      'unknown (no data)',
    );
  });

  it('minimum trials, evaluation pass rate and framework gates', async () => {
    for (const metric of ['min_trials_per_category', 'min_evaluation_pass_rate']) {
      const { pass, fail, measurement } = await passAndTrip(metric, '>');
      expect(pass.status, metric).toBe('pass');
      expect(fail.status, metric).toBe('fail');
      expect(fail.tripping_rows.length).toBeGreaterThan(0);
      expect(fail.tripping_rows.length).toBeLessThanOrEqual(measurement.rows.length);
    }
    const failing = await passAndTrip('framework.owasp_llm.failing_categories');
    expect(failing.fail.tripping_rows.map((row) => row.fields.state)).toEqual(
      failing.fail.tripping_rows.map(() => 'failing'),
    );
    expect(failing.fail.tripping_rows.length).toBe(failing.value);
    const coverage = await passAndTrip('framework.owasp_llm.coverage_pct', '>');
    expect(coverage.fail.tripping_rows.every((row) => row.fields.state === 'not_tested')).toBe(true);
    const missing = await measure('framework.no_such_framework.coverage_pct >= 1');
    expect(missing.measurement.value).toBeNull();
  });
});

describe('airt-report diff', () => {
  it('prints the lifecycle, metric deltas and schema drift as JSON and Markdown', async () => {
    const json = recordingIO({ cwd: work });
    expect(await main(['diff', '--db', db, '--from', before, '--to', after, '--format', 'json'], json)).toBe(
      0,
    );
    const diff = JSON.parse(json.out.join('')) as SnapshotDiff;
    expect(diff.from?.snapshot_id).toBe(before);
    expect(diff.projects.map((p) => p.project)).toEqual([project]);
    const [only] = diff.projects;
    expect(only!.counts.regressed).toBeGreaterThanOrEqual(1);
    expect(only!.counts.new).toBeGreaterThanOrEqual(1); // the epoch-1 assessment
    expect(only!.metrics.map((m) => m.key)).toContain('overall_asr');

    const markdown = recordingIO({ cwd: work });
    const out = path.join(work, 'diff.md');
    expect(await main(['diff', '--db', db, '--from', before, '--to', after, '--out', out], markdown)).toBe(0);
    const text = await readFile(out, 'utf8');
    expect(text).toContain(`## Project ${project}`); // plain: '-' needs no escape
    expect(text).toContain('### Regressed findings');

    const unknown = recordingIO({ cwd: work });
    expect(await main(['diff', '--db', db, '--from', 'nope', '--to', after], unknown)).toBe(1);
    expect(unknown.err.join('')).toContain('Snapshot nope is not in the database');
  });
});
