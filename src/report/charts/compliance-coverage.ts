/** Share of each framework's categories that were tested (executive, compliance). */
import type { FrameworkCoverage } from '../model.js';
import { baseSpec, fractionAxis, rowAxis, type ChartDefinition, type Labeler } from './chart.js';

export function complianceCoverageChart(rows: readonly FrameworkCoverage[], label: Labeler): ChartDefinition {
  const values = rows
    .filter((row) => row.coveragePct !== null)
    .map((row) => ({ framework: label(row.title), coverage: row.coveragePct }));
  return {
    name: 'compliance-coverage',
    title: 'Compliance coverage by framework',
    spec: {
      ...baseSpec(),
      height: { step: 24 },
      data: { values },
      encoding: {
        y: rowAxis('framework'),
        x: fractionAxis('coverage', 'Categories tested'),
      },
      layer: [
        { mark: { type: 'bar', color: '#2f6f8f' } },
        {
          mark: { type: 'text', align: 'left', dx: 4, color: '#3d4852', fontSize: 11 },
          encoding: { text: { field: 'coverage', type: 'quantitative', format: '.0%' } },
        },
      ],
    },
  };
}
