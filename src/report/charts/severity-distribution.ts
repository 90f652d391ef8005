/**
 * Findings per severity (executive), from the same counts as the KPI cards: the service's severity
 * breakdown. Unknown counts are left out, never drawn as 0.
 */
import { SEVERITY_LEVELS, type SeverityCounts } from '../model.js';
import { baseSpec, severityScale, type ChartDefinition } from './chart.js';

export function severityDistributionChart(counts: SeverityCounts): ChartDefinition {
  const values = SEVERITY_LEVELS.flatMap((severity) => {
    const count = counts[severity];
    return count === null ? [] : [{ severity, count }];
  });
  const scale = severityScale();
  return {
    name: 'severity-distribution',
    title: 'Findings by severity (current severity, false positives left out)',
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
