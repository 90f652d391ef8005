/**
 * An evaluation job has a pass rate only once every item of its dataset has an outcome (passed,
 * failed, errored, infra_error, timed_out): a queued or running job, or one cancelled before all its
 * items ran, has none (NULL, shown "—"), never the 0 that items passed ÷ dataset size gives before the
 * items have run. Before, `@evaluation_pass_rates` showed `queued … 0 286 0 recomputed` where the
 * service's own pass_rate was null, the executive report showed `queued … 0.0%`, and
 * `min_evaluation_pass_rate >= 0.5` failed every project on its queued and running jobs.
 *
 * The expectation is recomputed here in plain TypeScript from the snapshot's raw evaluation pages,
 * checked against the service's own analytics pass_rate (null exactly for the jobs without a rate,
 * the same ratio for the others), and compared with the view, the named query, the TypeScript twin,
 * the executive report (model and Markdown) and the gate, for a simulator world with jobs in every
 * state.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGateExpression } from '../../src/pipeline/gate-expression.js';
import { judgeGate } from '../../src/pipeline/gates.js';
import { warehouseMetricProvider } from '../../src/pipeline/warehouse-metrics.js';
import { buildModel } from '../../src/report/build-model.js';
import { evaluationPassRate } from '../../src/report/model-sql/executive.js';
import type { ExecutiveModel } from '../../src/report/model.js';
import { renderMarkdown } from '../../src/report/render.js';
import { startSimulator } from '../../src/simulator/index.js';
import { takeSnapshot } from '../../src/snapshot/take-snapshot.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { readNamedQuery } from '../../src/warehouse/named-queries.js';
import { queryRows } from '../../src/report/model-sql/query.js';
import { rawEvaluationJobs } from '../helpers/raw-evaluation-jobs.js';
import { asPercent, mdHeader, mdTable } from './report-text.js';

/** One job as the snapshot's raw JSON has it, with the pass rate this test expects. */
interface RawJob {
  id: string;
  projectKey: string;
  status: string;
  datasetSize: number;
  counts: Record<string, number>;
  servicePassRate: number | null;
  serviceStatus: string | null;
  expected: number | null;
}

const OUTCOMES = ['passed', 'failed', 'errored', 'infra_error', 'timed_out'] as const;

let dir: string;
let snapshotId: string;
let warehouse: Warehouse;
let jobs: RawJob[];
let projects: string[];

/** Every job of the snapshot's evaluation pages (a job on two pages once), with its expected rate. */
async function rawJobs(snapshotDir: string, keyOf: ReadonlyMap<string, string>): Promise<RawJob[]> {
  return (await rawEvaluationJobs(snapshotDir)).map((item) => {
    const counts = item.item_counts as Record<string, number>;
    const datasetSize = Number(item.dataset_size);
    const withOutcome = OUTCOMES.reduce((sum, state) => sum + (counts[state] ?? 0), 0);
    const analytics = item.analytics as { pass_rate: number | null; status: string } | null;
    return {
      id: String(item.id),
      projectKey: keyOf.get(String(item.project_id)) ?? '?',
      status: String(item.job_status),
      datasetSize,
      counts,
      servicePassRate: analytics?.pass_rate ?? null,
      serviceStatus: analytics?.status ?? null,
      expected: datasetSize > 0 && withOutcome === datasetSize ? (counts.passed ?? 0) / datasetSize : null,
    };
  });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'airt-pass-finished-'));
  let snapshotDir: string;
  const sim = await startSimulator({
    seed: 4,
    projects: 2,
    scale: { assessmentsPerProject: 1, attacksPerAssessment: 2, trialsPerAttack: 2, evaluationJobs: 60 },
  });
  try {
    projects = sim.truth.projects().map((p) => p.key);
    const snapshot = await takeSnapshot({
      baseUrl: sim.url,
      org: sim.org,
      workspace: sim.workspace,
      token: sim.token,
      out: path.join(dir, 'snapshots'),
      projects,
      trialsLimit: 5,
    });
    snapshotId = snapshot.snapshotId;
    snapshotDir = snapshot.dir;
    const keyOf = new Map(sim.truth.projects().map((p) => [p.id, p.key]));
    jobs = await rawJobs(snapshot.dir, keyOf);
  } finally {
    await sim.close();
  }
  const db = path.join(dir, 'w.duckdb');
  await loadSnapshots(db, [snapshotDir]);
  warehouse = await openWarehouse(db, { readOnly: true });
}, 120_000);

afterAll(async () => {
  warehouse?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const round4 = (value: number | null): number | null =>
  value === null ? null : Math.round(value * 1e4) / 1e4;

describe('evaluation pass rate: only a job whose every item has an outcome has one', () => {
  it('the world has jobs in every state, and the rule matches where the service gives a pass_rate', () => {
    const statuses = new Set(jobs.map((job) => job.status));
    for (const status of ['queued', 'running', 'cancelled', 'completed', 'failed']) {
      expect(statuses, status).toContain(status);
    }
    for (const job of jobs) {
      const finished = ['completed', 'failed', 'timed_out'].includes(job.status);
      expect(job.expected !== null, `${job.status} ${job.id}`).toBe(finished);
      // The service's analytics pass_rate is null exactly where we have none, the same ratio elsewhere.
      expect(job.servicePassRate === null, job.id).toBe(job.expected === null);
      if (job.expected !== null) expect(round4(job.expected)).toBe(job.servicePassRate);
    }
  });

  it('the view and @evaluation_pass_rates give the recomputed rate, NULL for the others', async () => {
    const view = await queryRows(
      warehouse.conn,
      `SELECT evaluation_id, pass_rate, source FROM metric_evaluation_pass_rates WHERE snapshot_id = $1`,
      [snapshotId],
    );
    const byId = new Map(view.map((row) => [String(row.evaluation_id), row]));
    expect(byId.size).toBe(jobs.length);
    const sql = (await readNamedQuery('evaluation_pass_rates')).sql.trim().replace(/;$/u, '');
    const named = new Map(
      (await queryRows(warehouse.conn, sql, [])).map((row) => [String(row.evaluation_id), row]),
    );
    for (const job of jobs) {
      const row = byId.get(job.id);
      const rate = row?.pass_rate === null ? null : Number(row?.pass_rate);
      expect(rate === null ? null : round4(rate), `${job.status} ${job.id}`).toBe(round4(job.expected));
      expect(row?.source ?? null).toBe(job.expected === null ? null : 'recomputed');
      const fromQuery = named.get(job.id)?.pass_rate;
      expect(fromQuery === null ? null : Number(fromQuery), job.id).toBe(round4(job.expected));
    }
  });

  it('the TypeScript twin gives the same rate from the raw counts', () => {
    for (const job of jobs) {
      const items = Object.fromEntries(OUTCOMES.map((state) => [state, job.counts[state] ?? 0])) as Record<
        (typeof OUTCOMES)[number],
        number
      >;
      const rate = evaluationPassRate({
        items,
        datasetSize: job.datasetSize,
        servicePassRate: job.servicePassRate,
        serviceStatus: job.serviceStatus,
      });
      expect(round4(rate), `${job.status} ${job.id}`).toBe(round4(job.expected));
    }
  });

  it('the executive report shows the rate, and "—" for a job without one', async () => {
    for (const project of projects) {
      const model = (await buildModel(warehouse.conn, { kind: 'executive', project })) as ExecutiveModel;
      const mine = jobs.filter((job) => job.projectKey === project);
      expect(model.evaluationJobs.map((row) => row.id).sort()).toEqual(mine.map((job) => job.id).sort());
      const { markdown } = await renderMarkdown(model);
      const table = mdTable(markdown, '| Job | Status |');
      const passRate = mdHeader(markdown, '| Job | Status |').indexOf('Pass rate');
      expect(table).toHaveLength(model.evaluationJobs.length);
      model.evaluationJobs.forEach((row, index) => {
        const job = mine.find((j) => j.id === row.id)!;
        expect(round4(row.passRate), `${job.status} ${job.id}`).toBe(round4(job.expected));
        // "—" marks a value that is unknown, never 0.0%.
        expect(table[index]![passRate], `${job.status} ${job.id}`).toBe(
          job.expected === null ? '—' : `${asPercent(job.expected)}%`,
        );
      });
    }
  });

  it('min_evaluation_pass_rate is the lowest rate among jobs with one and says how many it leaves out', async () => {
    const provider = warehouseMetricProvider(warehouse.conn);
    const expression = parseGateExpression('min_evaluation_pass_rate >= 0.5');
    for (const project of projects) {
      const mine = jobs.filter((job) => job.projectKey === project);
      const rated = mine.filter((job) => job.expected !== null);
      const without = mine.filter((job) => job.expected === null);
      const measurement = await provider.measure(expression.metric, {
        snapshotId,
        previousSnapshotId: null,
        project,
      });
      const lowest = Math.min(...rated.map((job) => job.expected!));
      expect(measurement.value).toBeCloseTo(lowest, 10);
      expect(measurement.rows.map((row) => row.fields.evaluation_id).sort()).toEqual(
        rated.map((job) => job.id).sort(),
      );
      expect(without.length).toBeGreaterThan(0);
      const counts = new Map<string, number>();
      for (const job of without) counts.set(job.status, (counts.get(job.status) ?? 0) + 1);
      const listed = [...counts]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([status, n]) => `${n} ${status}`)
        .join(', ');
      expect(measurement.note).toBe(
        `${without.length} ${without.length === 1 ? 'job' : 'jobs'} without a pass rate ` +
          `${without.length === 1 ? 'is' : 'are'} not counted (${listed}): a job has one only once every ` +
          'item has an outcome',
      );
      const result = judgeGate(expression, project, measurement, 'trip');
      for (const row of result.tripping_rows) {
        expect(['queued', 'running', 'cancelled']).not.toContain(row.fields.status);
      }
    }
  });
});
