/** Portfolio charts: risk, findings and coverage per project, and overall ASR across snapshots. */
import {
  CELL_STATE_LABELS,
  CELL_STATES,
  coverageCellState,
  coverageCellText,
  type CellState,
} from '../coverage-cell-state.js';
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
  sampleText,
  severityScale,
  STACK_ORDER,
  STATE_COLORS,
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

/** Fill per cell state: the compliance state colours; unknown is a darker grey than not tested. */
const CELL_COLORS: Record<CellState, string> = {
  failing: STATE_COLORS.failing,
  insufficient_evidence: STATE_COLORS.insufficient_evidence,
  passing: STATE_COLORS.passing,
  not_tested: STATE_COLORS.not_tested,
  unknown: '#7b8794',
};

/** Whole percent for the grid's narrow cells (the table beside it gives one decimal). */
const wholePercent = (value: number | null): string =>
  value === null ? 'unknown' : `${Math.round(value * 100)}%`;

/**
 * Project × framework grid coloured by the worst state of the tested categories (coverageCellState),
 * never by coverage alone, with the state written in each cell (not colour alone): "70% · 2 failing",
 * "not tested". The legend names every state, "nothing tested" always among them.
 */
export function portfolioCoverageChart(
  model: Pick<PortfolioModel, 'projects'>,
  label: Labeler,
): ChartDefinition {
  const labels = projectLabels(model, label);
  const frameworks = [
    ...new Set(model.projects.flatMap((row) => row.coverage.map((cell) => label(cell.title)))),
  ];
  const values = model.projects.flatMap((row, index) =>
    row.coverage.map((cell) => {
      const state = coverageCellState(cell);
      return {
        project: labels[index],
        framework: label(cell.title),
        state: CELL_STATE_LABELS[state],
        text: coverageCellText(cell, wholePercent),
        dark: state !== 'not_tested',
      };
    }),
  );
  const used = new Set(values.map((value) => value.state));
  const domain = CELL_STATES.map((state) => CELL_STATE_LABELS[state]);
  const legendValues = domain.filter((state) => used.has(state) || state === CELL_STATE_LABELS.not_tested);
  return {
    name: 'portfolio-coverage',
    title: 'Compliance coverage by project and framework (worst state of the tested categories)',
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
              field: 'state',
              type: 'nominal',
              scale: { domain, range: CELL_STATES.map((state) => CELL_COLORS[state]) },
              legend: {
                title: 'Worst state of the tested categories',
                values: legendValues,
                orient: 'bottom',
                direction: 'vertical',
                labelLimit: 0,
              },
            },
          },
        },
        {
          mark: { type: 'text', fontSize: 10 },
          encoding: {
            text: { field: 'text', type: 'nominal' },
            color: { condition: { test: 'datum.dark', value: '#ffffff' }, value: '#1d2733' },
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
      n: sampleText(point.overallAsrAttacks),
    }));
  return {
    name: 'portfolio-asr-trend',
    title: 'Overall ASR across snapshots',
    spec: {
      ...baseSpec(),
      height: 200,
      data: { values },
      encoding: {
        x: dateAxis(
          'fetched',
          values.map((point) => point.fetched),
        ),
        y: fractionAxis('asr', 'Overall ASR'),
        color: {
          field: 'project',
          type: 'nominal',
          sort: names,
          scale: { scheme: 'tableau10' },
          legend: { title: null },
        },
      },
      layer: [
        { mark: { type: 'line', point: { filled: true, size: 30 }, strokeWidth: 2 } },
        // Each point's sample (the attacks its ASR counts), above it in the line's colour.
        { mark: { type: 'text', dy: -9, fontSize: 9, aria: false }, encoding: { text: { field: 'n' } } },
      ],
    },
  };
}
