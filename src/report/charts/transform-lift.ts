/** ASR lift of each transform over the baseline, in percentage points (executive); rows name their uses. */
import type { TransformLiftRow } from '../model.js';
import { baseSpec, rowAxis, withSample, type ChartDefinition, type Labeler } from './chart.js';

export function transformLiftChart(rows: readonly TransformLiftRow[], label: Labeler): ChartDefinition {
  const values = rows
    .filter((row) => row.lift !== null)
    .map((row) => ({
      transform: withSample(label(row.transform), row.timesUsed),
      lift: row.lift,
      direction: (row.lift ?? 0) >= 0 ? 'raises ASR' : 'lowers ASR',
    }))
    .sort(
      (a, b) =>
        (b.lift ?? 0) - (a.lift ?? 0) || (a.transform < b.transform ? -1 : a.transform > b.transform ? 1 : 0),
    );
  return {
    name: 'transform-lift',
    title: 'Transform lift over baseline ASR (n = times used)',
    spec: {
      ...baseSpec(),
      height: { step: 20 },
      data: { values },
      mark: { type: 'bar' },
      encoding: {
        y: rowAxis('transform'),
        x: { field: 'lift', type: 'quantitative', axis: { title: 'Lift over baseline ASR', format: '+.0%' } },
        color: {
          field: 'direction',
          type: 'nominal',
          scale: { domain: ['raises ASR', 'lowers ASR'], range: ['#c92a2a', '#2b8a3e'] },
          legend: { title: null },
        },
      },
    },
  };
}
