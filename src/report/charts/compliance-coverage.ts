/** Share of each framework's categories that were tested (executive, compliance). */
import type { FrameworkCoverage } from '../model.js';
import { baseSpec, type ChartDefinition, type Labeler } from './chart.js';

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
        y: { field: 'framework', type: 'nominal', sort: null, axis: { title: null } },
        x: {
          field: 'coverage',
          type: 'quantitative',
          scale: { domain: [0, 1] },
          axis: { title: 'Categories tested', format: '.0%' },
        },
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
