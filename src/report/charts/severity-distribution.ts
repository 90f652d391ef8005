/** Findings per severity (executive). Unknown counts are left out, never drawn as 0. */
import type { SeverityCount } from '../model.js';
import { baseSpec, severityScale, type ChartDefinition } from './chart.js';

export function severityDistributionChart(counts: readonly SeverityCount[]): ChartDefinition {
  const values = counts
    .filter((row) => row.count !== null)
    .map((row) => ({ severity: row.severity, count: row.count }));
  const scale = severityScale();
  return {
    name: 'severity-distribution',
    title: 'Findings by severity',
    spec: {
      ...baseSpec(),
      height: 180,
      data: { values },
      mark: { type: 'bar' },
      encoding: {
        x: { field: 'severity', type: 'nominal', sort: scale.domain, axis: { title: null, labelAngle: 0 } },
        y: { field: 'count', type: 'quantitative', axis: { title: 'Findings', tickMinStep: 1 } },
        color: { field: 'severity', type: 'nominal', scale, legend: null },
      },
    },
  };
}
