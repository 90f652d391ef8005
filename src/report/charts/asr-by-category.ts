/**
 * ASR per goal category, worst first (executive). Categories with unknown ASR are left out. Each row
 * label carries the attacks the rate counts ("n=26").
 */
import type { CategoryAsr } from '../model.js';
import { baseSpec, fractionAxis, rowAxis, withSample, type ChartDefinition, type Labeler } from './chart.js';

export function asrByCategoryChart(rows: readonly CategoryAsr[], label: Labeler): ChartDefinition {
  const values = rows
    .filter((row) => row.asr !== null)
    .map((row) => ({ category: withSample(label(row.category), row.totalAttacks), asr: row.asr }));
  return {
    name: 'asr-by-category',
    title: 'Attack success rate by goal category (n = attacks)',
    spec: {
      ...baseSpec(),
      height: { step: 20 },
      data: { values },
      mark: { type: 'bar', color: '#c92a2a' },
      encoding: {
        y: rowAxis('category'),
        x: fractionAxis('asr', 'ASR'),
      },
    },
  };
}
