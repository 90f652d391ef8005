/** Portfolio charts: risk, findings and coverage per project, and overall ASR across snapshots. */
import { riskBand } from '../format.js';
import {
  projectLabel,
  SEVERITY_LEVELS,
  trendPointProject,
  workspaceLabel,
  type PortfolioModel,
} from '../model.js';
import {
  baseSpec,
  dateAxis,
  distinctLabels,
  fractionAxis,
  GRID_CONFIG,
  riskScoreAxis,
  rowAxis,
  severityScale,
  STACK_ORDER,
  stackedCountAxis,
  type ChartDefinition,
  type Labeler,
} from './chart.js';

const BANDS = ['critical', 'high', 'medium', 'low'] as const;

function projectLabels(model: Pick<PortfolioModel, 'projects'>, label: Labeler): string[] {
  return distinctLabels(model.projects.map((row) => label(projectLabel(row.project))));
}

export function portfolioRiskChart(model: Pick<PortfolioModel, 'projects'>, label: Labeler): ChartDefinition {
  const labels = projectLabels(model, label);
  const values = model.projects.flatMap((row, index) =>
    row.riskScore === null
      ? []
      : [{ project: labels[index], risk: row.riskScore, band: riskBand(row.riskScore) }],
  );
  return {
    name: 'portfolio-risk',
    title: 'Risk score by project',
    spec: {
      ...baseSpec(),
      height: { step: 22 },
      data: { values },
      mark: { type: 'bar' },
      encoding: {
        y: rowAxis('project', labels),
        x: riskScoreAxis('risk'),
        color: {
          field: 'band',
          type: 'nominal',
          scale: severityScale(BANDS),
          legend: { title: 'Risk band' },
        },
      },
    },
  };
}

export function portfolioFindingsChart(
  model: Pick<PortfolioModel, 'projects'>,
  label: Labeler,
): ChartDefinition {
  const labels = projectLabels(model, label);
  const values = model.projects.flatMap((row, index) =>
    SEVERITY_LEVELS.flatMap((severity, order) => {
      const count = row.findingsBySeverity[severity];
      return count === null ? [] : [{ project: labels[index], severity, count, order }];
    }),
  );
  return {
    name: 'portfolio-findings',
    title: 'Findings by severity and project',
    spec: {
      ...baseSpec(),
      height: { step: 22 },
      data: { values },
      mark: { type: 'bar' },
      encoding: {
        y: rowAxis('project', labels),
        x: stackedCountAxis('count', 'Findings'),
        color: { field: 'severity', type: 'nominal', scale: severityScale(), legend: { title: null } },
        order: STACK_ORDER,
      },
    },
  };
}

export function portfolioCoverageChart(
  model: Pick<PortfolioModel, 'projects'>,
  label: Labeler,
): ChartDefinition {
  const labels = projectLabels(model, label);
  const frameworks = [
    ...new Set(model.projects.flatMap((row) => row.coverage.map((cell) => label(cell.title)))),
  ];
  const values = model.projects.flatMap((row, index) =>
    row.coverage
      .filter((cell) => cell.coveragePct !== null)
      .map((cell) => ({ project: labels[index], framework: label(cell.title), coverage: cell.coveragePct })),
  );
  return {
    name: 'portfolio-coverage',
    title: 'Compliance coverage by project and framework',
    spec: {
      ...baseSpec(GRID_CONFIG),
      height: { step: 24 },
      data: { values },
      encoding: {
        y: {
          field: 'project',
          type: 'nominal',
          sort: labels,
          scale: { domain: labels },
          axis: { title: null },
        },
        x: {
          field: 'framework',
          type: 'nominal',
          sort: frameworks,
          scale: { domain: frameworks },
          axis: { title: null, labelAngle: 0, orient: 'top' },
        },
      },
      layer: [
        {
          mark: { type: 'rect', stroke: '#ffffff', strokeWidth: 1 },
          encoding: {
            color: {
              field: 'coverage',
              type: 'quantitative',
              scale: { domain: [0, 1], range: ['#e7f0f7', '#1f5f8b'] },
              legend: { title: 'Coverage', format: '.0%' },
            },
          },
        },
        {
          mark: { type: 'text', fontSize: 11 },
          encoding: {
            text: { field: 'coverage', type: 'quantitative', format: '.0%' },
            color: { condition: { test: 'datum.coverage > 0.55', value: '#ffffff' }, value: '#1d2733' },
          },
        },
      ],
    },
  };
}

export function portfolioAsrTrendChart(
  model: Pick<PortfolioModel, 'asrTrend'>,
  label: Labeler,
): ChartDefinition {
  // A project key is unique only inside a workspace: a trend line is one key in one workspace.
  const keyOf = (point: (typeof model.asrTrend)[number]): string =>
    point.workspace === undefined
      ? point.projectKey
      : `${workspaceLabel(point.workspace)}/${point.projectKey}`;
  const keys = [...new Set(model.asrTrend.map(keyOf))];
  const names = distinctLabels(
    keys.map((key) => {
      const point = model.asrTrend.find((candidate) => keyOf(candidate) === key);
      return label(point === undefined ? key : projectLabel(trendPointProject(point)));
    }),
  );
  const nameOf = new Map(keys.map((key, index) => [key, names[index]]));
  const values = model.asrTrend
    .filter((point) => point.fetchedAt !== null && point.overallAsr !== null)
    .map((point) => ({
      project: nameOf.get(keyOf(point)),
      fetched: point.fetchedAt,
      asr: point.overallAsr,
    }));
  return {
    name: 'portfolio-asr-trend',
    title: 'Overall ASR across snapshots',
    spec: {
      ...baseSpec(),
      height: 200,
      data: { values },
      mark: { type: 'line', point: { filled: true, size: 30 }, strokeWidth: 2 },
      encoding: {
        x: dateAxis('fetched'),
        y: fractionAxis('asr', 'Overall ASR'),
        color: {
          field: 'project',
          type: 'nominal',
          sort: names,
          scale: { scheme: 'tableau10' },
          legend: { title: null },
        },
      },
    },
  };
}
