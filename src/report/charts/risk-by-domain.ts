/** Critical/high/medium findings per risk domain, stacked (executive). */
import type { RiskDomainRow } from '../model.js';
import { baseSpec, SEVERITY_COLORS, type ChartDefinition, type Labeler } from './chart.js';

const LEVELS = ['critical', 'high', 'medium'] as const;

export function riskByDomainChart(rows: readonly RiskDomainRow[], label: Labeler): ChartDefinition {
  const values = rows.flatMap((row) =>
    LEVELS.filter((level) => row[level] !== null).map((level, order) => ({
      domain: label(row.domain),
      severity: level,
      count: row[level],
      order,
    })),
  );
  return {
    name: 'risk-by-domain',
    title: 'Findings by risk domain',
    spec: {
      ...baseSpec(),
      height: { step: 24 },
      data: { values },
      mark: { type: 'bar' },
      encoding: {
        y: { field: 'domain', type: 'nominal', sort: null, axis: { title: null } },
        x: {
          field: 'count',
          type: 'quantitative',
          stack: 'zero',
          axis: { title: 'Findings', tickMinStep: 1 },
        },
        color: {
          field: 'severity',
          type: 'nominal',
          scale: { domain: [...LEVELS], range: LEVELS.map((level) => SEVERITY_COLORS[level]) },
          legend: { title: null },
        },
        order: { field: 'order', type: 'quantitative' },
      },
    },
  };
}
