/**
 * Critical/high/medium findings per risk domain, stacked (executive). A domain whose counts by level
 * are unknown (a finding's severity is: its attack run lacks its best score) is drawn as one grey
 * segment of its findings, "severity unknown", so it neither vanishes nor reads as zero.
 */
import type { RiskDomainRow } from '../model.js';
import {
  baseSpec,
  rowAxis,
  SEVERITY_COLORS,
  STACK_ORDER,
  stackedCountAxis,
  type ChartDefinition,
  type Labeler,
} from './chart.js';

const LEVELS = ['critical', 'high', 'medium'] as const;
/** The segment of a domain whose findings' levels are unknown, and its colour (no severity's). */
const UNKNOWN = 'severity unknown';
const UNKNOWN_COLOR = '#ced4da';

/** One stacked segment: a domain's findings of one level (or of unknown severity). */
interface Segment {
  domain: string;
  severity: string;
  count: number | null;
  order: number;
}

export function riskByDomainChart(rows: readonly RiskDomainRow[], label: Labeler): ChartDefinition {
  const values = rows.flatMap((row): Segment[] => {
    if (LEVELS.some((level) => row[level] === null)) {
      return row.total === null || row.total === 0
        ? []
        : [{ domain: label(row.domain), severity: UNKNOWN, count: row.total, order: LEVELS.length }];
    }
    return LEVELS.map((level, order) => ({
      domain: label(row.domain),
      severity: level,
      count: row[level],
      order,
    }));
  });
  const unknown = values.some((value) => value.severity === UNKNOWN);
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
        color: {
          field: 'severity',
          type: 'nominal',
          scale: {
            domain: [...LEVELS, ...(unknown ? [UNKNOWN] : [])],
            range: [...LEVELS.map((level) => SEVERITY_COLORS[level]), ...(unknown ? [UNKNOWN_COLOR] : [])],
          },
          legend: { title: null },
        },
        order: STACK_ORDER,
      },
    },
  };
}
