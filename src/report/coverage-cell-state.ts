/**
 * The state of a portfolio coverage cell (one project × framework), shared by the grid chart and the
 * table so both say the same thing. A cell is coloured and labelled by the worst state among its tested
 * categories, never by coverage alone: a framework tested at 70% whose tested categories all fail must
 * not look better than one tested at 10%, and a framework with nothing tested must never look passing.
 */
import { formatPercent } from './format.js';
import type { PortfolioCoverageCell } from './model.js';

export const CELL_STATES = ['failing', 'insufficient_evidence', 'passing', 'not_tested', 'unknown'] as const;
export type CellState = (typeof CELL_STATES)[number];

/** Legend wording: explicit about what each colour claims. */
export const CELL_STATE_LABELS: Record<CellState, string> = {
  failing: 'some tested category failing',
  insufficient_evidence: 'insufficient evidence (none failing)',
  passing: 'every tested category passing',
  not_tested: 'nothing tested',
  unknown: 'state unknown',
};

const count = (value: number | null | undefined): number | null => (typeof value === 'number' ? value : null);

/** Worst state first: failing, then insufficient evidence, then passing; nothing tested is its own state. */
export function coverageCellState(cell: PortfolioCoverageCell): CellState {
  const failing = count(cell.failing);
  const insufficient = count(cell.insufficientEvidence);
  const passing = count(cell.passing);
  const tested = count(cell.testedCategories);
  if (failing !== null && failing > 0) return 'failing';
  if (insufficient !== null && insufficient > 0) return 'insufficient_evidence';
  if (tested === 0 || (tested === null && cell.coveragePct === 0)) return 'not_tested';
  // Passing only when every tested category is known to pass (counts known and adding up).
  if (
    passing !== null &&
    passing > 0 &&
    failing === 0 &&
    insufficient === 0 &&
    (tested === null || passing === tested)
  )
    return 'passing';
  return 'unknown';
}

/** The cell's words, e.g. "70% · 2 failing", "40% · 4 passing", "not tested", "26% · state unknown". */
export function coverageCellText(
  cell: PortfolioCoverageCell,
  percent: (value: number | null) => string = formatPercent,
): string {
  const state = coverageCellState(cell);
  if (state === 'not_tested') return 'not tested';
  const pct = percent(cell.coveragePct);
  switch (state) {
    case 'failing':
      return `${pct} · ${count(cell.failing)} failing`;
    case 'insufficient_evidence':
      return `${pct} · ${count(cell.insufficientEvidence)} insufficient`;
    case 'passing':
      return `${pct} · ${count(cell.passing)} passing`;
    default:
      return cell.coveragePct === null ? 'unknown' : `${pct} · state unknown`;
  }
}
