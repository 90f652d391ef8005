/**
 * Chart labels that cannot make two items read alike: the heatmap's assessment labels and legend are
 * never cut, an all-grey column says it tested nothing, and a date axis never repeats a date.
 */
import { describe, expect, it } from 'vitest';
import { dayTicks } from '../../src/report/charts/chart.js';
import { complianceHeatmapChart } from '../../src/report/charts/compliance-heatmap.js';
import { complianceFixture } from './fixture-model.js';

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
