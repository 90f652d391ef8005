/** Critical/high/medium findings per risk domain, stacked (executive). */
import type { RiskDomainRow } from '../model.js';
import {
  baseSpec,
  rowAxis,
  severityScale,
  STACK_ORDER,
  stackedCountAxis,
  type ChartDefinition,
  type Labeler,
} from './chart.js';

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
        y: rowAxis('domain'),
        x: stackedCountAxis('count', 'Findings'),
        color: { field: 'severity', type: 'nominal', scale: severityScale(LEVELS), legend: { title: null } },
        order: STACK_ORDER,
      },
    },
  };
}
