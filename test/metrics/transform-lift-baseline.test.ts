/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- raw snapshot JSON is read untyped on purpose (the independent recomputation) */
/**
 * Transform lift is measured against the attack runs with no transform applied. TAXONOMY says "No
 * transform is reported as `baseline`", yet metric_transform_lift looked for an asr_by_transform
 * entry keyed `baseline`, so baseline_asr and every lift were NULL and the executive report's
 * "Transform lift" section was dead. The baseline is now the pooled ASR of the untransformed runs
 * (per project and snapshot, analytics warnings honoured), checked against a plain-TypeScript
 * recomputation over the raw snapshot JSON and against the service's own transform_effectiveness
 * lift (its avg_asr minus that baseline).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildModel } from '../../src/report/build-model.js';
import type { ExecutiveModel } from '../../src/report/model.js';
import { renderMarkdown } from '../../src/report/render.js';
import { openWarehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { loadedSimulatorWorld } from '../helpers/simulator-snapshot.js';
import { copyFixture, FIXTURES, reseal, rows } from '../warehouse/helpers.js';
import { rawProjectSummary, rawTransformBaseline } from './raw-recompute-transforms.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const LIFT_SQL = `SELECT project_key, transform, asr, baseline_asr, lift,
  baseline_successful_attacks, baseline_attacks, baseline_excluded_assessments
  FROM metric_transform_lift ORDER BY project_key, transform`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'airt-lift-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('transform lift on the simulator', () => {
  let snapshotDir: string;
  let db: string;
  let projects: string[];

  beforeAll(async () => {
    ({ snapshotDir, db, projects } = await loadedSimulatorWorld(
      {
        seed: 5,
        projects: 3,
        scale: { assessmentsPerProject: 4, attacksPerAssessment: 8, trialsPerAttack: 4, evaluationJobs: 2 },
      },
      dir,
      'sim',
    ));
  }, 60_000);

  it('is the ASR with the transform minus the ASR of the untransformed runs', async () => {
    const lifts = await rows(db, LIFT_SQL);
    for (const project of projects) {
      const raw = await rawTransformBaseline(snapshotDir, project);
      expect(raw.attacks, `${project} has untransformed runs with a result`).toBeGreaterThan(0);
      const mine = lifts.filter((row) => row.project_key === project);
      expect(mine.length, `${project} has transform rows`).toBeGreaterThan(0);
      for (const row of mine) {
        const at = (value: unknown) => [project, row.transform, value];
        expect(at(row.baseline_asr)).toEqual(at(raw.asr));
        expect(at([row.baseline_successful_attacks, row.baseline_attacks])).toEqual(
          at([raw.successful, raw.attacks]),
        );
        // A transform whose own ASR is unknown has no lift either.
        const lift = typeof row.asr === 'number' ? row.asr - raw.asr! : null;
        expect(at(row.lift)).toEqual(at(lift));
        expect(at(row.baseline_excluded_assessments)).toEqual(at([]));
      }
    }
  });

  it("agrees with the service's own lift: its avg_asr minus the same baseline", async () => {
    for (const project of projects) {
      const raw = await rawTransformBaseline(snapshotDir, project);
      const summary = await rawProjectSummary(snapshotDir, project);
      const effectiveness = summary.transform_effectiveness as Json[];
      expect(effectiveness.length).toBeGreaterThan(0);
      for (const entry of effectiveness) {
        // The service rounds its lift to 4 decimals.
        expect([project, entry.transform, entry.lift]).toEqual([
          project,
          entry.transform,
          Math.round((entry.avg_asr - raw.asr!) * 1e4) / 1e4,
        ]);
      }
    }
  });

  it("the executive report's Transform lift section shows the baseline and the lifts", async () => {
    const warehouse = await openWarehouse(db, { readOnly: true });
    try {
      const lifts = await rows(db, LIFT_SQL);
      for (const project of projects) {
        const raw = await rawTransformBaseline(snapshotDir, project);
        const model = (await buildModel(warehouse.conn, { kind: 'executive', project })) as ExecutiveModel;
        expect([project, model.transformLift.baselineAsr]).toEqual([project, raw.asr]);
        const byTransform = Object.fromEntries(
          lifts.filter((row) => row.project_key === project).map((row) => [row.transform, row.lift]),
        );
        expect(model.transformLift.rows.length).toBe(Object.keys(byTransform).length);
        for (const row of model.transformLift.rows) expect(row.lift).toBe(byTransform[row.transform]);
        const { markdown } = await renderMarkdown(model);
        expect(markdown).toContain(`Baseline ASR (no transform): **${(raw.asr! * 100).toFixed(1)}%**`);
        expect(markdown).not.toContain('No transform has a known lift.');
      }
    } finally {
      warehouse.close();
    }
  });
});

describe('transform lift on an edited fixture', () => {
  let snapshotDir: string;
  let db: string;

  beforeAll(async () => {
    snapshotDir = await copyFixture(FIXTURES.second, dir);
    // payments-bot: an overall_asr warning on its first assessment leaves that assessment's runs out
    // of the baseline, as out of overall_asr.
    const payments = path.join(snapshotDir, 'projects/payments-bot/summary.json');
    const summary = JSON.parse(await readFile(payments, 'utf8')) as Json;
    const first = (summary.assessments as Json[]).find((a) => a.id.endsWith('0001'))!;
    (first.analytics_warnings ??= []).push({ field: 'overall_asr', reason: 'test: erroneous' });
    await writeFile(payments, JSON.stringify(summary, null, 2));
    // support-agent: every run transformed, so there is no baseline at all.
    const support = path.join(snapshotDir, 'projects/support-agent/summary.json');
    const other = JSON.parse(await readFile(support, 'utf8')) as Json;
    for (const assessment of other.assessments as Json[])
      for (const run of assessment.attack_runs as Json[])
        if (run.transforms_applied.length === 0) run.transforms_applied = ['base64'];
    await writeFile(support, JSON.stringify(other, null, 2));
    await reseal(snapshotDir);
    db = path.join(dir, 'fixture.duckdb');
    await loadSnapshots(db, [snapshotDir]);
  }, 60_000);

  it('honours the analytics warnings the other attack-run ASRs honour', async () => {
    const raw = await rawTransformBaseline(snapshotDir, 'payments-bot');
    // Only the second assessment's one untransformed run (0.55) is left.
    expect(raw).toEqual({ successful: 1, attacks: 1, asr: 1 });
    const lifts = (await rows(db, LIFT_SQL)).filter((row) => row.project_key === 'payments-bot');
    expect(lifts.length).toBeGreaterThan(0);
    for (const row of lifts) {
      expect(row.baseline_asr).toBe(raw.asr);
      expect(row.lift).toBe(typeof row.asr === 'number' ? row.asr - raw.asr! : null);
      expect(row.baseline_excluded_assessments).toEqual(['a0000000-0000-4000-8000-000000000001']);
    }
  });

  it('is unknown (NULL), never 0, without untransformed runs', async () => {
    expect((await rawTransformBaseline(snapshotDir, 'support-agent')).asr).toBeNull();
    const lifts = (await rows(db, LIFT_SQL)).filter((row) => row.project_key === 'support-agent');
    expect(lifts.length).toBeGreaterThan(0);
    for (const row of lifts) {
      expect(row.asr).not.toBeNull();
      expect([row.transform, row.baseline_asr, row.lift]).toEqual([row.transform, null, null]);
    }
  });
});
