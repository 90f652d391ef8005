/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- raw snapshot JSON is read untyped on purpose (the independent recomputation) */
/**
 * An assessment with no attack result (every run without a best_score: none had a finished trial) has
 * an unknown risk score, never 0. metric_assessments gave it 0, which pulled avg_risk_score down and
 * drew a 0 in the risk trend. Its risk score is now NULL, left out of the average, and so is the risk
 * score of a project none of whose attacks has a result; checked against a plain-TypeScript
 * recomputation over the raw snapshot JSON (TAXONOMY's risk rule per assessment, then the mean of the
 * known ones).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildModel } from '../../src/report/build-model.js';
import { renderReportJson } from '../../src/report/json-report.js';
import type { ExecutiveModel } from '../../src/report/model.js';
import { openWarehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { copyFixture, FIXTURES, reseal, rows, tempDir } from '../warehouse/helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const A2 = 'a0000000-0000-4000-8000-000000000002';
const A3 = 'a0000000-0000-4000-8000-000000000003';
const RISK_BASE: Record<string, number> = { critical: 10, high: 8, medium: 5, low: 3, info: 1 };

function severityOf(score: number): string {
  if (score >= 0.9) return 'critical';
  if (score >= 0.7) return 'high';
  if (score >= 0.5) return 'medium';
  if (score >= 0.3) return 'low';
  return 'info';
}

/** TAXONOMY's risk score of one assessment from its raw attack runs; null without an attack result. */
function rawRisk(assessment: Json): number | null {
  const scores = (assessment.attack_runs as Json[])
    .map((run): unknown => run.best_score)
    .filter((score): score is number => typeof score === 'number');
  if (scores.length === 0) return null;
  const asr = scores.filter((score) => score >= 0.5).length / scores.length;
  const worst = Math.max(...scores.map((score) => RISK_BASE[severityOf(score)]!));
  return Math.round(worst * (0.6 + 0.4 * asr) * 100) / 100;
}

/** Per analyzed assessment its risk score, and the mean of the known ones (null when none is). */
async function rawRisks(snapshotDir: string, project: string) {
  const summary = JSON.parse(
    await readFile(path.join(snapshotDir, 'projects', project, 'summary.json'), 'utf8'),
  ) as Json;
  const analyzed = (summary.assessments as Json[]).filter((a) => ['completed', 'failed'].includes(a.status));
  const byAssessment = Object.fromEntries(analyzed.map((a) => [a.id as string, rawRisk(a)]));
  const known = Object.values(byAssessment).filter((risk): risk is number => risk !== null);
  const avg = known.length === 0 ? null : known.reduce((sum, risk) => sum + risk, 0) / known.length;
  return { byAssessment, avg };
}

let work: Awaited<ReturnType<typeof tempDir>>;
let snapshotDir: string;
let db: string;

beforeAll(async () => {
  work = await tempDir('airt-unresulted-');
  snapshotDir = await copyFixture(FIXTURES.second, work.dir);
  // payments-bot's second assessment and support-agent's only one failed before any trial finished.
  for (const [project, id] of [
    ['payments-bot', A2],
    ['support-agent', A3],
  ] as const) {
    const file = path.join(snapshotDir, 'projects', project, 'summary.json');
    const summary = JSON.parse(await readFile(file, 'utf8')) as Json;
    const assessment = (summary.assessments as Json[]).find((a) => a.id === id)!;
    assessment.status = 'failed';
    for (const run of assessment.attack_runs as Json[]) {
      run.best_score = null;
      run.finished_trials = 0;
      run.status = 'failed';
    }
    await writeFile(file, JSON.stringify(summary, null, 2));
  }
  await reseal(snapshotDir);
  db = path.join(work.dir, 'w.duckdb');
  await loadSnapshots(db, [snapshotDir]);
}, 60_000);

afterAll(async () => {
  await work?.cleanup();
});

describe('an assessment with no attack result', () => {
  it('has an unknown risk score (NULL, never 0) in metric_assessments and metric_trend', async () => {
    for (const project of ['payments-bot', 'support-agent']) {
      const raw = await rawRisks(snapshotDir, project);
      for (const view of ['metric_assessments', 'metric_trend']) {
        const found = await rows(
          db,
          `SELECT assessment_id, risk_score FROM ${view} WHERE project_key = '${project}'
             AND status IN ('completed', 'failed') ORDER BY assessment_id`,
        );
        expect([view, Object.fromEntries(found.map((r) => [r.assessment_id, r.risk_score]))]).toEqual([
          view,
          raw.byAssessment,
        ]);
      }
    }
    const [unresulted] = await rows(
      db,
      `SELECT attacks_evaluated, asr, risk_score FROM metric_assessments WHERE assessment_id = '${A2}'`,
    );
    expect(unresulted).toEqual({ attacks_evaluated: 0, asr: null, risk_score: null });
  });

  it('is left out of avg_risk_score, and a project without any result has no risk score', async () => {
    const figures = await rows(
      db,
      `SELECT project_key, figure, value FROM metric_project_figures
       WHERE figure IN ('risk_score', 'avg_risk_score') ORDER BY ALL`,
    );
    const value = (project: string, figure: string) =>
      figures.find((row) => row.project_key === project && row.figure === figure)?.value;
    const payments = await rawRisks(snapshotDir, 'payments-bot');
    expect(payments.avg).not.toBeNull();
    // Rounded to 2 decimals by the view (the consistency check's tolerance).
    expect(Math.abs((value('payments-bot', 'avg_risk_score') as number) - payments.avg!)).toBeLessThan(0.01);
    expect((await rawRisks(snapshotDir, 'support-agent')).avg).toBeNull();
    expect(value('support-agent', 'avg_risk_score')).toBeNull();
    expect(value('support-agent', 'risk_score')).toBeNull();
    expect(value('payments-bot', 'risk_score')).not.toBeNull();
  });

  it('the executive report shows no 0 for it: the risk trend and the KPIs say unknown', async () => {
    const warehouse = await openWarehouse(db, { readOnly: true });
    try {
      const payments = (await buildModel(warehouse.conn, {
        kind: 'executive',
        project: 'payments-bot',
      })) as ExecutiveModel;
      const point = payments.riskTrend.find((p) => p.assessmentId === A2);
      expect(point?.riskScore).toBeNull();
      const paymentsJson = JSON.parse(renderReportJson(payments)) as Json;
      const raw = await rawRisks(snapshotDir, 'payments-bot');
      expect(Math.abs(paymentsJson.figures.avg_risk_score.value - raw.avg!)).toBeLessThan(0.01);

      const support = (await buildModel(warehouse.conn, {
        kind: 'executive',
        project: 'support-agent',
      })) as ExecutiveModel;
      expect(support.kpis.riskScore).toBeNull();
      expect(support.riskTrend.map((p) => p.riskScore)).toEqual([null]);
      const supportJson = JSON.parse(renderReportJson(support)) as Json;
      expect(supportJson.figures.risk_score.value).toBeNull();
      expect(supportJson.figures.avg_risk_score.value).toBeNull();
    } finally {
      warehouse.close();
    }
  });
});
