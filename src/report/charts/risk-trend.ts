/** Risk score per assessment over time (executive). */
import type { RiskTrendPoint } from '../model.js';
import { baseSpec, dateAxis, riskScoreAxis, type ChartDefinition, type Labeler } from './chart.js';

export function riskTrendChart(points: readonly RiskTrendPoint[], label: Labeler): ChartDefinition {
  const values = points
    .filter((point) => point.date !== null && point.riskScore !== null)
    .map((point) => ({
      date: point.date,
      risk: point.riskScore,
      assessment: label(point.assessmentName ?? point.assessmentId),
    }));
  return {
    name: 'risk-trend',
    title: 'Risk score by assessment',
    spec: {
      ...baseSpec(),
      height: 200,
      data: { values },
      layer: [
        { mark: { type: 'line', strokeWidth: 2 } },
        { mark: { type: 'point', filled: true, size: 36 } },
      ],
      encoding: {
        x: dateAxis(
          'date',
          values.map((point) => point.date),
        ),
        y: riskScoreAxis('risk'),
      },
    },
  };
}
