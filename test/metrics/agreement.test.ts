/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument -- the JSON report and query rows are read untyped, as another tool would */
/**
 * Figure agreement across the simulator's seeds: for the same snapshot, every consumer of the metrics
 * layer shows the same number for each figure — the Markdown, HTML and JSON reports (executive,
 * portfolio, compliance), the gates, the diff's metric deltas and the named queries — and an
 * independent recomputation in plain TypeScript over the raw snapshot JSON (raw-recompute.ts) agrees
 * with the JSON report. Numbers are read back out of Markdown and HTML as displayed (report-text.ts):
 * counts exactly, percentages and risk scores to the precision the report prints.
 *
 * Each seed is a small world (2 projects) served by the real simulator on 127.0.0.1 port 0, with a few
 * findings triaged (false positive, remediated, a severity change) so triage-dependent figures differ
 * from the raw scores, snapshotted and loaded into a real DuckDB warehouse.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { diffSnapshots } from '../../src/diff/snapshot-diff.js';
import { parseGateExpression } from '../../src/pipeline/gate-expression.js';
import type { GateMetricProvider } from '../../src/pipeline/gates.js';
import { warehouseMetricProvider } from '../../src/pipeline/warehouse-metrics.js';
import { buildModel } from '../../src/report/build-model.js';
import { frameworkTitle } from '../../src/report/frameworks.js';
import { renderReportJson } from '../../src/report/json-report.js';
import type { ExecutiveModel, PortfolioModel, ReportKind, ReportModel } from '../../src/report/model.js';
import { renderHtml, renderMarkdown } from '../../src/report/render.js';
import { startSimulator } from '../../src/simulator/index.js';
import { takeSnapshot } from '../../src/snapshot/take-snapshot.js';
import { triageFinding } from '../../src/triage/triage-finding.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { readNamedQuery } from '../../src/warehouse/named-queries.js';
import { recomputeFromRaw } from './raw-recompute.js';
import {
  asPercent,
  asRisk,
  between,
  htmlRows,
  htmlText,
  mdTable,
  shownCount,
  shownOpen,
  shownRate,
  shownRisk,
  type ShownRate,
} from './report-text.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Seeds of the property: each gives a different world (categories, scores, frameworks tested). */
const SEEDS = [3, 8, 21];
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

interface World {
  dir: string;
  snapshotDir: string;
  snapshotId: string;
  projects: string[];
  warehouse: Warehouse;
  /** Reports built and rendered once per kind and project (rendering HTML charts dominates the run). */
  rendered: Map<string, Promise<Rendered>>;
}

interface Rendered {
  model: ReportModel;
  json: Json;
  md: string;
  html: string;
}

function report(world: World, kind: ReportKind, project?: string): Promise<Rendered> {
  const key = `${kind}/${project ?? ''}`;
  let cached = world.rendered.get(key);
  if (!cached) {
    cached = (async () => {
      const model = await buildModel(world.warehouse.conn, { kind, project });
      return {
        model,
        json: JSON.parse(renderReportJson(model)) as Json,
        md: (await renderMarkdown(model)).markdown,
        html: (await renderHtml(model)).html.replaceAll('<wbr>', ''),
      };
    })();
    world.rendered.set(key, cached);
  }
  return cached;
}

async function buildWorld(seed: number): Promise<World> {
  const dir = await mkdtemp(path.join(tmpdir(), `airt-agree-${seed}-`));
  const sim = await startSimulator({
    seed,
    projects: 2,
    scale: { assessmentsPerProject: 3, attacksPerAssessment: 5, trialsPerAttack: 6, evaluationJobs: 6 },
  });
  try {
    const projects = sim.truth.projects().map((p) => p.key);
    // Triage moves figures away from the raw scores: a false positive leaves the severity counts, a
    // remediated finding leaves the open count, a raised severity moves a finding between levels.
    const client = createApiClient({ baseUrl: sim.url, token: sim.token });
    try {
      const ids = sim.truth.findingIds(projects[0]!);
      const changes = [
        { finding_status: 'false_positive' },
        { finding_status: 'remediated' },
        { severity: 'critical' },
      ] as const;
      for (const [index, request] of changes.entries()) {
        const findingId = ids[index * 2];
        if (findingId === undefined) break;
        await triageFinding({
          client,
          target: { org: sim.org, workspace: sim.workspace },
          change: { findingId, request },
          journalPath: 'triage.jsonl',
          cwd: dir,
        });
      }
    } finally {
      await client.close();
    }
    const snapshot = await takeSnapshot({
      baseUrl: sim.url,
      org: sim.org,
      workspace: sim.workspace,
      token: sim.token,
      out: path.join(dir, 'snapshots'),
      projects,
      trialsLimit: 20,
      journal: path.join(dir, 'triage.jsonl'),
    });
    const db = path.join(dir, 'w.duckdb');
    await loadSnapshots(db, [snapshot.dir]);
    return {
      dir,
      snapshotDir: snapshot.dir,
      snapshotId: snapshot.snapshotId,
      projects,
      warehouse: await openWarehouse(db, { readOnly: true }),
      rendered: new Map(),
    };
  } finally {
    await sim.close();
  }
}

/** A figure as the reports display an ASR: the percentage at one decimal and its exact sample. */
const expectedRate = (figure: Json): ShownRate => ({
  percent: asPercent(figure.value),
  ...(figure.numerator === undefined ? {} : { numerator: figure.numerator, denominator: figure.denominator }),
});

/** Rows of a named query, numbers as JS numbers. */
async function query(world: World, name: string): Promise<Json[]> {
  const sql = (await readNamedQuery(name)).sql.trim().replace(/;$/u, '');
  const reader = await world.warehouse.conn.runAndReadAll(sql);
  return reader
    .getRowObjectsJS()
    .map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([key, value]) => [key, typeof value === 'bigint' ? Number(value) : value]),
      ),
    );
}

async function gate(provider: GateMetricProvider, world: World, project: string, metric: string) {
  const { metric: parsed } = parseGateExpression(`${metric} >= 0`);
  const scope = { snapshotId: world.snapshotId, previousSnapshotId: null, project };
  return (await provider.measure(parsed, scope)).value;
}

/** Coverage as the gates and the diff give it (0–100, 4 decimals). */
const coveragePct = (fraction: number): number => Math.round(fraction * 1e6) / 1e4;

/**
 * The portfolio's coverage cell as the executive JSON implies it: the coverage, then the worst state of
 * the tested categories with its count ("14.8% · 4 failing"), or "not tested" when none was tested.
 */
function coverageCellWords(framework: Json): string {
  const states = (framework.categories as Json[]).map((category) => String(category.state));
  const count = (state: string) => states.filter((each) => each === state).length;
  if (states.every((state) => state === 'not_tested')) return 'not tested';
  const percent = `${asPercent(framework.coverage)}%`;
  if (count('failing') > 0) return `${percent} · ${count('failing')} failing`;
  if (count('insufficient_evidence') > 0)
    return `${percent} · ${count('insufficient_evidence')} insufficient`;
  return `${percent} · ${count('passing')} passing`;
}

describe.each(SEEDS)('figure agreement, simulator seed %i', (seed) => {
  let world: World;
  beforeAll(async () => {
    world = await buildWorld(seed);
  }, 60_000);
  afterAll(async () => {
    world?.warehouse.close();
    if (world) await rm(world.dir, { recursive: true, force: true });
  });

  it('the JSON report agrees with an independent recomputation over the raw snapshot JSON', async () => {
    for (const project of world.projects) {
      const raw = await recomputeFromRaw(world.snapshotDir, project);
      const { json } = await report(world, 'executive', project);
      const figures = json.figures;
      const at = (label: string, value: unknown) => [project, label, value];
      expect(at('overall_asr', figures.overall_asr)).toEqual(
        at('overall_asr', {
          value: raw.asr,
          numerator: raw.successful,
          denominator: raw.attacks,
          source: 'recomputed',
          excluded_assessments: [],
        }),
      );
      expect(at('risk_score', figures.risk_score.value)).toEqual(at('risk_score', raw.riskScore));
      for (const level of SEVERITIES) {
        expect(at(level, figures[`findings_${level}`].value)).toEqual(at(level, raw.severities[level]));
      }
      expect(at('findings_total', figures.findings_total.value)).toEqual(at('findings_total', raw.total));
      expect(at('findings_open', figures.findings_open.value)).toEqual(at('findings_open', raw.open));
      const coverage = Object.fromEntries(
        (json.compliance as Json[]).map((framework) => [framework.framework, framework.coverage]),
      );
      expect(at('coverage', coverage)).toEqual(at('coverage', raw.coverage));
      // Goal-category ASR pools the service's asr_by_category; the attack runs must say the same.
      const provider = warehouseMetricProvider(world.warehouse.conn);
      for (const [category, runs] of Object.entries(raw.categoryRuns)) {
        const value = await gate(provider, world, project, `category.${category}.asr`);
        expect(at(category, value)).toEqual(at(category, runs.successful / runs.attacks));
      }
      expect(at('open_critical', await gate(provider, world, project, 'open_critical_findings'))).toEqual(
        at('open_critical', raw.openCritical),
      );
    }
  });

  it('executive Markdown, HTML and JSON, the gates, the diff and the named queries show the same figures', async () => {
    const conn = world.warehouse.conn;
    const provider = warehouseMetricProvider(conn);
    const diff = await diffSnapshots(conn, { from: null, to: world.snapshotId });
    const trend = await query(world, 'asr_trend');
    const coverageQuery = await query(world, 'compliance_coverage');
    const consistencyQuery = await query(world, 'consistency');
    const topOpen = await query(world, 'top_open_findings');
    for (const project of world.projects) {
      const { model: built, json, md, html } = await report(world, 'executive', project);
      const model = built as ExecutiveModel;
      const figures = json.figures;
      const at = (where: string, label: string, value: unknown) => [project, where, label, value];

      // Overall ASR, risk score, severities, total and open findings.
      const [mdKpis] = mdTable(md, '| Risk score |');
      const [mdSeverities] = mdTable(md, '| Critical | High |');
      const mdSeverityTable = mdTable(md, '| Severity | Findings');
      const htmlAsr = /<div class="label">Overall ASR<\/div>\s*<div class="value">([^<]*)<\/div>/u.exec(html);
      // The KPI card, not the one-page summary's (which reads "critical · 9.2").
      const htmlRisk =
        /<div class="kpi risk[^"]*">\s*<div class="label">Risk<\/div>\s*<div class="value">([^<]*)<span/u.exec(
          html,
        );
      const htmlTotal = /Findings in total: ([^.]*)\./u.exec(html);
      const rate = expectedRate(figures.overall_asr);
      expect(at('md', 'overall_asr', shownRate(mdKpis![2]!))).toEqual(at('md', 'overall_asr', rate));
      expect(at('html', 'overall_asr', shownRate(htmlAsr![1]!))).toEqual(at('html', 'overall_asr', rate));
      const risk = asRisk(figures.risk_score.value);
      expect(at('md', 'risk', shownRisk(mdKpis![0]!.replace(/\s*\/\s*10$/u, '')))).toEqual(
        at('md', 'risk', risk),
      );
      expect(at('html', 'risk', shownRisk(htmlRisk![1]!))).toEqual(at('html', 'risk', risk));
      expect(at('md', 'total', shownCount(mdKpis![6]!))).toEqual(
        at('md', 'total', figures.findings_total.value),
      );
      expect(at('html', 'total', shownCount(htmlTotal![1]!))).toEqual(
        at('html', 'total', figures.findings_total.value),
      );
      expect(at('md', 'open', shownOpen(md))).toEqual(at('md', 'open', figures.findings_open.value));
      expect(at('html', 'open', shownOpen(htmlText(html)))).toEqual(
        at('html', 'open', figures.findings_open.value),
      );
      for (const [index, level] of SEVERITIES.entries()) {
        const want = figures[`findings_${level}`].value;
        expect(at('md cards', level, shownCount(mdSeverities![index]!))).toEqual(at('md cards', level, want));
        const row = mdSeverityTable.find((cells) => cells[0] === level);
        expect(at('md table', level, shownCount(row![1]!))).toEqual(at('md table', level, want));
        const card = new RegExp(
          `<div class="kpi sev-${level}"><div class="label">${level}</div><div class="value">([^<]*)</div>`,
          'u',
        ).exec(html);
        expect(at('html cards', level, shownCount(card![1]!))).toEqual(at('html cards', level, want));
      }

      // The gates and the diff read the same overall figures.
      expect(at('gate', 'overall_asr', await gate(provider, world, project, 'overall_asr'))).toEqual(
        at('gate', 'overall_asr', figures.overall_asr.value),
      );
      expect(at('gate', 'risk_score', await gate(provider, world, project, 'risk_score'))).toEqual(
        at('gate', 'risk_score', figures.risk_score.value),
      );
      const deltas = diff.projects.find((p) => p.project === project)!.metrics;
      const to = (group: string, key: string) => {
        const found = deltas.find((d) => d.group === group && d.key === key);
        return found === undefined ? 'missing' : found.to;
      };
      expect(at('diff', 'overall_asr', to('overall', 'overall_asr'))).toEqual(
        at('diff', 'overall_asr', figures.overall_asr.value),
      );
      expect(at('diff', 'risk_score', to('overall', 'risk_score'))).toEqual(
        at('diff', 'risk_score', figures.risk_score.value),
      );
      // With no previous snapshot every open critical finding is a new one (the diff's findings are the
      // metrics layer's: attack runs of completed or failed assessments).
      expect(
        at('gate', 'new_critical', await gate(provider, world, project, 'new_critical_findings')),
      ).toEqual(at('gate', 'new_critical', await gate(provider, world, project, 'open_critical_findings')));
      const trendRow = trend.find(
        (row) => row.project_key === project && row.snapshot_id === world.snapshotId,
      );
      expect(at('@asr_trend', 'overall_asr', trendRow?.overall_asr)).toEqual(
        at('@asr_trend', 'overall_asr', Math.round(figures.overall_asr.value * 1e4) / 1e4),
      );

      // ASR by goal category: Markdown and HTML tables, the gate, the diff.
      const mdCategories = mdTable(
        between(md, '### ASR by goal category', '### Attack effectiveness'),
        '| Goal category |',
      );
      const htmlCategories = htmlRows(between(html, '<h3>ASR by goal category', '<h3>Attack effectiveness'));
      expect(at('categories', 'count', mdCategories.length)).toEqual(
        at('categories', 'count', model.asrByCategory.rows.length),
      );
      expect(at('categories', 'count', htmlCategories.length)).toEqual(
        at('categories', 'count', model.asrByCategory.rows.length),
      );
      for (const row of model.asrByCategory.rows) {
        const value = await gate(provider, world, project, `category.${row.category}.asr`);
        expect(at('gate', row.category, value)).toEqual(at('gate', row.category, row.asr));
        expect(at('diff', row.category, to('category_asr', row.category))).toEqual(
          at('diff', row.category, row.asr),
        );
        const shown = {
          percent: asPercent(value),
          numerator: row.successfulAttacks,
          denominator: row.totalAttacks,
        };
        for (const [where, table] of [
          ['md', mdCategories],
          ['html', htmlCategories],
        ] as const) {
          const cells = table.find((c) => c[0] === row.category);
          expect(
            at(where, row.category, {
              percent: shownRate(cells![1]!).percent,
              numerator: shownCount(cells![2]!),
              denominator: shownCount(cells![3]!),
            }),
          ).toEqual(at(where, row.category, shown));
        }
      }

      // Compliance coverage per framework: tables, JSON, the gate, the diff, @compliance_coverage.
      const mdCoverage = mdTable(
        between(md, '## Compliance and risk domains', '### Risk by domain'),
        '| Framework | Coverage |',
      );
      const htmlCoverage = htmlRows(between(html, 'Compliance and risk domains', '<h3>Risk by domain'));
      expect(at('coverage', 'frameworks', model.complianceCoverage.length)).toEqual(
        at('coverage', 'frameworks', (json.compliance as Json[]).length),
      );
      for (const framework of json.compliance as Json[]) {
        const key = String(framework.framework);
        const fraction = framework.coverage as number;
        const categories = (framework.categories as Json[]).length;
        const tested = (framework.categories as Json[]).filter((c) => c.state !== 'not_tested').length;
        const shown = { percent: asPercent(fraction), tested, categories };
        for (const [where, table] of [
          ['md', mdCoverage],
          ['html', htmlCoverage],
        ] as const) {
          const cells = table.find((c) => c[0] === frameworkTitle(key));
          expect(
            at(where, key, {
              percent: shownRate(cells![1]!).percent,
              tested: shownCount(cells![2]!),
              categories: shownCount(cells![3]!),
            }),
          ).toEqual(at(where, key, shown));
        }
        expect(
          at('gate', key, await gate(provider, world, project, `framework.${key}.coverage_pct`)),
        ).toEqual(at('gate', key, coveragePct(fraction)));
        expect(at('diff', key, to('framework_coverage', key))).toEqual(
          at('diff', key, coveragePct(fraction)),
        );
        const row = coverageQuery.find((r) => r.project_key === project && r.framework === key);
        expect(at('@compliance_coverage', key, [row?.tested_categories, row?.total_categories])).toEqual(
          at('@compliance_coverage', key, [tested, categories]),
        );
        // The query rounds to 2 decimals: exact to that precision.
        expect(Math.abs(Number(row?.coverage_pct) - fraction * 100)).toBeLessThanOrEqual(0.005 + 1e-9);
      }

      // @consistency lists exactly the report's disagreeing cross-checks (project level).
      const disagreeing = (json.consistency as Json[])
        .filter((check) => check.status === 'disagrees')
        .map((check) => check.check as string)
        .sort();
      const listed = consistencyQuery
        .filter(
          (row) => row.project_key === project && row.assessment_id === null && row.status === 'disagrees',
        )
        .map((row) => String(row.check_name))
        .sort();
      expect(at('@consistency', 'checks', listed)).toEqual(at('@consistency', 'checks', disagreeing));

      // @top_open_findings lists every open finding (one row per finding, latest_findings): as many as
      // the findings_open figure counts, the report's open top findings among them.
      const queryRows = topOpen.filter((row) => row.project_key === project);
      expect(topOpen.length).toBeLessThan(100); // the query's cap is not reached in these worlds
      expect(at('@top_open_findings', 'count', queryRows.length)).toEqual(
        at('@top_open_findings', 'count', figures.findings_open.value),
      );
      // Every top finding shows the status the figures count it under: an untriaged one reads
      // "open" (it used to read "—" while findings_open counted it).
      expect(
        at(
          'top findings without a status',
          'count',
          model.topFindings.filter((finding) => finding.triageStatus === null).length,
        ),
      ).toEqual(at('top findings without a status', 'count', 0));
      const queryOpen = new Set(queryRows.map((row) => `${row.attack_name}|${row.score}`));
      const reportOpen = model.topFindings
        .filter((finding) => finding.triageStatus === 'open')
        .map((finding) => `${finding.attack}|${finding.score}`);
      for (const finding of reportOpen)
        expect(at('@top_open_findings', finding, queryOpen.has(finding))).toEqual(
          at('@top_open_findings', finding, true),
        );
    }
  });

  it('@asr_by_category pools the same attacks the reports show per project', async () => {
    const pooled = new Map<string, { successful: number; attacks: number }>();
    for (const project of world.projects) {
      const model = (await report(world, 'executive', project)).model as ExecutiveModel;
      for (const row of model.asrByCategory.rows) {
        const entry = pooled.get(row.category) ?? { successful: 0, attacks: 0 };
        entry.successful += row.successfulAttacks ?? Number.NaN;
        entry.attacks += row.totalAttacks ?? Number.NaN;
        pooled.set(row.category, entry);
      }
    }
    const rows = await query(world, 'asr_by_category');
    expect(rows.map((row) => String(row.goal_category)).sort()).toEqual([...pooled.keys()].sort());
    for (const row of rows) {
      const want = pooled.get(String(row.goal_category))!;
      expect([row.goal_category, Number(row.successful_attacks), Number(row.total_attacks)]).toEqual([
        row.goal_category,
        want.successful,
        want.attacks,
      ]);
      // Rounded to 4 decimals by the query; no attacks: unknown, never 0.
      if (want.attacks === 0) expect([row.goal_category, row.asr]).toEqual([row.goal_category, null]);
      else
        expect(Math.abs(Number(row.asr) - want.successful / want.attacks)).toBeLessThanOrEqual(
          0.00005 + 1e-12,
        );
    }
  });

  it('portfolio Markdown, HTML and JSON show each project with the executive figures', async () => {
    const { model: built, json, md, html } = await report(world, 'portfolio');
    const model = built as PortfolioModel;
    const mdProjects = mdTable(md, '| Project | Key |');
    const htmlProjects = htmlRows(between(html, '<table>', '</table>'));
    const mdCoverageSection = between(md, '## Compliance coverage by project', '## Overall ASR across');
    const mdCoverageHeader = mdCoverageSection.split('\n').find((line) => line.startsWith('| Project |'))!;
    const titles = mdCoverageHeader
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim())
      .slice(1);
    const mdCoverage = mdTable(mdCoverageSection, '| Project |');
    expect(model.projects.map((row) => row.project.key).sort()).toEqual([...world.projects].sort());
    for (const [index, row] of model.projects.entries()) {
      const project = row.project.key;
      const executive = (await report(world, 'executive', project)).json;
      const figures = executive.figures;
      const entry = (json.projects as Json[]).find((p) => p.project.key === project)!;
      const at = (where: string, label: string, value: unknown) => [project, where, label, value];
      expect(at('json', 'figures', entry.figures)).toEqual(at('json', 'figures', figures));
      const md1 = mdProjects.find((cells) => cells[1] === project)!;
      const html1 = htmlProjects[index]!;
      const rate = expectedRate(figures.overall_asr);
      expect(at('md', 'risk', shownRisk(md1[3]!))).toEqual(
        at('md', 'risk', asRisk(figures.risk_score.value)),
      );
      expect(at('md', 'overall_asr', shownRate(md1[4]!))).toEqual(at('md', 'overall_asr', rate));
      expect(at('html', 'risk', shownRisk(html1[2]!))).toEqual(
        at('html', 'risk', asRisk(figures.risk_score.value)),
      );
      expect(at('html', 'overall_asr', shownRate(html1[3]!))).toEqual(at('html', 'overall_asr', rate));
      for (const [i, level] of SEVERITIES.entries()) {
        const want = figures[`findings_${level}`].value;
        expect(at('md', level, shownCount(md1[6 + i]!))).toEqual(at('md', level, want));
        expect(at('html', level, shownCount(html1[5 + i]!))).toEqual(at('html', level, want));
      }
      const mdCoverageRow = mdCoverage[index]!;
      for (const framework of executive.compliance as Json[]) {
        const column = titles.indexOf(frameworkTitle(String(framework.framework)));
        expect(at('md coverage', framework.framework, mdCoverageRow[column + 1])).toEqual(
          at('md coverage', framework.framework, coverageCellWords(framework)),
        );
      }
      expect(at('json', 'compliance', entry.compliance)).toEqual(
        at('json', 'compliance', executive.compliance),
      );
    }
  });

  it('compliance Markdown, HTML and JSON show the coverage the executive report shows', async () => {
    // One project per seed (rotating with the seed): the compliance report renders a heatmap per
    // framework, the slowest part of this file; every project's coverage is still checked above.
    for (const project of [world.projects[seed % world.projects.length]!]) {
      const executive = (await report(world, 'executive', project)).json;
      const { json, md, html } = await report(world, 'compliance', project);
      const at = (where: string, label: string, value: unknown) => [project, where, label, value];
      expect(at('json', 'compliance', json.compliance)).toEqual(
        at('json', 'compliance', executive.compliance),
      );
      expect(at('json', 'figures', json.figures)).toEqual(at('json', 'figures', executive.figures));
      const mdShown = new Map(
        [
          ...md.matchAll(/Framework key `?([\w.-]+)`?\. \*\*Coverage ([^*]+)\*\*: ([\d,]+) of ([\d,]+) /gu),
        ].map((m) => [m[1]!, [shownRate(m[2]!).percent, shownCount(m[3]!), shownCount(m[4]!)]]),
      );
      const htmlShown = new Map(
        [
          ...html.matchAll(
            /<span class="note">(?:<code>)?([\w.-]+)(?:<\/code>)?<\/span><\/h2>\s*<p><strong>Coverage ([^<]+)<\/strong>: ([\d,]+) of ([\d,]+) /gu,
          ),
        ].map((m) => [m[1]!, [shownRate(m[2]!).percent, shownCount(m[3]!), shownCount(m[4]!)]]),
      );
      for (const framework of executive.compliance as Json[]) {
        const categories = framework.categories as Json[];
        const want = [
          asPercent(framework.coverage),
          categories.filter((c) => c.state !== 'not_tested').length,
          categories.length,
        ];
        expect(at('md', framework.framework, mdShown.get(framework.framework))).toEqual(
          at('md', framework.framework, want),
        );
        expect(at('html', framework.framework, htmlShown.get(framework.framework))).toEqual(
          at('html', framework.framework, want),
        );
      }
    }
  });
});
