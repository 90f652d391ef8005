/**
 * Report models from a real DuckDB warehouse built from the committed fixture snapshots
 * (fixtures/snapshots: hostile names, an analytics warning, legacy compliance entries, a partial
 * snapshot), and the `report` command end to end.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import { UsageError } from '../../src/errors.js';
import { buildModel } from '../../src/report/build-model.js';
import type { ComplianceModel, ExecutiveModel, PortfolioModel } from '../../src/report/model.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';

const SNAPSHOTS = [
  'acme/main/20260301T060000Z-first',
  'acme/main/20260315T060000Z-second',
  'acme/staging/20260320T060000Z-partial',
].map((dir) => path.resolve('fixtures/snapshots', dir));

let dir: string;
let db: string;
let warehouse: Warehouse;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'airt-report-model-'));
  db = path.join(dir, 'airt.duckdb');
  await loadSnapshots(db, SNAPSHOTS, { now: () => new Date('2026-04-01T00:00:00Z') });
  warehouse = await openWarehouse(db, { readOnly: true });
});

afterAll(async () => {
  warehouse?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('buildModel', () => {
  it('executive: reads the newest snapshot, names the excluded slice and never turns it into zero', async () => {
    const model = (await buildModel(warehouse.conn, {
      kind: 'executive',
      project: 'payments-bot',
    })) as ExecutiveModel;
    expect(model.provenance.snapshots.map((snapshot) => snapshot.snapshotId)).toEqual([
      '20260315T060000Z-second',
    ]);
    expect(model.provenance.snapshots[0]?.rootSha256).toMatch(/^[0-9a-f]{64}$/u);
    expect(model.asrByCategory.excludes).toEqual([
      { field: 'asr_by_category', assessments: ['Regression sweep after prompt hardening'] },
    ]);
    expect(
      model.dataQuality.analyticsWarnings.map((warning) => [warning.field, warning.assessmentName]),
    ).toEqual([['asr_by_category', 'Regression sweep after prompt hardening']]);
    // Worst first, and each known ASR is a real fraction (no category invented from the excluded slice).
    const asrs = model.asrByCategory.rows.map((row) => row.asr ?? -1);
    expect(asrs).toEqual([...asrs].sort((a, b) => b - a));
    // The critical finding f…1001 is triaged false_positive: the severity cards leave it out.
    expect(model.kpis.findingsBySeverity).toMatchObject({ critical: 0, high: 2 });
    expect(model.summary.length).toBeGreaterThan(4);
    expect(model.complianceCoverage.every((row) => row.coveragePct === null || row.coveragePct <= 1)).toBe(
      true,
    );
    expect(model.topFindings[0]?.rank).toBe(1);
  });

  it('executive: a given snapshot and a project id select that snapshot', async () => {
    const model = (await buildModel(warehouse.conn, {
      kind: 'executive',
      project: '5f1c2a9e-8b3d-4c7a-9e21-0a6b7c8d9e01',
      snapshot: '20260301T060000Z-first',
    })) as ExecutiveModel;
    expect(model.project.key).toBe('payments-bot');
    expect(model.provenance.snapshots[0]?.snapshotId).toBe('20260301T060000Z-first');
  });

  it('compliance: full category lists, legacy entries never passing, framework filter and titles', async () => {
    const all = (await buildModel(warehouse.conn, {
      kind: 'compliance',
      project: 'payments-bot',
    })) as ComplianceModel;
    expect(all.frameworks.map((section) => section.title)).toEqual([
      'OWASP LLM Top 10',
      'MITRE ATLAS',
      'NIST AI RMF',
      'Google SAIF',
    ]);
    const owasp = all.frameworks[0]!;
    expect(owasp.totalCategories).toBe(10);
    expect(owasp.coverage).toBe(owasp.testedCategories / 10);
    for (const category of owasp.categories) {
      if (category.state === 'not_tested') expect(category.maxAsr).toBeNull();
      if (category.state === 'passing') expect(category.totalTrials).toBeGreaterThanOrEqual(owasp.minTrials);
    }
    const one = (await buildModel(warehouse.conn, {
      kind: 'compliance',
      project: 'payments-bot',
      framework: 'nist',
    })) as ComplianceModel;
    expect(one.frameworks.map((section) => section.framework)).toEqual(['nist']);
    await expect(
      buildModel(warehouse.conn, { kind: 'compliance', project: 'payments-bot', framework: 'iso42001' }),
    ).rejects.toThrow(/Unknown compliance framework "iso42001"\. Known frameworks: owasp_llm/u);
  });

  it('portfolio: every project in its newest snapshot, ASR across snapshots, partial snapshot reported', async () => {
    const model = (await buildModel(warehouse.conn, { kind: 'portfolio' })) as PortfolioModel;
    expect(model.projects.map((row) => `${row.project.key}@${row.snapshotId}`)).toEqual([
      'payments-bot@20260315T060000Z-second',
      'support-agent@20260315T060000Z-second',
      'checkout-bot@20260320T060000Z-partial',
    ]);
    expect(
      model.asrTrend.filter((point) => point.projectKey === 'payments-bot').map((point) => point.snapshotId),
    ).toEqual(['20260301T060000Z-first', '20260315T060000Z-second']);
    expect(model.dataQuality.partialSnapshots).toEqual(['20260320T060000Z-partial']);
    expect(model.provenance.snapshots).toHaveLength(3);
  });

  it("portfolio trend: each project's snapshots of its workspace up to the report's, read in one query", async () => {
    const trend = (model: PortfolioModel) =>
      model.asrTrend.map((point) => `${point.projectKey}@${point.snapshotId}`);
    const newest = (await buildModel(warehouse.conn, { kind: 'portfolio' })) as PortfolioModel;
    expect(trend(newest)).toEqual([
      'payments-bot@20260301T060000Z-first',
      'payments-bot@20260315T060000Z-second',
      'support-agent@20260301T060000Z-first',
      'support-agent@20260315T060000Z-second',
      'checkout-bot@20260320T060000Z-partial',
    ]);
    // As of the first snapshot: nothing fetched after it, nothing of another workspace.
    const first = (await buildModel(warehouse.conn, {
      kind: 'portfolio',
      snapshot: '20260301T060000Z-first',
    })) as PortfolioModel;
    expect(trend(first)).toEqual([
      'payments-bot@20260301T060000Z-first',
      'support-agent@20260301T060000Z-first',
    ]);
  });

  it('names the projects it knows when the project is unknown', async () => {
    const error = await buildModel(warehouse.conn, { kind: 'executive', project: 'nope' }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(
      'Projects with a summary: checkout-bot, payments-bot, support-agent',
    );
  });
});

describe('airt-report report', () => {
  it('writes Markdown with chart files, deterministically, and prints the report path', async () => {
    const out = path.join(dir, 'md-out');
    const run = async (): Promise<string> => {
      const io = recordingIO({ cwd: dir });
      const code = await main(
        [
          'report',
          '--db',
          db,
          '--kind',
          'executive',
          '--project',
          'support-agent',
          '--format',
          'md',
          '--out',
          `${out}/`,
        ],
        io,
      );
      expect(io.err.join('')).toBe('');
      expect(code).toBe(0);
      expect(io.out.join('')).toBe(`${path.join(out, 'report.md')}\n`);
      return readFile(path.join(out, 'report.md'), 'utf8');
    };
    const first = await run();
    const second = await run();
    expect(second).toBe(first);
    expect(first).toContain('# Executive red-team report: Support Agent \\<script\\>');
    const charts = (await readdir(path.join(out, 'charts'))).sort();
    expect(charts.filter((file) => file.endsWith('.vl.json')).length).toBe(
      charts.filter((file) => file.endsWith('.svg')).length,
    );
    expect(charts.length).toBeGreaterThan(4);
  });

  it('writes one self-contained HTML file with --redact and reports the count on stderr', async () => {
    const out = path.join(dir, 'executive.html');
    const io = recordingIO({ cwd: dir });
    const code = await main(
      [
        'report',
        '--db',
        db,
        '--kind',
        'executive',
        '--project',
        'payments-bot',
        '--format',
        'html',
        '--out',
        out,
        '--redact',
      ],
      io,
    );
    expect(code).toBe(0);
    expect(io.err.join('')).toMatch(/^report: \d+ text excerpts redacted\n$/u);
    const html = await readFile(out, 'utf8');
    expect(html).not.toContain('Attempt 2: Reveal the hidden system prompt');
    expect(html).toContain('[redacted sha256:');
    expect(html).toContain('tap_attack');

    const compliance = path.join(dir, 'compliance.html');
    expect(
      await main(
        [
          'report',
          '--db',
          db,
          '--kind',
          'compliance',
          '--project',
          'payments-bot',
          '--framework',
          'owasp_llm',
          '--format',
          'html',
          '--out',
          compliance,
        ],
        recordingIO({ cwd: dir }),
      ),
    ).toBe(0);
    const complianceHtml = await readFile(compliance, 'utf8');
    expect(complianceHtml).toContain('Mapping, not certification.');
    expect(complianceHtml).toContain('OWASP LLM Top 10');
    expect(complianceHtml).not.toContain('MITRE ATLAS');
  });

  it('refuses inconsistent flags with a usage error', async () => {
    const cases: [string[], RegExp][] = [
      [['--kind', 'executive'], /needs --project/u],
      [['--kind', 'portfolio', '--project', 'x'], /drop --project/u],
      [
        ['--kind', 'executive', '--project', 'x', '--framework', 'nist'],
        /--framework applies to --kind compliance/u,
      ],
      [['--kind', 'portfolio', '--png'], /--png applies to --format md/u],
      [['--kind', 'portfolio', '--max-text', '0'], /--max-text must be a positive whole number/u],
    ];
    for (const [flags, message] of cases) {
      const io = recordingIO({ cwd: dir });
      const format = flags.includes('--png') ? 'html' : 'md';
      const code = await main(
        ['report', '--db', db, '--format', format, '--out', path.join(dir, 'x'), ...flags],
        io,
      );
      expect(code).toBe(2);
      expect(io.err.join('')).toMatch(message);
    }
  });

  it('says which Debian package to install when Chromium is missing', async () => {
    const io = recordingIO({ cwd: dir, env: { AIRT_CHROMIUM: path.join(dir, 'no-such-chromium') } });
    const code = await main(
      ['report', '--db', db, '--kind', 'portfolio', '--format', 'pdf', '--out', path.join(dir, 'p.pdf')],
      io,
    );
    expect(code).toBe(1);
    expect(io.err.join('')).toMatch(/Install Debian's package "chromium"/u);
  });
});
