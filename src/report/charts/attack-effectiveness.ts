/** Success rate per attack, most effective first (executive); each row names its runs ("n=12"). */
import type { AttackEffectivenessRow } from '../model.js';
import { baseSpec, fractionAxis, rowAxis, withSample, type ChartDefinition, type Labeler } from './chart.js';

export function attackEffectivenessChart(
  rows: readonly AttackEffectivenessRow[],
  label: Labeler,
): ChartDefinition {
  const values = rows
    .filter((row) => row.successRate !== null)
    .map((row) => ({ attack: withSample(label(row.attack), row.timesUsed), rate: row.successRate }))
    .sort(
      (a, b) => (b.rate ?? 0) - (a.rate ?? 0) || (a.attack < b.attack ? -1 : a.attack > b.attack ? 1 : 0),
    );
  return {
    name: 'attack-effectiveness',
    title: 'Attack effectiveness (success rate; n = times used)',
    spec: {
      ...baseSpec(),
      height: { step: 20 },
      data: { values },
      mark: { type: 'bar' },
      encoding: {
        y: rowAxis('attack'),
        x: fractionAxis('rate', 'Success rate'),
      },
    },
  };
}
