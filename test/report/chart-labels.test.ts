/**
 * Chart labels that cannot make two items read alike: the heatmap's assessment labels and legend are
 * never cut, an all-grey column says it tested nothing, and a date axis never repeats a date. Every
 * chart of an ASR draws the sample size it stands on ("n=…") on the chart itself, never cut.
 */
import { describe, expect, it } from 'vitest';
import { chartsForModel } from '../../src/report/charts/catalog.js';
import { dayTicks, type ChartDefinition } from '../../src/report/charts/chart.js';
import { complianceHeatmapChart } from '../../src/report/charts/compliance-heatmap.js';
import { renderChartSvg } from '../../src/report/charts/render-svg.js';
import type { ReportModel } from '../../src/report/model.js';
import { complianceFixture, executiveFixture, portfolioFixture } from './fixture-model.js';

const identity = (text: string): string => text;

describe('compliance heatmap labels', () => {
  it('shows whole assessment names and legend entries, and marks a column that tested nothing', () => {
    const [section] = complianceFixture().frameworks;
    if (section === undefined) throw new Error('fixture has no framework');
    const pending = {
      id: 'pending-1',
      name: 'Weekly jailbreak sweep 2026-01-12',
      date: '2026-01-12T00:00:00Z',
    };
    const grid = {
      ...section,
      heatmap: { ...section.heatmap, assessments: [...section.heatmap.assessments, pending] },
    };
    const chart = complianceHeatmapChart(grid, 'heatmap', identity);
    const json = JSON.stringify(chart.spec);
    expect(json).not.toMatch(/"labelLimit":(?!0\b)\d+/);
    expect(json).toContain('Weekly jailbreak sweep 2026-01-12 (nothing tested)');
  });
});

describe('date axis ticks', () => {
  it('gives one tick per day, at that day inside the data, never the same date twice', () => {
    const ticks = dayTicks(['2026-11-24T17:45:04Z', '2026-11-24T17:45:23Z', '2026-11-24T09:00:00Z', null]);
    expect(ticks).toEqual([Date.parse('2026-11-24T09:00:00Z')]);
    const many = dayTicks(
      Array.from({ length: 40 }, (_, day) => new Date(Date.UTC(2026, 0, 1 + day, 12)).toISOString()),
    );
    expect(many.length).toBeLessThanOrEqual(6);
    const dates = many.map((ms) => new Date(ms).toISOString().slice(0, 10));
    expect(new Set(dates).size).toBe(dates.length);
    expect(dayTicks([])).toEqual([]);
  });
});

/** The charts of a model whose marks are ASRs (or an ASR difference), by name. */
const ASR_CHARTS =
  /^(asr-by-category|attack-effectiveness|transform-lift|compliance-heatmap-.*|portfolio-asr-trend)$/u;

function asrCharts(model: ReportModel): ChartDefinition[] {
  return chartsForModel(model, identity).filter((chart) => ASR_CHARTS.test(chart.name));
}

/** Text of the SVG's text elements, entities decoded enough for our labels. */
function svgTexts(svg: string): string[] {
  return [...svg.matchAll(/<text\b[^>]*>([^<]*)<\/text>/gu)].map((match) =>
    (match[1] ?? '').replace(/&amp;/gu, '&').replace(/&lt;/gu, '<').replace(/&gt;/gu, '>'),
  );
}

describe('sample sizes on ASR charts', () => {
  it('every ASR chart of every report kind draws n=… for each of its rates, whole', async () => {
    const charts = [executiveFixture(), complianceFixture(), portfolioFixture()].flatMap(asrCharts);
    expect(charts.map((chart) => chart.name.replace(/-\d+-.*$/u, ''))).toEqual(
      expect.arrayContaining([
        'asr-by-category',
        'attack-effectiveness',
        'transform-lift',
        'compliance-heatmap',
        'portfolio-asr-trend',
      ]),
    );
    for (const chart of charts) {
      const values = (chart.spec as { data: { values: Record<string, unknown>[] } }).data.values;
      const rates = values.filter((row) =>
        ['asr', 'rate', 'lift'].some((field) => typeof row[field] === 'number'),
      );
      expect(rates.length, chart.name).toBeGreaterThan(0);
      // Nothing in the spec may cut a label or a text mark (labelLimit/limit 0 or absent).
      expect(JSON.stringify(chart.spec), chart.name).not.toMatch(/"(label)?[lL]imit":(?!0\b)\d+/u);
      const texts = svgTexts((await renderChartSvg(chart.spec, chart.name)).svg);
      const samples = texts.filter((text) => /\bn=\d|n unknown/u.test(text));
      expect(samples.length, chart.name).toBeGreaterThanOrEqual(rates.length);
      // Row labels keep the whole name before the sample ("credential_leak · n=12").
      for (const text of samples) expect(text, chart.name).not.toContain('…');
    }
  });
});
