/**
 * The executive report's "Since last snapshot" section: from a real DuckDB warehouse built from the
 * committed fixture snapshots (two snapshots of `acme/main`, and a database holding only the first),
 * through the model, the view and both templates; and the pure section builder on a hand-made diff.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { marked } from 'marked';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import { projectDiff } from '../../src/diff/diff-report.js';
import type { FindingRecord } from '../../src/diff/finding-lifecycle.js';
import { metricDeltas } from '../../src/diff/metric-deltas.js';
import { buildModel } from '../../src/report/build-model.js';
import type { ExecutiveModel } from '../../src/report/model.js';
import { renderHtml, renderMarkdown } from '../../src/report/render.js';
import { sinceLastSnapshotSection } from '../../src/report/since-last-snapshot.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { executiveFixture } from './fixture-model.js';

const FIRST = '20260301T060000Z-first';
const SECOND = '20260315T060000Z-second';
const snapshotDir = (id: string): string => path.resolve('fixtures/snapshots/acme/main', id);

let dir: string;
let twoDb: string;
let oneDb: string;
let two: Warehouse;
let one: Warehouse;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'airt-report-since-'));
  twoDb = path.join(dir, 'two.duckdb');
  oneDb = path.join(dir, 'one.duckdb');
  const now = (): Date => new Date('2026-04-01T00:00:00Z');
  await loadSnapshots(twoDb, [snapshotDir(FIRST), snapshotDir(SECOND)], { now });
  await loadSnapshots(oneDb, [snapshotDir(FIRST)], { now });
  two = await openWarehouse(twoDb, { readOnly: true });
  one = await openWarehouse(oneDb, { readOnly: true });
});

afterAll(async () => {
  two?.close();
  one?.close();
  await rm(dir, { recursive: true, force: true });
});

const executive = async (warehouse: Warehouse, project: string, snapshot?: string): Promise<ExecutiveModel> =>
  (await buildModel(warehouse.conn, { kind: 'executive', project, snapshot })) as ExecutiveModel;

describe('sinceLastSnapshot from the warehouse', () => {
  it('compares the newest snapshot with the previous one of the project', async () => {
    const section = (await executive(two, 'payments-bot')).sinceLastSnapshot;
    expect(section?.previous).toEqual({ snapshotId: FIRST, fetchedAt: '2026-03-01T06:00:41.250Z' });
    expect(section?.current.snapshotId).toBe(SECOND);
    expect(section?.counts).toEqual({ new: 2, resolved: 0, regressed: 0, persisting: 2 });
    expect(section?.changedFindingsTotal).toBe(2);
    // Worst first: the high rainbow_attack finding before the low tap_attack one.
    expect(
      section?.changedFindings.map((f) => [f.change, f.severity, f.attack, f.goalCategory, f.scoreAfter]),
    ).toEqual([
      ['new', 'high', 'rainbow_attack', 'jailbreak_general', 0.81],
      ['new', 'low', 'tap_attack', 'system_prompt_leak', 0.3],
    ]);
    // Recomputed by the metrics layer: 4 of 7 attacks, unrounded.
    expect(section?.overallAsr).toMatchObject({ before: 0.6, after: 4 / 7 });
    expect(section?.riskScore).toMatchObject({ before: 8.4, after: 8.29 });
    // Coverage as a fraction, like every coverage figure in the report models; taxonomy order.
    expect(section?.coverage.find((row) => row.key === 'owasp_llm')).toMatchObject({
      title: 'OWASP LLM Top 10',
      before: 0.3,
      after: 0.3,
      delta: 0,
    });
    // A job only in the newer snapshot, without analytics: its pass rate is items passed ÷ dataset size
    // (1 of 6), the metrics layer's one definition; unknown before, so no delta.
    expect(section?.evaluationPassRates).toContainEqual({
      key: 'Chargeback dispute flow',
      before: null,
      after: 1 / 6,
      delta: null,
      presence: 'added',
    });
    expect(section?.schemaDrift).toEqual([
      { fileKind: 'project_summary', added: ['$.risk_appetite'], removed: [] },
      { fileKind: 'trials', added: ['$[*].candidate_parts[*].mime_hint', '$[*].judge_model'], removed: [] },
    ]);
    const other = (await executive(two, 'support-agent')).sinceLastSnapshot;
    expect(other?.counts).toEqual({ new: 0, resolved: 0, regressed: 0, persisting: 2 });
  });

  it('compares with the snapshot a run passes as its baseline, or with none', async () => {
    const build = (since: string | null) =>
      buildModel(two.conn, { kind: 'executive', project: 'payments-bot', since }) as Promise<ExecutiveModel>;
    const explicit = (await build(FIRST)).sinceLastSnapshot;
    expect(explicit?.previous.snapshotId).toBe(FIRST);
    expect(explicit?.counts).toEqual({ new: 2, resolved: 0, regressed: 0, persisting: 2 });
    expect((await build(null)).sinceLastSnapshot).toBeNull();
  });

  it('is null for the first snapshot of a project and in a database with a single snapshot', async () => {
    expect((await executive(two, 'payments-bot', FIRST)).sinceLastSnapshot).toBeNull();
    expect((await executive(one, 'payments-bot')).sinceLastSnapshot).toBeNull();
  });

  it('renders the section with its counts in Markdown and HTML', async () => {
    const model = await executive(two, 'payments-bot');
    const { markdown } = await renderMarkdown(model);
    expect(markdown).toContain('## Since last snapshot');
    expect(markdown).toContain(`Compared with the previous snapshot of this project, \`${FIRST}\``);
    expect(markdown).toContain(
      '| New | Resolved | Regressed | Persisting |\n| ---: | ---: | ---: | ---: |\n| 2 | 0 | 0 | 2 |',
    );
    expect(markdown).toContain('| new | high | rainbow\\_attack | jailbreak\\_general | — → 0.81 |');
    expect(markdown).toContain('| Overall ASR | 60.0% | 57.1% | -2.9 pp |');
    expect(markdown).toContain('| Risk score (0–10) | 8.4 | 8.3 | -0.1 |');
    expect(markdown).toContain('| Chargeback dispute flow | — | 16.7% | not in previous snapshot |');
    expect(markdown).toContain('| `project_summary` | `$.risk_appetite` | none |');
    // The section follows the summary and precedes the risk posture.
    const order = ['## Summary', '## Since last snapshot', '## Risk posture'].map((h) => markdown.indexOf(h));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // The summary itself no longer carries the comparison (it used to be appended there); the
    // one-page summary above it ("At a glance") gives the counts.
    const summary = markdown.slice(
      markdown.indexOf('## Summary'),
      markdown.indexOf('## Since last snapshot'),
    );
    expect(summary).not.toContain('Since the last snapshot');
    expect(markdown).toContain('**Since the last snapshot:** 2 new, 0 regressed, 0 resolved');

    const { html } = await renderHtml(model);
    expect(html).toContain('<section class="report-section" id="since-last-snapshot">');
    expect(html).toContain(
      '<div class="kpi change-new"><div class="label">New</div><div class="value">2</div>',
    );
    expect(html).toContain(
      '<div class="kpi change-persisting"><div class="label">Persisting</div><div class="value">2</div>',
    );
  });

  it('renders no section and no comparison wording from a single-snapshot database', async () => {
    const model = await executive(one, 'payments-bot');
    const { markdown } = await renderMarkdown(model);
    const { html } = await renderHtml(model);
    // The stylesheet names the section's classes; the visible content must not mention a comparison.
    const body = html.replace(/<style>[\s\S]*?<\/style>/u, '');
    for (const text of [markdown, body]) {
      expect(text).not.toMatch(/since (the )?last snapshot/iu);
      expect(text).not.toMatch(/previous snapshot|regressed|persisting/iu);
    }
    expect(body).not.toContain('since-last-snapshot');
  });

  it('reaches the report command: airt-report report --kind executive', async () => {
    const out = path.join(dir, 'cli');
    const io = recordingIO({ cwd: dir });
    const args = ['report', '--db', twoDb, '--kind', 'executive', '--project', 'payments-bot'];
    const code = await main([...args, '--format', 'md', '--out', `${out}/`], io);
    expect(io.err.join('')).toBe('');
    expect(code).toBe(0);
    const markdown = await readFile(path.join(out, 'report.md'), 'utf8');
    expect(markdown).toContain('## Since last snapshot');
    // Every table in the section keeps its column count (GFM parser).
    for (const token of marked.lexer(markdown, { gfm: true })) {
      if (token.type !== 'table') continue;
      for (const row of token.rows as unknown[][])
        expect(row.length).toBe((token.header as unknown[]).length);
    }
  });
});

describe('sinceLastSnapshotSection', () => {
  const finding = (id: string, severity: string, score: number, category = 'tool_misuse'): FindingRecord => ({
    attack_run_id: id,
    assessment_id: 'a1',
    assessment_name: null,
    attack_name: 'tap_attack',
    goal_category: category,
    goal: `goal ${id}`,
    severity,
    score,
    finding_status: null,
  });

  it('lists new and regressed findings worst first and categories by largest change', () => {
    const lifecycle = {
      new: [finding('n1', 'medium', 0.55)],
      resolved: [],
      regressed: [
        {
          from: finding('r1', 'high', 0.75),
          to: finding('r1', 'critical', 0.95),
          matched_by: 'attack_run_id' as const,
          reasons: ['severity high → critical'],
        },
      ],
      persisting: [],
    };
    const metrics = metricDeltas(
      {
        overall_asr: 0.2,
        risk_score: null,
        asr_by_category: { a: 0.1, b: 0.5, c: 0.3, gone: 0.2 },
        coverage_by_framework: { nist: 25, owasp_llm: 30 },
        evaluation_pass_rates: {},
      },
      {
        overall_asr: 0.3,
        risk_score: 6,
        asr_by_category: { a: 0.1, b: 0.2, c: 0.4 },
        coverage_by_framework: { nist: 50, owasp_llm: 30 },
        evaluation_pass_rates: {},
      },
    );
    const section = sinceLastSnapshotSection({
      previous: { snapshot_id: 'p', fetched_at: null, root_sha256: null },
      current: { snapshot_id: 'c', fetched_at: null, root_sha256: null },
      project: projectDiff('proj', lifecycle, metrics),
      schemaDrift: [],
    });
    expect(section.counts).toEqual({ new: 1, resolved: 0, regressed: 1, persisting: 0 });
    expect(
      section.changedFindings.map((f) => [f.change, f.severity, f.severityBefore, f.scoreBefore]),
    ).toEqual([
      ['regressed', 'critical', 'high', 0.75],
      ['new', 'medium', null, null],
    ]);
    // Largest known change, then unknown (only on one side), then unchanged.
    expect(section.categoryAsr.map((m) => m.key)).toEqual(['b', 'c', 'gone', 'a']);
    // Risk unknown before: the change is unknown, not 6.
    expect(section.riskScore).toMatchObject({ before: null, after: 6, delta: null });
    // Coverage in taxonomy order (OWASP LLM before NIST), as fractions.
    expect(section.coverage.map((m) => [m.key, m.before, m.after, m.delta])).toEqual([
      ['owasp_llm', 0.3, 0.3, 0],
      ['nist', 0.25, 0.5, 0.25],
    ]);
  });
});

describe('executive report without a previous snapshot', () => {
  it('renders no section at all when the model has none', async () => {
    const model = { ...executiveFixture(), sinceLastSnapshot: null };
    expect((await renderMarkdown(model)).markdown).not.toContain('Since last snapshot');
    expect((await renderHtml(model)).html).not.toContain('Since last snapshot');
    const { sinceLastSnapshot: _omitted, ...withoutField } = executiveFixture();
    expect((await renderMarkdown(withoutField)).markdown).not.toContain('Since last snapshot');
  });
});
