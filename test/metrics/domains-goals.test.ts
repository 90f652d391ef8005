/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- the JSON report and raw snapshot JSON are read untyped, as another tool would */
/**
 * Risk by domain, ASR per goal and ASR per goal category come from the metrics layer
 * (metric_risk_by_domain, metric_goal_asr, metric_category_asr), not from the service's project
 * aggregates: an independent recomputation in plain TypeScript over the raw snapshot JSON
 * (raw-recompute-domains.ts) agrees with the executive model, its Markdown and HTML tables and the
 * JSON report; warned slices are left out and disclosed; the service's own values stay beside them as
 * cross-checks in metric_consistency.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildModel } from '../../src/report/build-model.js';
import { renderReportJson } from '../../src/report/json-report.js';
import type { ExecutiveModel } from '../../src/report/model.js';
import { renderHtml, renderMarkdown } from '../../src/report/render.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { MIN_TRIALS_FOR_EVIDENCE } from '../../src/warehouse/metric-views.js';
import { copyFixture, FIXTURES, reseal, tempDir } from '../warehouse/helpers.js';
import { rawCategoryAsr, rawGoalAsr, rawRiskByDomain } from './raw-recompute-domains.js';
import { asPercent, between, htmlRows, mdTable, shownCount, shownRate } from './report-text.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const A1 = 'a0000000-0000-4000-8000-000000000001';
const A2 = 'a0000000-0000-4000-8000-000000000002';
const A4 = 'a0000000-0000-4000-8000-000000000004';
const PROJECT = 'payments-bot';
/** A1's ASR slice and A2's findings slice are warned (A4's asr_by_category already is in the fixture). */
const WARNINGS: Record<string, string[]> = { [A1]: ['overall_asr'], [A2]: ['severity_breakdown'] };
/** The service's security domain total, made to disagree with the attack runs in the clean copy. */
const TAMPERED_TOTAL = 9;

let work: { dir: string; cleanup: () => Promise<void> };
let warnedDir: string;
let warned: Warehouse;
let clean: Warehouse;

async function editSummary(dir: string, edit: (summary: Json) => void): Promise<void> {
  const file = path.join(dir, 'projects', PROJECT, 'summary.json');
  const summary = JSON.parse(await readFile(file, 'utf8')) as Json;
  edit(summary);
  await writeFile(file, JSON.stringify(summary, null, 2));
  await reseal(dir);
}

async function load(dir: string, name: string): Promise<Warehouse> {
  const db = path.join(work.dir, `${name}.duckdb`);
  await loadSnapshots(db, [dir]);
  return openWarehouse(db, { readOnly: true });
}

beforeAll(async () => {
  work = await tempDir('airt-domains-');
  warnedDir = await copyFixture(FIXTURES.second, work.dir);
  await editSummary(warnedDir, (summary) => {
    for (const assessment of summary.assessments as Json[]) {
      for (const field of WARNINGS[assessment.id as string] ?? []) {
        (assessment.analytics_warnings ??= []).push({ field, reason: `test: erroneous ${field}` });
      }
    }
  });
  warned = await load(warnedDir, 'warned');
  const cleanRoot = path.join(work.dir, 'clean');
  await mkdir(cleanRoot);
  const cleanDir = await copyFixture(FIXTURES.second, cleanRoot);
  await editSummary(cleanDir, (summary) => {
    const security = (summary.executive_summary.risk_by_domain as Json[]).find(
      (d) => d.domain === 'security',
    )!;
    security.total_findings = TAMPERED_TOTAL;
    summary.executive_summary.risk_by_domain.push({
      domain: 'privacy',
      categories: [],
      assessments_affected: [],
      critical_findings: 0,
      high_findings: 0,
      medium_findings: 0,
      total_findings: 1,
    });
  });
  clean = await load(cleanDir, 'clean');
}, 60_000);

afterAll(async () => {
  warned?.close();
  clean?.close();
  await work?.cleanup();
});

async function executive(warehouse: Warehouse) {
  const model = (await buildModel(warehouse.conn, { kind: 'executive', project: PROJECT })) as ExecutiveModel;
  return {
    model,
    md: (await renderMarkdown(model)).markdown,
    html: (await renderHtml(model)).html.replaceAll('<wbr>', ''),
    json: JSON.parse(renderReportJson(model)) as Json,
  };
}

describe('risk by domain', () => {
  it('is recomputed from attack runs: the model, Markdown and HTML agree with the raw JSON', async () => {
    const raw = await rawRiskByDomain(warnedDir, PROJECT);
    const { model, md, html } = await executive(warned);
    expect(raw.size).toBeGreaterThan(1);
    expect(model.riskByDomain.map((row) => row.domain).sort()).toEqual([...raw.keys()].sort());
    const mdRows = mdTable(between(md, '### Risk by domain', '## Top findings'), '| Domain |');
    const htmlSection = between(html, '<h3>Risk by domain</h3>', '</section>');
    const shown = htmlRows(htmlSection);
    for (const [domain, expected] of raw) {
      const row = model.riskByDomain.find((r) => r.domain === domain)!;
      const asr = expected.attacks === 0 ? null : expected.successful / expected.attacks;
      expect([
        domain,
        row.critical,
        row.high,
        row.medium,
        row.total,
        row.successfulAttacks,
        row.attacks,
      ]).toEqual([
        domain,
        expected.critical,
        expected.high,
        expected.medium,
        expected.total,
        expected.successful,
        expected.attacks,
      ]);
      expect(row.avgAsr).toBeCloseTo(asr ?? Number.NaN, 10);
      expect(row.maxScore).toBe(expected.maxScore);
      for (const cells of [mdRows.find((r) => r[0] === domain)!, shown.find((r) => r[0] === domain)!]) {
        expect(cells.slice(1, 5).map(shownCount)).toEqual([
          expected.critical,
          expected.high,
          expected.medium,
          expected.total,
        ]);
        expect(shownRate(cells[5]!)).toEqual({
          percent: asPercent(asr),
          numerator: expected.successful,
          denominator: expected.attacks,
        });
      }
    }
  });

  it('leaves warned slices out and discloses them in every format', async () => {
    const { model, md, html } = await executive(warned);
    expect(model.riskByDomainExcludes).toEqual([
      { field: 'overall_asr', assessments: ['Baseline jailbreak sweep'] },
      { field: 'severity_breakdown', assessments: ['PII extraction probe'] },
    ]);
    const mdSection = between(md, '### Risk by domain', '## Top findings');
    expect(mdSection).toContain('erroneous `overall_asr`:** Baseline jailbreak sweep');
    expect(mdSection).toContain('erroneous `severity_breakdown`:** PII extraction probe');
    const htmlSection = between(html, '<h3>Risk by domain</h3>', '</section>');
    expect(htmlSection).toContain('<code>overall_asr</code>:</strong> Baseline jailbreak sweep');
    // A warned assessment leaves the domain's service cross-check uncompared, never "agrees".
    const checks = await warned.conn.runAndReadAll(
      `SELECT check_name, status FROM latest_metric_consistency WHERE project_key = $1 AND check_name LIKE 'risk_by_domain.%'`,
      [PROJECT],
    );
    const statuses = checks.getRowObjectsJS().map((row) => row.status);
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set(['not_compared']));
  });

  it('keeps the service value beside it and lists disagreements in metric_consistency', async () => {
    const { model, json } = await executive(clean);
    const security = model.riskByDomain.find((row) => row.domain === 'security')!;
    expect(security.serviceTotal).toBe(TAMPERED_TOTAL);
    expect(security.total).not.toBe(TAMPERED_TOTAL);
    const checks = new Map((json.consistency as Json[]).map((check) => [check.check, check]));
    expect(checks.get('risk_by_domain.security.total_findings')).toMatchObject({
      service_value: TAMPERED_TOTAL,
      status: 'disagrees',
    });
    expect(checks.get('risk_by_domain.privacy.present')).toMatchObject({ status: 'disagrees' });
    expect(checks.get('risk_by_domain.safety.total_findings')).toMatchObject({ status: 'agrees' });
    expect(checks.get('risk_by_domain.safety.avg_asr')).toMatchObject({ status: 'agrees' });
  });
});

describe('ASR by goal', () => {
  it('is recomputed per goal from attack runs with its evidence, A1 (warned overall_asr) left out and disclosed', async () => {
    const raw = await rawGoalAsr(warnedDir, PROJECT);
    const { model, md } = await executive(warned);
    const goals = model.goalAsr!;
    expect(goals.rows.length + goals.more).toBe(raw.size);
    expect(goals.excludes).toEqual([{ field: 'overall_asr', assessments: ['Baseline jailbreak sweep'] }]);
    // The per-goal table lives in the executive report's appendix (issue 16).
    const mdSection = between(md, '## ASR by goal (worst first)', '## Provenance');
    expect(mdSection).toContain('erroneous `overall_asr`:** Baseline jailbreak sweep');
    const mdRows = mdTable(mdSection, '| Goal category |');
    for (const row of goals.rows) {
      const expected = raw.get(`${row.goalCategory ?? ''}\u0000${row.goal}`)!;
      expect([row.goal, row.successfulAttacks, row.attacks, row.trials]).toEqual([
        row.goal,
        expected.successful,
        expected.attacks,
        expected.trials,
      ]);
      expect(row.evidence).toBe(
        expected.trials >= MIN_TRIALS_FOR_EVIDENCE ? 'measured' : 'insufficient_evidence',
      );
      const cells = mdRows.find((cellsOf) => cellsOf[1] === row.goal)!;
      expect(shownRate(cells[2]!)).toEqual({
        percent: asPercent(expected.successful / expected.attacks),
        numerator: expected.successful,
        denominator: expected.attacks,
      });
    }
  });
});

describe('JSON report: ASR per goal category', () => {
  it('lists each category with numerator, denominator, evidence and the assessments left out', async () => {
    const raw = await rawCategoryAsr(warnedDir, PROJECT);
    const { json } = await executive(warned);
    const categories = json.categories as Json[];
    expect(json.projects[0].categories).toEqual(categories);
    expect(categories.map((c) => c.id).sort()).toEqual([...raw.keys()].sort());
    for (const category of categories) {
      const expected = raw.get(category.id as string)!;
      expect(category).toMatchObject({
        numerator: expected.successful,
        denominator: expected.attacks,
        trials: expected.trials,
        source: 'recomputed',
        evidence: expected.trials >= MIN_TRIALS_FOR_EVIDENCE ? 'measured' : 'insufficient_evidence',
        excluded_assessments: [A4],
      });
      expect(category.value).toBeCloseTo(expected.successful / expected.attacks, 10);
    }
  });
});
