import { describe, expect, it } from 'vitest';
import { portfolioCoverageChart } from '../../src/report/charts/portfolio.js';
import { coverageCellState, coverageCellText } from '../../src/report/coverage-cell-state.js';
import type { PortfolioCoverageCell, PortfolioModel } from '../../src/report/model.js';
import { portfolioFixture } from './fixture-model.js';

const cell = (fields: Partial<PortfolioCoverageCell>): PortfolioCoverageCell => ({
  framework: 'owasp_llm',
  title: 'OWASP LLM Top 10',
  coveragePct: null,
  ...fields,
});

interface GridDatum {
  project: string;
  framework: string;
  state: string;
  text: string;
}

function gridOf(model: Pick<PortfolioModel, 'projects'>): { data: GridDatum[]; colorField: unknown } {
  const spec = portfolioCoverageChart(model, (raw) => raw).spec as {
    data: { values: GridDatum[] };
    layer: { encoding: { color?: { field?: unknown } } }[];
  };
  return { data: spec.data.values, colorField: spec.layer[0]?.encoding.color?.field };
}

describe('portfolio coverage cells carry the worst state of their tested categories', () => {
  it('a 70% framework whose tested categories all fail is failing, not the darkest (best-looking) cell', () => {
    const failing = cell({
      coveragePct: 0.7,
      testedCategories: 7,
      failing: 7,
      insufficientEvidence: 0,
      passing: 0,
    });
    expect(coverageCellState(failing)).toBe('failing');
    expect(coverageCellText(failing)).toBe('70.0% · 7 failing');
  });

  it('nothing tested is its own state and never reads as passing, even with a coverage figure of 0', () => {
    expect(coverageCellState(cell({ coveragePct: 0, testedCategories: 0, failing: 0, passing: 0 }))).toBe(
      'not_tested',
    );
    expect(coverageCellText(cell({ coveragePct: 0, testedCategories: 0 }))).toBe('not tested');
  });

  it('passes only when every tested category is known to pass; missing counts are unknown, not passing', () => {
    const allPass = cell({
      coveragePct: 0.4,
      testedCategories: 4,
      failing: 0,
      insufficientEvidence: 0,
      passing: 4,
    });
    expect(coverageCellState(allPass)).toBe('passing');
    const countsMissing = cell({ coveragePct: 0.4 });
    expect(coverageCellState(countsMissing)).toBe('unknown');
    const doNotAddUp = cell({
      coveragePct: 0.4,
      testedCategories: 4,
      failing: 0,
      insufficientEvidence: 0,
      passing: 3,
    });
    expect(coverageCellState(doNotAddUp)).toBe('unknown');
    const insufficient = cell({
      coveragePct: 0.4,
      testedCategories: 4,
      failing: 0,
      insufficientEvidence: 1,
      passing: 3,
    });
    expect(coverageCellState(insufficient)).toBe('insufficient_evidence');
  });

  it('the grid colours by state (not coverage) and draws not-tested cells instead of dropping them', () => {
    const { data, colorField } = gridOf(portfolioFixture());
    expect(colorField).toBe('state');
    const states = Object.fromEntries(
      data.map((datum) => [`${datum.project.slice(0, 10)}|${datum.framework}`, datum.state]),
    );
    expect(Object.values(states)).toEqual([
      'some tested category failing',
      'insufficient evidence (none failing)',
      'every tested category passing',
      'nothing tested',
    ]);
    expect(data.map((datum) => datum.text)).toEqual([
      '70% · 3 failing',
      '26% · 2 insufficient',
      '90% · 9 passing',
      'not tested',
    ]);
  });
});
