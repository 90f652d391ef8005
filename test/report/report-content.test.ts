/**
 * Report content an auditor reads: every count states its basis and agrees with its siblings, ties are
 * named, words agree with their counts, framework categories carry human titles, and multi-project
 * data-quality rows say which project they belong to.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chartsForModel } from '../../src/report/charts/catalog.js';
import { countOf, pluralWord } from '../../src/report/format.js';
import { categoryLabel, categoryTitle, FRAMEWORKS } from '../../src/report/frameworks.js';
import { evaluationPassRate } from '../../src/report/model-sql/executive.js';
import type { ExecutiveModel, Sentence } from '../../src/report/model.js';
import { executiveNarrative, leaders, nameList, portfolioNarrative } from '../../src/report/narrative.js';
import { renderHtml, renderMarkdown } from '../../src/report/render.js';
import { executiveFixture, portfolioFixture } from './fixture-model.js';

const plain = (sentences: Sentence[]): string =>
  sentences.map((parts) => parts.map((part) => part.value).join('')).join('\n');

function withoutSummary(): Omit<ExecutiveModel, 'summary'> {
  const { summary: _summary, ...model } = executiveFixture();
  return model;
}

describe('findings by severity: one basis everywhere', () => {
  it('KPI cards, summary sentence and severity chart all use the findings by severity of the metrics layer', async () => {
    const model = {
      ...withoutSummary(),
      kpis: {
        ...withoutSummary().kpis,
        totalFindings: 48,
        findingsBySeverity: { critical: 15, high: 6, medium: 7, low: 5, info: 15 },
      },
    };
    const text = plain(executiveNarrative(model));
    expect(text).toContain(
      'Counting findings by current severity (false positives left out), there are 15 critical findings and 6 high-severity findings (48 findings in all); ' +
        "the Top findings table lists the service's 3 highest-ranked findings.",
    );
    const chart = chartsForModel({ ...model, summary: [] }, (value) => value).find(
      (definition) => definition.name === 'severity-distribution',
    );
    expect((chart?.spec as { data: { values: unknown[] } }).data.values).toEqual([
      { severity: 'critical', count: 15 },
      { severity: 'high', count: 6 },
      { severity: 'medium', count: 7 },
      { severity: 'low', count: 5 },
      { severity: 'info', count: 15 },
    ]);
    const { markdown } = await renderMarkdown({ ...model, summary: executiveNarrative(model) });
    expect(markdown).toContain('| 15 | 6 | 7 | 5 | 15 |');
    expect(markdown).toContain('| critical | 15 |');
    expect(markdown).toContain('counts by severity use its current (triaged) severity');
    expect(markdown).toContain('Every attack run of a completed or failed assessment is one finding');
  });
});

describe('attack effectiveness: times used, not attacks', () => {
  it('labels the column for what it is and notes how it relates to the attack count', async () => {
    for (const output of [
      (await renderMarkdown(executiveFixture())).markdown,
      (await renderHtml(executiveFixture())).html,
    ]) {
      expect(output).not.toMatch(/Runs/u);
      expect(output).toContain('Times used');
      // 12 + 14 + 10 + 8 over the fixture's rows, against 58 attacks in the summary.
      expect(output).toMatch(/The column sums to 44; the summary's 58 attacks is the service's/u);
    }
  });
});

describe('evaluation pass rate: one definition', () => {
  const items = (
    passed: number | null,
    rest: Partial<Record<'failed' | 'errored' | 'infra_error' | 'timed_out', number | null>> = {},
  ) => ({
    passed,
    failed: 0,
    errored: 0,
    infra_error: 0,
    timed_out: 0,
    ...rest,
  });
  const job = (
    counts: ReturnType<typeof items>,
    datasetSize: number | null,
    service: { passRate: number | null; status: string | null } = { passRate: null, status: null },
  ) =>
    evaluationPassRate({
      items: counts,
      datasetSize,
      servicePassRate: service.passRate,
      serviceStatus: service.status,
    });

  it('divides items passed by dataset size once every item has an outcome', () => {
    // A finished job: the service's figure is the same ratio; ours is computed the same way.
    expect(job(items(49, { failed: 5 }), 54, { passRate: 0.9074, status: 'completed' })).toBeCloseTo(
      49 / 54,
      10,
    );
    // A failed job: errored, infra-error and timed-out items count as not passed.
    expect(job(items(1, { failed: 1, infra_error: 3, timed_out: 1 }), 6)).toBeCloseTo(1 / 6, 10);
  });

  it('gives a queued, running or partly cancelled job no pass rate, never 0', () => {
    // Queued: 0 of 286 items have an outcome. Running: 20 passed, 4 failed so far of 275.
    expect(job(items(0), 286)).toBeNull();
    expect(job(items(20, { failed: 4 }), 275)).toBeNull();
    // Cancelled with 18 passed and 1 failed of 111: 92 items never ran. Neither 18 / 111 nor 18 / 19.
    expect(job(items(18, { failed: 1 }), 111)).toBeNull();
    expect(job(items(3), 0)).toBeNull();
  });

  it("takes the service's figure only when the counts are unknown and its summary is final", () => {
    expect(job(items(null), 54, { passRate: 0.5, status: 'completed' })).toBe(0.5);
    expect(job(items(null), 54, { passRate: 0.25, status: 'failed' })).toBe(0.25);
    expect(job(items(null), 54, { passRate: 0.1, status: 'pending' })).toBeNull();
    expect(job(items(null), 54)).toBeNull();
  });

  it('states the definition under the table', async () => {
    const { markdown } = await renderMarkdown(executiveFixture());
    expect(markdown).toContain(
      'Pass rate = items passed ÷ dataset size, once every item of the job has an outcome',
    );
    expect(markdown).toContain('has none yet (—, not 0%)');
    expect(markdown).not.toContain("(and the service's own)");
  });
});

describe('portfolio data quality', () => {
  it('names the project on each assessment row, so rows from two projects never read the same', async () => {
    const { markdown } = await renderMarkdown(portfolioFixture());
    const legacy = markdown
      .split('### Legacy data')[1]!
      .split('###')[0]!
      .split('\n')
      .filter((line) => line.startsWith('- '));
    expect(legacy).toHaveLength(2);
    expect(new Set(legacy).size).toBe(2);
    expect(legacy[0]).toMatch(/^- Support bot .* · Weekly sweep/u);
    expect(markdown).toContain('| Project | Assessment | Assessment id | Field |');
    expect(markdown).toContain('| Project | Assessment | Trials stored | Limit |');
    const single = (await renderMarkdown(executiveFixture())).markdown;
    expect(single).toContain('| Assessment | Assessment id | Field |');
    expect(single).not.toContain('| Project | Assessment |');
  });
});

describe('framework category titles', () => {
  it('titles every category the taxonomy lists, except an ATLAS id whose name is not confirmed', () => {
    const taxonomy = readFileSync(new URL('../../docs/reference/TAXONOMY.md', import.meta.url), 'utf8');
    for (const framework of FRAMEWORKS) {
      expect(taxonomy).toContain(`\`${framework.key}\``);
      for (const category of framework.categories) {
        expect(taxonomy).toContain(category.tag);
        if (category.tag !== 'AML.T0026') expect(category.title, category.tag).toBeTruthy();
      }
    }
    expect(categoryTitle('owasp_agentic', 'agentic_asi01_behavior_hijacking')).toBe(
      'ASI01 Behavior Hijacking',
    );
    expect(categoryTitle('atlas', 'AML.T0051.001')).toBe('LLM Prompt Injection: Indirect');
    expect(categoryTitle('saif', 'SUPPLY_CHAIN_COMPROMISE')).toBe('Supply Chain Compromise');
  });

  it('labels keep the key, and an untitled id is shown alone', () => {
    expect(categoryLabel('owasp_llm', 'LLM01:2025')).toBe('LLM01:2025 Prompt Injection');
    expect(categoryLabel('atlas', 'AML.T0029')).toBe('AML.T0029 Denial of ML Service');
    expect(categoryLabel('owasp_agentic', 'agentic_asi02_tool_misuse')).toBe('ASI02 Tool Misuse');
    expect(categoryLabel('atlas', 'AML.T0026')).toBe('AML.T0026');
    expect(categoryLabel('atlas', 'AML.T9999')).toBe('AML.T9999');
  });
});

describe('wording', () => {
  it('pluralizes through one rule', () => {
    expect(countOf(1, 'assessment', 'assessments')).toBe('1 assessment');
    expect(countOf(0, 'assessment', 'assessments')).toBe('0 assessments');
    expect(countOf(1200, 'trial', 'trials')).toBe('1,200 trials');
    expect(pluralWord(1, 'Its', 'Their')).toBe('Its');
  });

  it('says "Its values" for one excluded assessment and "Their values" for several', async () => {
    const one = (await renderMarkdown(executiveFixture())).markdown;
    expect(one).toContain('Legacy run \\<b\\>3\\</b\\>. Its values are unknown');
    const model = executiveFixture();
    model.asrByCategory.excludes = [{ field: 'asr_by_category', assessments: ['a', 'b'] }];
    const two = (await renderHtml(model)).html;
    expect(two).toContain('Excludes 2 assessments');
    expect(two).toContain('Their values are unknown');
  });

  it('names tied leaders, up to three and then "and N more"', () => {
    const base = withoutSummary();
    const text = plain(
      executiveNarrative({
        ...base,
        transformLift: {
          baselineAsr: 0.55,
          rows: [
            { transform: 'rot13', lift: 0.45, avgAsr: 1, timesUsed: 3 },
            { transform: 'character_space', lift: 0.45000000001, avgAsr: 1, timesUsed: 2 },
            { transform: 'base64', lift: -0.3, avgAsr: 0.25, timesUsed: 4 },
          ],
        },
        attackEffectiveness: ['e', 'd', 'c', 'b', 'a'].map((attack) => ({
          attack,
          timesUsed: 1,
          successRate: 1,
          avgBestScore: 0.9,
          totalTrials: 10,
        })),
        asrByCategory: {
          rows: [
            { category: 'tool_misuse', asr: 1, successfulAttacks: 4, totalAttacks: 4, totalTrials: 9 },
            { category: 'system_prompt_leak', asr: 1, successfulAttacks: 1, totalAttacks: 1, totalTrials: 9 },
            { category: 'pii_extraction', asr: 0.5, successfulAttacks: 1, totalAttacks: 2, totalTrials: 9 },
          ],
          excludes: [],
        },
      }),
    );
    expect(text).toContain(
      'The most effective attacks, tied at a success rate of 100.0%, were a, b, c and 2 more; ' +
        'the transforms tied for the largest lift over baseline (+45.0 pp) were character_space and rot13.',
    );
    expect(text).toContain(
      'The weakest goal categories, tied at an ASR of 100.0%, are system_prompt_leak and tool_misuse.',
    );
  });

  it('names tied portfolio leaders too', () => {
    const { summary: _summary, ...model } = portfolioFixture();
    const projects = model.projects.map((row) => ({
      ...row,
      riskScore: row.riskScore === null ? null : 8.9,
    }));
    expect(plain(portfolioNarrative({ ...model, projects }))).toContain(
      'Highest risk, tied at risk score 8.9 of 10',
    );
  });

  it('keeps tied names as data parts and lists them deterministically', () => {
    expect(nameList(['a', 'b']).map((part) => `${part.kind}:${part.value}`)).toEqual([
      'data:a',
      'text: and ',
      'data:b',
    ]);
    const rows = [
      { name: 'z', value: 0.3 },
      { name: 'y', value: 0.3 },
      { name: 'x', value: null },
    ];
    expect(
      leaders(
        rows,
        (row) => row.value,
        (row) => row.name,
        String,
        'lowest',
      )?.names,
    ).toEqual(['y', 'z']);
  });
});
