/**
 * Analytics-warning exclusions in the diff, and how its Markdown reads: a category missing on a side
 * because its only data was excluded is "unknown (excluded)", never added/removed; the exclusions are
 * named per snapshot; figures use the reports' percentages; data is escaped only as tables need.
 *
 * The warehouse case loads the fixture's second snapshot (assessment …0004's asr_by_category is
 * flagged) and a copy of it in which that slice is clean and holds a category seen nowhere else.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { marked } from 'marked';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffMarkdown, projectDiff, type SnapshotDiff } from '../../src/diff/diff-report.js';
import { diffFindings } from '../../src/diff/finding-lifecycle.js';
import { metricDeltas, type ProjectMetrics } from '../../src/diff/metric-deltas.js';
import { diffSnapshots } from '../../src/diff/snapshot-diff.js';
import { excludedSliceKeys } from '../../src/diff/warehouse-source.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { copyFixture, FIXTURES, reseal, tempDir } from '../warehouse/helpers.js';

const metrics = (categories: Record<string, number | null>, coverage: Record<string, number | null> = {}) =>
  ({
    overall_asr: 0.5625,
    risk_score: 6.25,
    asr_by_category: categories,
    coverage_by_framework: coverage,
    evaluation_pass_rates: {},
  }) satisfies ProjectMetrics;

describe('metricDeltas with excluded slices', () => {
  it('marks a key missing on a side with exclusions in its slice as unknown there, not added or removed', () => {
    const deltas = metricDeltas(
      metrics({ kept: 0.25, only_before: 0.5 }, { nist: 40 }),
      metrics({ kept: 0.5, credential_leak: 0.6 }, {}),
      { from: ['asr_by_category'], to: ['compliance_matrix'] },
    );
    const byKey = Object.fromEntries(deltas.map((d) => [`${d.group}:${d.key}`, d]));
    expect(byKey['category_asr:credential_leak']).toEqual({
      group: 'category_asr',
      key: 'credential_leak',
      from: null,
      to: 0.6,
      delta: null,
      presence: 'both',
      excluded: 'from',
    });
    // The `to` side had no asr_by_category exclusion: a category it lacks really is gone.
    expect(byKey['category_asr:only_before']).toMatchObject({ presence: 'removed', excluded: null });
    expect(byKey['category_asr:kept']).toMatchObject({ delta: 0.25, presence: 'both', excluded: null });
    expect(byKey['framework_coverage:nist']).toMatchObject({
      from: 40,
      to: null,
      delta: null,
      presence: 'both',
      excluded: 'to',
    });
  });

  it('calls a key no excluded assessment could have held added or removed, one it could unknown', () => {
    const deltas = metricDeltas(
      metrics({ kept: 0.25, only_before: 0.5, ran_after: 0.1 }, { nist: 40 }),
      metrics({ kept: 0.5, credential_leak: 0.6, content_policy: 0.2 }, {}),
      {
        from: ['asr_by_category'],
        to: ['asr_by_category', 'compliance_matrix'],
        // The excluded assessments' attack runs: content_policy before, ran_after after; no runs
        // tell which frameworks a matrix held.
        keys: { from: { asr_by_category: ['content_policy'] }, to: { asr_by_category: ['ran_after'] } },
      },
    );
    const byKey = Object.fromEntries(deltas.map((d) => [`${d.group}:${d.key}`, d]));
    expect(byKey['category_asr:content_policy']).toMatchObject({ presence: 'both', excluded: 'from' });
    expect(byKey['category_asr:credential_leak']).toMatchObject({
      from: null,
      to: 0.6,
      delta: null,
      presence: 'added',
      excluded: null,
    });
    expect(byKey['category_asr:ran_after']).toMatchObject({ presence: 'both', excluded: 'to' });
    expect(byKey['category_asr:only_before']).toMatchObject({ presence: 'removed', excluded: null });
    // No keys for compliance_matrix: any framework could be hidden, so nist stays unknown.
    expect(byKey['framework_coverage:nist']).toMatchObject({ presence: 'both', excluded: 'to' });
  });

  it('treats every key as added without a previous snapshot, whatever the exclusions', () => {
    const deltas = metricDeltas(null, metrics({ fresh: 0.1 }), { from: ['asr_by_category'], to: [] });
    expect(deltas.find((d) => d.key === 'fresh')).toMatchObject({ presence: 'added', excluded: null });
  });
});

describe('diff Markdown', () => {
  const diff: SnapshotDiff = {
    format: 'airt-diff/1',
    from: { snapshot_id: 'snap-a', fetched_at: null, root_sha256: null },
    to: { snapshot_id: 'snap-b', fetched_at: null, root_sha256: null },
    projects: [
      projectDiff(
        'payments-bot',
        diffFindings([], []),
        metricDeltas(
          metrics({ alignment_integrity: 0.5 }, { owasp_llm: 40 }),
          metrics({ alignment_integrity: 0.5625, credential_leak: 0.6 }, { owasp_llm: 50 }),
          { from: ['asr_by_category'], to: [] },
        ),
        {
          in_previous: true,
          excluded: [],
          data_quality: [
            { snapshot_id: 'snap-a', field: 'asr_by_category', assessment_ids: ['a-1'] },
            { snapshot_id: 'snap-b', field: 'attack_runs', assessment_ids: ['a-2', 'a-3'] },
          ],
        },
      ),
    ],
    schema_drift: [],
  };
  const markdown = diffMarkdown(diff);

  it('shows an excluded side as unknown (excluded) and names the exclusions per snapshot', () => {
    expect(markdown).toContain('| category ASR: `credential_leak` | excluded | 60.0% | unknown (excluded) |');
    expect(markdown).not.toMatch(/credential_leak.*\| added \|/u);
    expect(markdown).toContain(
      '- excludes 1 assessment with erroneous `asr_by_category` in snapshot `snap-a`',
    );
    expect(markdown).toContain('- excludes 2 assessments with erroneous `attack_runs` in snapshot `snap-b`');
  });

  it('formats figures like the reports: percentages, changes in points, risk with one decimal', () => {
    expect(markdown).toContain('| overall ASR | 56.3% | 56.3% | 0.0 pp |');
    expect(markdown).toContain('| category ASR: `alignment_integrity` | 50.0% | 56.3% | +6.3 pp |');
    expect(markdown).toContain('| framework coverage: `owasp_llm` | 40.0% | 50.0% | +10.0 pp |');
    expect(markdown).toContain('| risk score | 6.3 | 6.3 | 0.0 |');
    expect(markdown).not.toContain('0.5625');
  });

  it('does not backslash-escape plain punctuation', () => {
    expect(markdown).toContain('## Project payments-bot');
    expect(markdown).not.toMatch(/\\[:\-=()]/u);
  });

  it('keeps hostile names inert: no markup, no extra cells', async () => {
    const hostile = diffMarkdown({
      ...diff,
      projects: [
        projectDiff(
          'p',
          diffFindings(
            [],
            [
              {
                attack_run_id: 'r1',
                assessment_id: 'a1',
                assessment_name: '# [x](https://evil.example) <img src=x onerror=alert(1)> | cell',
                attack_name: 'tap`|`attack',
                goal_category: '<b>cat</b>',
                goal: '*bold* _em_ \\| line\nbreak & <script>alert(1)</script>',
                severity: 'critical',
                score: 0.9,
                finding_status: null,
              },
            ],
          ),
          [],
        ),
      ],
    });
    const row = hostile.split('\n').find((line) => line.startsWith('| critical'));
    // 7 columns → 8 unescaped pipes; the escaped ones are data.
    expect(row?.replace(/\\\|/gu, '').split('|').length).toBe(9);
    const html = await marked.parse(hostile, { gfm: true });
    for (const markup of ['<img', '<script', '<b>', '<a ', '<em>', '<strong>']) {
      expect(html).not.toContain(markup);
    }
    expect(html.match(/<h1/gu)).toHaveLength(1); // the diff's own title only
  });
});

describe('diffSnapshots over the warehouse', () => {
  const FLAGGED = 'a0000000-0000-4000-8000-000000000004';
  const SECOND = '20260315T060000Z-second';
  const CLEAN = '20260316T060000Z-clean';
  let work: Awaited<ReturnType<typeof tempDir>>;
  let warehouse: Warehouse;

  beforeAll(async () => {
    work = await tempDir('airt-diff-');
    // The second snapshot again a day later, with …0004's asr_by_category clean and naming a
    // category no other assessment has: it exists only where the slice was usable.
    const copy = await copyFixture(FIXTURES.second, work.dir);
    const clean = path.join(work.dir, CLEAN);
    await rename(copy, clean);
    const summaryFile = path.join(clean, 'projects/payments-bot/summary.json');
    const summary = JSON.parse(await readFile(summaryFile, 'utf8')) as {
      assessments: Record<string, unknown>[];
    };
    const flagged = summary.assessments.find((a) => a.id === FLAGGED)!;
    flagged.analytics_warnings = [];
    flagged.asr_by_category = {
      dimension: 'goal_category',
      entries: {
        jailbreak_general: {
          asr: 0.5,
          best_score: 0.8,
          successful_attacks: 1,
          total_attacks: 2,
          total_trials: 4,
        },
      },
    };
    await writeFile(summaryFile, `${JSON.stringify(summary, null, 2)}\n`);
    await reseal(clean, (manifest) => {
      manifest.snapshot_id = CLEAN;
      manifest.started_at = '2026-03-16T06:00:00.000Z';
      manifest.finished_at = '2026-03-16T06:00:52.500Z';
    });
    const db = path.join(work.dir, 'airt.duckdb');
    await loadSnapshots(db, [FIXTURES.second, clean]);
    warehouse = await openWarehouse(db, { readOnly: true });
  });

  afterAll(async () => {
    warehouse?.close();
    await work?.cleanup();
  });

  const project = (diff: SnapshotDiff) => diff.projects.find((p) => p.project === 'payments-bot')!;

  it('calls a category seen only where its data was excluded unknown (excluded), and says what was excluded', async () => {
    const diff = await diffSnapshots(warehouse.conn, { from: SECOND, to: CLEAN, projects: ['payments-bot'] });
    const payments = project(diff);
    expect(payments.metrics.find((m) => m.key === 'jailbreak_general')).toMatchObject({
      group: 'category_asr',
      from: null,
      to: 0.5,
      delta: null,
      presence: 'both',
      excluded: 'from',
    });
    expect(payments.data_quality).toEqual([
      { snapshot_id: SECOND, field: 'asr_by_category', assessment_ids: [FLAGGED] },
    ]);
    const markdown = diffMarkdown(diff);
    expect(markdown).toContain(
      '| category ASR: `jailbreak_general` | excluded | 50.0% | unknown (excluded) |',
    );
    expect(markdown).toContain(
      `- excludes 1 assessment with erroneous \`asr_by_category\` in snapshot \`${SECOND}\``,
    );
  });

  it('reads which categories the excluded assessment could have held from its attack runs', async () => {
    const ref = { key: 'payments-bot', id: null, name: null };
    expect(
      await excludedSliceKeys(warehouse.conn, SECOND, ref, ['asr_by_category', 'compliance_matrix']),
    ).toEqual({ asr_by_category: ['jailbreak_general', 'system_prompt_leak'] });
    // No exclusion in the clean copy: nothing could be hidden there.
    expect(await excludedSliceKeys(warehouse.conn, CLEAN, ref, ['asr_by_category'])).toEqual({});
  });

  it('does the same the other way round: not removed, unknown on the later side', async () => {
    const diff = await diffSnapshots(warehouse.conn, { from: CLEAN, to: SECOND, projects: ['payments-bot'] });
    expect(project(diff).metrics.find((m) => m.key === 'jailbreak_general')).toMatchObject({
      from: 0.5,
      to: null,
      presence: 'both',
      excluded: 'to',
    });
    expect(diffMarkdown(diff)).toContain(
      '| category ASR: `jailbreak_general` | 50.0% | excluded | unknown (excluded) |',
    );
  });

  it('has no data-quality note for a project without exclusions', async () => {
    const diff = await diffSnapshots(warehouse.conn, {
      from: SECOND,
      to: CLEAN,
      projects: ['support-agent'],
    });
    expect(diff.projects[0]?.data_quality).toEqual([]);
    expect(diffMarkdown(diff)).not.toContain('Data quality');
  });
});
