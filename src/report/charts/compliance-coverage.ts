/**
 * Each framework's categories by state (executive, compliance), as shares of all its categories:
 * failing red, insufficient evidence amber, passing green, not tested grey. The tested share (the
 * coverage, labelled at the end of the tested segments) is coloured by what testing found, so a
 * framework whose tested categories all fail is a long red bar, never a long "good" one, and the
 * untested rest is drawn and named, never blank. A framework whose state counts are unknown shows
 * its coverage as "tested, state unknown".
 */
import type { ComplianceState, FrameworkCoverage } from '../model.js';
import { baseSpec, rowAxis, STACK_ORDER, STATE_COLORS, type ChartDefinition, type Labeler } from './chart.js';
import { STATE_LABELS } from './compliance-states.js';

const UNKNOWN_STATE = 'tested, state unknown';
const UNKNOWN_COLOR = '#7b8794';

type Segment = { state: string; order: number; share: number };

/** Stack order: the tested states first (their end is the coverage), not tested last. */
const STACKED: readonly ComplianceState[] = ['failing', 'insufficient_evidence', 'passing', 'not_tested'];

/**
 * The state shares of one framework. The tested share is the coverage; the part of it no state count
 * accounts for (counts unknown, e.g. from an older model) is "tested, state unknown", never passing.
 */
function segments(row: FrameworkCoverage): Segment[] {
  const total = row.totalCategories;
  const coverage = row.coveragePct ?? 0;
  const shareOf = (count: number | null | undefined): number =>
    total !== null && total > 0 && typeof count === 'number' ? count / total : 0;
  const tested =
    total !== null && total > 0 && row.testedCategories !== null ? row.testedCategories / total : coverage;
  const stated: Record<ComplianceState, number> = {
    failing: shareOf(row.failing),
    insufficient_evidence: shareOf(row.insufficientEvidence),
    passing: shareOf(row.passing),
    not_tested: Math.max(0, 1 - tested),
  };
  const accounted = stated.failing + stated.insufficient_evidence + stated.passing;
  return [
    ...STACKED.filter((state) => state !== 'not_tested').map((state, order) => ({
      state: STATE_LABELS[state],
      order,
      share: stated[state],
    })),
    { state: UNKNOWN_STATE, order: STACKED.length - 1, share: Math.max(0, tested - accounted) },
    { state: STATE_LABELS.not_tested, order: STACKED.length, share: stated.not_tested },
  ].filter((segment) => segment.share > 1e-9);
}

export function complianceCoverageChart(rows: readonly FrameworkCoverage[], label: Labeler): ChartDefinition {
  const shown = rows.filter((row) => row.coveragePct !== null);
  const values = shown.flatMap((row) =>
    segments(row).map((segment) => ({ framework: label(row.title), ...segment })),
  );
  // Coverage labels sit at the end of the tested segments (not tested is stacked last).
  const labels = shown.map((row) => ({ framework: label(row.title), coverage: row.coveragePct }));
  const stateDomain = [...STACKED.map((state) => STATE_LABELS[state]), UNKNOWN_STATE];
  const stateRange = [...STACKED.map((state) => STATE_COLORS[state]), UNKNOWN_COLOR];
  const used = new Set(values.map((value) => value.state));
  const legendValues = stateDomain.filter((state) => used.has(state) || state === STATE_LABELS.not_tested);
  return {
    name: 'compliance-coverage',
    title: 'Compliance coverage by framework (categories by state)',
    spec: {
      ...baseSpec(),
      height: { step: 24 },
      data: { values },
      encoding: { y: rowAxis('framework') },
      layer: [
        {
          mark: { type: 'bar' },
          encoding: {
            x: {
              field: 'share',
              type: 'quantitative',
              stack: 'zero',
              scale: { domain: [0, 1] },
              axis: { title: 'Share of categories (tested share = coverage)', format: '.0%' },
            },
            color: {
              field: 'state',
              type: 'nominal',
              scale: { domain: stateDomain, range: stateRange },
              legend: { title: null, values: legendValues, labelLimit: 0 },
            },
            order: STACK_ORDER,
          },
        },
        {
          data: { values: labels },
          mark: { type: 'text', align: 'left', dx: 4, color: '#1f2933', fontSize: 11 },
          encoding: {
            x: { field: 'coverage', type: 'quantitative' },
            text: { field: 'coverage', type: 'quantitative', format: '.0%' },
          },
        },
      ],
    },
  };
}
