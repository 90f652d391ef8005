/**
 * The "Since last snapshot" metric rows show before, after and change at one precision per row, chosen
 * on the figures as shown (percent for percentages and points), so a row never contradicts itself:
 * risk 8.11 → 8.06 reads "8.11 → 8.06, -0.05", never "8.1 → 8.1, -0.1". Ordinary rows keep one decimal.
 */
import { describe, expect, it } from 'vitest';
import type { ExecutiveModel, MetricChange, SinceLastSnapshot } from '../../src/report/model.js';
import { renderHtml, renderMarkdown } from '../../src/report/render.js';
import { executiveFixture } from './fixture-model.js';

const both = (key: string, before: number, after: number, delta: number): MetricChange => ({
  key,
  before,
  after,
  delta,
  presence: 'both',
});

/** The fixture's executive model with its "Since last snapshot" figures replaced. */
function modelWith(figures: Partial<SinceLastSnapshot>): ExecutiveModel {
  const model = executiveFixture();
  const section = model.sinceLastSnapshot;
  if (!section) throw new Error('the fixture has a Since last snapshot section');
  return { ...model, sinceLastSnapshot: { ...section, ...figures } };
}

describe('Since last snapshot metric rows', () => {
  it('show before, after and change at one precision that tells them apart', async () => {
    const model = modelWith({
      // Alike at one decimal (45.6% → 45.6%, +0.0 pp): two decimals.
      overallAsr: both('overall_asr', 0.4561, 0.4564, 0.0003),
      // Alike at one decimal (8.1 → 8.1, -0.1): two decimals.
      riskScore: both('risk_score', 8.11, 8.06, -0.05),
      categoryAsr: [
        both('jailbreak', 0.1234, 0.1236, 0.0002),
        // Ordinary: one decimal, as before.
        both('system_prompt_leak', 0.5, 0.8, 0.3),
      ],
      coverage: [{ ...both('owasp_llm', 0.4561, 0.4564, 0.0003), title: 'OWASP LLM Top 10' }],
      evaluationPassRates: [both('nightly', 0.9, 0.8, -0.1)],
    });
    const { markdown } = await renderMarkdown(model);
    expect(markdown).toContain('| Overall ASR | 45.61% | 45.64% | +0.03 pp |');
    expect(markdown).toContain('| Risk score (0–10) | 8.11 | 8.06 | -0.05 |');
    expect(markdown).toContain('| jailbreak | 12.34% | 12.36% | +0.02 pp |');
    expect(markdown).toContain('| system\\_prompt\\_leak | 50.0% | 80.0% | +30.0 pp |');
    expect(markdown).toContain('| OWASP LLM Top 10 | 45.61% | 45.64% | +0.03 pp |');
    expect(markdown).toContain('| nightly | 90.0% | 80.0% | -10.0 pp |');
    expect(markdown).not.toContain('45.6% |');
    expect(markdown).not.toContain('| 8.1 |');

    const { html } = await renderHtml(model);
    expect(html).toContain(
      '<tr><td>Risk score (0–10)</td><td class="num">8.11</td><td class="num">8.06</td>' +
        '<td class="num delta-down">-0.05</td></tr>',
    );
    expect(html).toContain(
      '<td class="num">45.61%</td><td class="num">45.64%</td><td class="num delta-up">+0.03 pp</td>',
    );
  });

  it('keep one decimal for an ordinary row (risk 6.0 → 5.5)', async () => {
    const model = modelWith({
      overallAsr: both('overall_asr', 0.35, 0.42, 0.07),
      riskScore: both('risk_score', 6, 5.5, -0.5),
    });
    const { markdown } = await renderMarkdown(model);
    expect(markdown).toContain('| Overall ASR | 35.0% | 42.0% | +7.0 pp |');
    expect(markdown).toContain('| Risk score (0–10) | 6.0 | 5.5 | -0.5 |');
    const { html } = await renderHtml(model);
    expect(html).toContain(
      '<tr><td>Risk score (0–10)</td><td class="num">6.0</td><td class="num">5.5</td>' +
        '<td class="num delta-down">-0.5</td></tr>',
    );
  });

  it('show a change that is only floating-point noise as no change', async () => {
    // The same figure reached by different sums: 0.1 + 0.2 against 0.3, 8.1 + 0.2 against 8.3.
    const markdownOf = async (asr: number, risk: number) =>
      (
        await renderMarkdown(
          modelWith({
            overallAsr: both('overall_asr', 0.3, asr, asr - 0.3),
            riskScore: both('risk_score', 8.3, risk, risk - 8.3),
          }),
        )
      ).markdown;
    const noisy = await markdownOf(0.1 + 0.2, 8.1 + 0.2);
    expect(noisy).toContain('| Overall ASR | 30.0% | 30.0% | 0.0 pp |');
    expect(noisy).toContain('| Risk score (0–10) | 8.3 | 8.3 | 0.0 |');
    expect(noisy).toBe(await markdownOf(0.3, 8.3));
  });

  it('keep one decimal when a side is unknown or the figure is one-sided', async () => {
    const model = modelWith({
      riskScore: { key: 'risk_score', before: null, after: 8.06, delta: null, presence: 'both' },
      categoryAsr: [{ key: 'added_cat', before: null, after: 0.4561, delta: null, presence: 'added' }],
    });
    const { markdown } = await renderMarkdown(model);
    expect(markdown).toContain('| Risk score (0–10) | — | 8.1 | — |');
    expect(markdown).toContain('| added\\_cat | — | 45.6% | not in previous snapshot |');
  });
});
