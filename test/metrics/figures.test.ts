/* eslint-disable @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call -- raw snapshot JSON is read untyped on purpose (the independent recomputation) */
/**
 * The metrics layer on a fixture with an analytics warning on each slice kind and a service posture
 * that disagrees with the matrix: every output (Markdown, HTML and JSON reports, gates, diff, named
 * queries) excludes and discloses the warned slices and shows the same figures, which an independent
 * recomputation in plain TypeScript over the raw snapshot JSON confirms.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffSnapshots } from '../../src/diff/snapshot-diff.js';
import { readProjectMetrics } from '../../src/diff/warehouse-source.js';
import { readProjectFigures } from '../../src/metrics/read-figures.js';
import { parseGateExpression, GateSyntaxError } from '../../src/pipeline/gate-expression.js';
import { warehouseMetricProvider } from '../../src/pipeline/warehouse-metrics.js';
import { buildModel } from '../../src/report/build-model.js';
import { FRAMEWORKS } from '../../src/report/frameworks.js';
import { renderReportJson } from '../../src/report/json-report.js';
import type { ExecutiveModel, PortfolioModel, ReportModel } from '../../src/report/model.js';
import { renderHtml, renderMarkdown } from '../../src/report/render.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { readNamedQuery } from '../../src/warehouse/named-queries.js';
import { copyFixture, FIXTURES, reseal, tempDir } from '../warehouse/helpers.js';
import { asPercent, between, htmlText, mdTable, shownRate } from './report-text.js';

const A1 = 'a0000000-0000-4000-8000-000000000001';
const A2 = 'a0000000-0000-4000-8000-000000000002';
const A4 = 'a0000000-0000-4000-8000-000000000004';
const SNAPSHOT = '20260315T060000Z-second';
/** Assessment names of payments-bot (the reports name excluded assessments by name). */
const NAMES: Record<string, string> = {
  [A1]: 'Baseline jailbreak sweep',
  [A2]: 'PII extraction probe',
  [A4]: 'Regression sweep after prompt hardening',
};
/** Every slice kind the issue names, spread over two assessments of payments-bot. */
const WARNINGS: Record<string, string[]> = {
  [A1]: ['overall_asr', 'top_findings', 'compliance_matrix'],
  [A2]: ['severity_breakdown', 'asr_by_transform', 'asr_by_attack'],
};

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let work: { dir: string; cleanup: () => Promise<void> };
let snapshotDir: string;
let warehouse: Warehouse;

beforeAll(async () => {
  work = await tempDir('airt-metrics-');
  snapshotDir = await copyFixture(FIXTURES.second, work.dir);
  const payments = path.join(snapshotDir, 'projects/payments-bot/summary.json');
  const summary = JSON.parse(await readFile(payments, 'utf8')) as Json;
  for (const assessment of summary.assessments as Json[]) {
    for (const field of WARNINGS[assessment.id as string] ?? []) {
      (assessment.analytics_warnings ??= []).push({ field, reason: `test: erroneous ${field}` });
    }
  }
  await writeFile(payments, JSON.stringify(summary, null, 2));
  // support-agent's posture disagrees with its matrix in all three ways the issue names.
  const support = path.join(snapshotDir, 'projects/support-agent/summary.json');
  const other = JSON.parse(await readFile(support, 'utf8')) as Json;
  const posture = other.compliance_posture as Json[];
  const llm = posture.find((p) => p.framework === 'owasp_llm')!;
  llm.passing_categories = [...llm.passing_categories, ...llm.untested_categories.slice(0, 2)];
  const saif = posture.find((p) => p.framework === 'saif')!;
  saif.coverage_pct = Math.round((saif.tested_categories / saif.total_categories) * 1e4) / 1e4;
  other.compliance_posture = posture.filter((p) => p.framework !== 'nist');
  await writeFile(support, JSON.stringify(other, null, 2));
  await reseal(snapshotDir);
  const db = path.join(work.dir, 'w.duckdb');
  await loadSnapshots(db, [snapshotDir]);
  warehouse = await openWarehouse(db, { readOnly: true });
}, 120_000);

afterAll(async () => {
  warehouse?.close();
  await work?.cleanup();
});

type Kind = 'executive' | 'compliance' | 'portfolio';

/** An object and everything it holds made read-only (a write to it then throws: ESM is strict). */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/**
 * Each report model built once per kind and project, shared read-only by the tests (a build of this
 * fixture takes over a second, rendering its HTML charts as long). Deep-frozen, so a renderer that
 * changed its model would throw instead of handing a later test altered figures; the determinism test
 * builds its second copy afresh.
 */
const models = new Map<string, Promise<ReportModel>>();
function model(kind: Kind, project: string): Promise<ReportModel> {
  const key = `${kind}/${project}`;
  let cached = models.get(key);
  if (!cached) {
    cached = buildModel(warehouse.conn, { kind, project }).then(deepFreeze);
    models.set(key, cached);
  }
  return cached;
}

/** The Markdown and HTML (without <wbr>) of model(kind, project), rendered once. */
const renders = new Map<string, Promise<{ md: string; html: string }>>();
function rendered(kind: Kind, project: string): Promise<{ md: string; html: string }> {
  const key = `${kind}/${project}`;
  let cached = renders.get(key);
  if (!cached) {
    cached = model(kind, project).then(async (built) => ({
      md: (await renderMarkdown(built)).markdown,
      html: (await renderHtml(built)).html.replaceAll('<wbr>', ''),
    }));
    renders.set(key, cached);
  }
  return cached;
}

/** Plain TypeScript over the raw snapshot JSON: the figures as TAXONOMY defines them. */
async function recompute(project: string) {
  const summary = JSON.parse(
    await readFile(path.join(snapshotDir, `projects/${project}/summary.json`), 'utf8'),
  ) as Json;
  const triage = new Map<string, Json>();
  for (const file of await readdir(path.join(snapshotDir, 'findings'))) {
    const detail = JSON.parse(await readFile(path.join(snapshotDir, 'findings', file), 'utf8')) as Json;
    triage.set(detail.id as string, detail);
  }
  const warned = (a: Json, slices: string[]) =>
    ((a.analytics_warnings ?? []) as Json[]).some((w) => slices.includes(w.field as string));
  const analyzed = (summary.assessments as Json[]).filter((a) => ['completed', 'failed'].includes(a.status));
  let successful = 0;
  let attacks = 0;
  for (const a of analyzed.filter((x) => !warned(x, ['overall_asr', 'attack_runs']))) {
    for (const run of a.attack_runs as Json[]) {
      if (run.best_score === null || run.best_score === undefined) continue;
      attacks += 1;
      if (run.best_score >= 0.5) successful += 1;
    }
  }
  const severity = (score: number | null) =>
    score === null
      ? 'info'
      : score >= 0.9
        ? 'critical'
        : score >= 0.7
          ? 'high'
          : score >= 0.5
            ? 'medium'
            : score >= 0.3
              ? 'low'
              : 'info';
  const counts: Record<string, number> = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
  for (const a of analyzed.filter((x) => !warned(x, ['severity_breakdown', 'attack_runs']))) {
    for (const run of a.attack_runs as Json[]) {
      const detail = triage.get(run.id as string);
      if (detail?.finding_status === 'false_positive') continue;
      counts[(detail?.severity as string | undefined) ?? severity(run.best_score ?? null)]! += 1;
    }
  }
  const coverage: Record<string, number> = {};
  const matrices = (summary.assessments as Json[])
    .filter((a) => !warned(a, ['compliance_matrix']) && a.compliance_matrix)
    .map((a) => a.compliance_matrix as Json);
  for (const framework of new Set(matrices.flatMap((m) => Object.keys(m)))) {
    const tags = new Set([
      ...(FRAMEWORKS.find((f) => f.key === framework)?.categories.map((c) => c.tag) ?? []),
      ...matrices.flatMap((m) => Object.keys(m[framework] ?? {})),
    ]);
    const tested = [...tags].filter((tag) => matrices.some((m) => m[framework]?.[tag]?.tested === true));
    coverage[framework] = tested.length / tags.size;
  }
  return { asr: attacks === 0 ? null : successful / attacks, successful, attacks, counts, coverage };
}

describe('the metrics layer', () => {
  it('agrees with an independent recomputation over the raw snapshot JSON', async () => {
    for (const project of ['payments-bot', 'support-agent']) {
      const expected = await recompute(project);
      const figures = await readProjectFigures(warehouse.conn, { snapshotId: SNAPSHOT, projectKey: project });
      expect(figures.overall_asr.value).toBeCloseTo(expected.asr!, 10);
      expect([figures.overall_asr.numerator, figures.overall_asr.denominator]).toEqual([
        expected.successful,
        expected.attacks,
      ]);
      for (const level of ['critical', 'high', 'medium', 'low', 'info'] as const) {
        expect([level, figures[`findings_${level}`].value]).toEqual([level, expected.counts[level]]);
      }
      const executive = (await model('executive', project)) as ExecutiveModel;
      const coverage = Object.fromEntries(
        executive.complianceCoverage.map((row) => [row.framework, row.coveragePct]),
      );
      for (const [framework, value] of Object.entries(expected.coverage)) {
        expect([framework, coverage[framework]]).toEqual([framework, value]);
      }
    }
  });

  it('excludes each warned slice from its figures and says which assessments it left out', async () => {
    const figures = await readProjectFigures(warehouse.conn, {
      snapshotId: SNAPSHOT,
      projectKey: 'payments-bot',
    });
    expect(figures.overall_asr.excluded_assessments).toEqual([A1]);
    expect(figures.risk_score.excluded_assessments).toEqual([A1]);
    expect(figures.findings_total.excluded_assessments).toEqual([A2]);
    expect(figures.findings_open.excluded_assessments).toEqual([A2]);
    const executive = (await model('executive', 'payments-bot')) as ExecutiveModel;
    // Top findings of A1 (whose top_findings slice is warned) are left out.
    expect(executive.topFindings.map((f) => f.assessmentName)).not.toContain('Baseline jailbreak sweep');
    // The risk trend shows A1's ASR as unknown, not the service's figure.
    expect(executive.riskTrend.find((p) => p.assessmentId === A1)?.overallAsr).toBeNull();
    // Data quality names what was actually left out for each warning.
    const excluded = Object.fromEntries(
      executive.dataQuality.analyticsWarnings.map((w) => [
        `${w.assessmentId.slice(-1)}:${w.field}`,
        w.excluded,
      ]),
    );
    expect(excluded['1:overall_asr']).toMatch(/overall ASR; risk score; the risk trend/);
    expect(excluded['1:top_findings']).toMatch(/top findings list/);
    expect(excluded['1:compliance_matrix']).toMatch(/compliance coverage/);
    expect(excluded['2:severity_breakdown']).toMatch(/finding counts by severity/);
    expect(excluded['2:asr_by_transform']).toMatch(/transform lift/);
    expect(excluded['2:asr_by_attack']).toMatch(/attack effectiveness/);
    expect(excluded['4:asr_by_category']).toMatch(/ASR by goal category/);
    const { md, html } = await rendered('executive', 'payments-bot');
    for (const format of ['md', 'html'] as const) {
      const text = format === 'md' ? md : html;
      for (const field of Object.values(WARNINGS).flat())
        expect(text).toContain(field.replaceAll('_', format === 'md' ? '\\_' : '_'));
    }
  });

  it('shows the same overall ASR and category ASR in Markdown, HTML, JSON, the gate, the diff and the named query', async () => {
    const executive = (await model('executive', 'payments-bot')) as ExecutiveModel;
    const json = JSON.parse(renderReportJson(executive)) as Json;
    const asr = executive.kpis.overallAsr!;
    const percent = `${(asr * 100).toFixed(1)}% (${executive.kpis.overallAsrSuccessful} of ${executive.kpis.overallAsrAttacks})`;
    const { md, html } = await rendered('executive', 'payments-bot');
    expect(md).toContain(percent);
    expect(html).toContain(percent);
    expect(json.figures.overall_asr.value).toBe(asr);
    const provider = warehouseMetricProvider(warehouse.conn);
    const scope = { snapshotId: SNAPSHOT, previousSnapshotId: null, project: 'payments-bot' };
    expect((await provider.measure({ kind: 'overall_asr' }, scope)).value).toBe(asr);
    const diff = await readProjectMetrics(warehouse.conn, SNAPSHOT, {
      key: 'payments-bot',
      id: null,
      name: null,
    });
    expect(diff.overall_asr).toBe(asr);
    const query = await warehouse.conn.runAndReadAll(
      `SELECT overall_asr FROM (${(await readNamedQuery('asr_trend')).sql.trim().replace(/;$/u, '')}) WHERE project_key = 'payments-bot'`,
    );
    expect(query.getRowObjectsJS()[0]?.overall_asr).toBeCloseTo(asr, 4);
    for (const row of executive.asrByCategory.rows) {
      const gate = await provider.measure({ kind: 'category_asr', category: row.category }, scope);
      expect([row.category, gate.value]).toEqual([row.category, row.asr]);
      expect([row.category, diff.asr_by_category[row.category]]).toEqual([row.category, row.asr]);
    }
  });

  it('never shows a posture that disagrees with the matrix as green, and lists the disagreement', async () => {
    for (const kind of ['executive', 'portfolio'] as const) {
      const built = await model(kind, 'support-agent');
      const coverage =
        kind === 'executive'
          ? (built as ExecutiveModel).complianceCoverage
          : (built as PortfolioModel).projects.find((p) => p.project.key === 'support-agent')!.coverage;
      const pct = Object.fromEntries(coverage.map((row) => [row.framework, row.coveragePct]));
      expect(pct.saif).toBeCloseTo(1 / 7, 10); // the matrix's 14.3%, not the posture's 0.14%
      expect(pct.nist).toBe(0.25); // present in the matrix although missing from the posture
      const checks = built.dataQuality.consistency.map((issue) => issue.check).join('\n');
      expect(checks).toMatch(/compliance_posture\.owasp_llm\.untested_listed_as_passing/);
      expect(checks).toMatch(/coverage_pct\.saif \(the service sent coverage_pct as a fraction/);
      expect(checks).toMatch(/compliance_posture\.nist\.present/);
    }
    const executive = (await model('executive', 'support-agent')) as ExecutiveModel;
    const llm = executive.complianceCoverage.find((row) => row.framework === 'owasp_llm')!;
    expect(llm.passing).toBe(0);
    expect(llm.disagreements).toEqual(['untested_listed_as_passing']);
    expect((await rendered('executive', 'support-agent')).md).toMatch(
      /OWASP LLM Top 10 \| 20\.0% .*disagrees: untested listed as passing/,
    );
  });

  it('writes a JSON report that validates against schemas/report.schema.json, deterministically', async () => {
    const schema = JSON.parse(
      await readFile(path.join(import.meta.dirname, '../../schemas/report.schema.json'), 'utf8'),
    ) as object;
    const validate = new Ajv({ allErrors: true }).compile(schema);
    for (const kind of ['executive', 'compliance', 'portfolio'] as const) {
      const text = renderReportJson(await model(kind, 'payments-bot'));
      const document = JSON.parse(text) as Json;
      expect([kind, validate(document), validate.errors ?? null]).toEqual([kind, true, null]);
      expect(renderReportJson(await buildModel(warehouse.conn, { kind, project: 'payments-bot' }))).toBe(
        text,
      );
    }
  });

  it('rejects an unknown gate metric with a did-you-mean', () => {
    expect(() => parseGateExpression('overal_asr <= 0.2')).toThrow(GateSyntaxError);
    expect(() => parseGateExpression('overal_asr <= 0.2')).toThrow(/did you mean overall_asr\?/);
    expect(() => parseGateExpression('category.credential_leak.asrr <= 0.2')).toThrow(
      /did you mean category\.credential_leak\.asr\?/,
    );
  });

  it('every report kind and format, the diff, the gates and every named query exclude and disclose each warned slice', async () => {
    const conn = warehouse.conn;
    const warned = [...Object.entries(WARNINGS), [A4, ['asr_by_category']] as const].flatMap(([id, fields]) =>
      fields.map((field) => ({ id, field })),
    );
    const figures = await readProjectFigures(conn, { snapshotId: SNAPSHOT, projectKey: 'payments-bot' });
    const asrShown = {
      percent: asPercent(figures.overall_asr.value),
      numerator: figures.overall_asr.numerator,
      denominator: figures.overall_asr.denominator,
    };
    for (const kind of ['executive', 'compliance', 'portfolio'] as const) {
      const json = JSON.parse(renderReportJson(await model(kind, 'payments-bot'))) as Json;
      const { md, html } = await rendered(kind, 'payments-bot');
      // Disclosed in every format: each warned slice, its assessment and what it left out.
      for (const { id, field } of warned) {
        const entry = (json.data_quality.analytics_warnings as Json[]).find(
          (w) => w.assessment_id === id && w.field === field,
        );
        expect([kind, 'json', field, typeof entry?.excluded, entry?.excluded?.length > 0]).toEqual([
          kind,
          'json',
          field,
          'string',
          true,
        ]);
        const mdQuality = md.slice(md.indexOf('## Data quality'));
        const htmlQuality = htmlText(html.slice(html.indexOf('Data quality')));
        for (const [format, text] of [
          ['md', mdQuality.replaceAll('\\', '')],
          ['html', htmlQuality],
        ] as const) {
          expect([kind, format, field, text.includes(field), text.includes(String(entry?.excluded))]).toEqual(
            [kind, format, field, true, true],
          );
        }
      }
      // Excluded in every format: the figures are the metrics layer's, without the warned slices.
      const jsonFigures =
        kind === 'portfolio'
          ? (json.projects as Json[]).find((p) => p.project.key === 'payments-bot')!.figures
          : json.figures;
      expect([kind, jsonFigures.overall_asr.excluded_assessments]).toEqual([kind, [A1]]);
      expect([kind, jsonFigures.findings_total.excluded_assessments]).toEqual([kind, [A2]]);
      expect([kind, jsonFigures.overall_asr.value]).toEqual([kind, figures.overall_asr.value]);
      if (kind === 'executive') {
        const [cells] = mdTable(md, '| Risk score |');
        expect(shownRate(cells![2]!)).toEqual(asrShown);
        const shown = /<div class="label">Overall ASR<\/div>\s*<div class="value">([^<]*)<\/div>/u.exec(html);
        expect(shownRate(shown![1]!)).toEqual(asrShown);
        // A1's top findings (top_findings warned) are left out of the table in both formats.
        expect(between(md, '## Top findings', '## Evaluation jobs')).not.toContain(NAMES[A1]);
        expect(htmlText(between(html, '<h2>Top findings', '<h2>Evaluation jobs'))).not.toContain(NAMES[A1]);
        // A2's asr_by_transform (base64 only) is left out of the transform lift in both formats: its
        // chart in the body and its table in the appendix. (role_play_wrapper, of A1, stays: the check
        // would see base64 if it were there.)
        const mdChart = between(md, '### Transform lift', '## Compliance');
        const mdTableText = between(md, '\n## Transform lift over baseline', '\n## ').replaceAll('\\', '');
        const htmlChart = between(html, '<h3>Transform lift', 'Compliance');
        const htmlTableText = between(html, '<h2>Transform lift over baseline', '</section>');
        for (const text of [mdTableText, htmlChart, htmlTableText])
          expect(text).toContain('role_play_wrapper');
        for (const text of [mdChart, mdTableText, htmlChart, htmlTableText])
          expect(text).not.toContain('base64');
      }
      if (kind === 'portfolio') {
        const row = mdTable(md, '| Project | Key |').find((cells) => cells[1] === 'payments-bot')!;
        expect(shownRate(row[4]!)).toEqual(asrShown);
        expect(htmlText(html)).toContain(
          `${asrShown.percent}% (${asrShown.numerator} of ${asrShown.denominator})`,
        );
      }
      if (kind === 'compliance') {
        // The compliance_matrix exclusion is named beside the framework coverage in md and html.
        for (const text of [md.replaceAll('\\', ''), htmlText(html)]) {
          expect(between(text, 'Coverage', 'Data quality')).toContain(NAMES[A1]);
        }
      }
    }

    // The diff: its figures leave the slices out and its data_quality lists them.
    const diff = await diffSnapshots(conn, { from: null, to: SNAPSHOT, projects: ['payments-bot'] });
    const project = diff.projects[0]!;
    expect(project.data_quality).toEqual(
      expect.arrayContaining([
        { snapshot_id: SNAPSHOT, field: 'asr_by_category', assessment_ids: [A4] },
        { snapshot_id: SNAPSHOT, field: 'compliance_matrix', assessment_ids: [A1] },
      ]),
    );
    expect(project.metrics.find((m) => m.key === 'overall_asr')?.to).toBe(figures.overall_asr.value);

    // The gates: each metric's value leaves its slices out and names the exclusions.
    const provider = warehouseMetricProvider(conn);
    const scope = { snapshotId: SNAPSHOT, previousSnapshotId: null, project: 'payments-bot' };
    const excludedBy = async (expression: string) =>
      (await provider.measure(parseGateExpression(expression).metric, scope)).exclusions
        .map((e) => `${e.assessment_id}:${e.field}`)
        .sort();
    expect(await excludedBy('overall_asr <= 1')).toEqual([`${A1}:overall_asr`]);
    expect(await excludedBy('risk_score <= 10')).toEqual([`${A1}:overall_asr`]);
    expect(await excludedBy('open_critical_findings <= 0')).toEqual([`${A2}:severity_breakdown`]);
    expect(await excludedBy('framework.owasp_llm.coverage_pct >= 0')).toEqual([`${A1}:compliance_matrix`]);
    const category = (await readProjectMetrics(conn, SNAPSHOT, { key: 'payments-bot', id: null, name: null }))
      .asr_by_category;
    for (const key of Object.keys(category)) {
      expect(await excludedBy(`category.${key}.asr <= 1`)).toEqual([`${A4}:asr_by_category`]);
    }
    const openCritical = await provider.measure(
      parseGateExpression('open_critical_findings <= 0').metric,
      scope,
    );
    expect(openCritical.rows.map((row) => row.fields.assessment)).not.toContain(NAMES[A2]);

    // Every named query: the warned slices stay out and are counted where the query has the column.
    const named = async (name: string) => {
      const sql = (await readNamedQuery(name)).sql.trim().replace(/;$/u, '');
      return (await conn.runAndReadAll(sql)).getRowObjectsJS() as Json[];
    };
    const byCategory = await named('asr_by_category');
    expect(new Set(byCategory.map((row) => Number(row.excluded_assessments)))).toEqual(new Set([1]));
    const coverage = (await named('compliance_coverage')).filter((row) => row.project_key === 'payments-bot');
    expect(coverage.length).toBeGreaterThan(0);
    for (const row of coverage) expect(Number(row.excluded_assessments)).toBe(1);
    const trend = (await named('asr_trend')).find(
      (row) => row.project_key === 'payments-bot' && row.snapshot_id === SNAPSHOT,
    )!;
    expect(trend.overall_asr).toBeCloseTo(figures.overall_asr.value!, 4);
    expect(Number(trend.excluded_assessments)).toBeGreaterThanOrEqual(1);
    // A recomputation that lacks a warned slice is not compared, so never listed as a disagreement.
    const consistency = (await named('consistency')).filter(
      (row) => row.project_key === 'payments-bot' && row.assessment_id === null,
    );
    for (const check of ['overall_asr', 'overall_risk_score', 'total_findings', 'critical_findings']) {
      const row = consistency.find((candidate) => candidate.check_name === check);
      expect([check, row?.status]).toEqual([check, 'not_compared']);
    }
    // A1's attack runs are still findings (only its top_findings list is warned): each is listed with the
    // warned slice named, so no text of the flagged list is passed off as data.
    const top = (await named('top_open_findings')).filter((row) => row.project_key === 'payments-bot');
    const fromA1 = top.filter((row) => String(row.assessment_name) === NAMES[A1]);
    expect(fromA1.length).toBeGreaterThan(0);
    for (const row of fromA1) expect(row.warned_slices).toContain('top_findings');
    // @evaluation_pass_rates has no assessment slice: no analytics warning applies to it.
    expect((await named('evaluation_pass_rates')).length).toBeGreaterThan(0);
  });
});
