/**
 * How a compliance category's state is decided from the matrix cells of the assessments that cover
 * it. Four states, so that an absence of evidence is never read as a pass:
 * - failing: some tested assessment had a successful attack (ASR > 0) in the category;
 * - passing: tested, no success, and at least `minTrials` trials in all;
 * - insufficient evidence: tested, no success, but fewer trials than that (or a count unknown);
 * - not tested: no assessment tested it.
 */
import { severityRank } from '../severity.js';
import { MIN_TRIALS_FOR_EVIDENCE } from '../warehouse/metric-views.js';
import { COMPLIANCE_STATES, type ComplianceState } from './model.js';

/** Trials a category needs, without any success, before it counts as passing (the metrics layer's). */
export const DEFAULT_MIN_TRIALS_FOR_EVIDENCE = MIN_TRIALS_FOR_EVIDENCE;

/** One assessment's compliance-matrix cell for one category. */
export interface ComplianceCell {
  assessmentId: string;
  tested: boolean;
  asr: number | null;
  maxSeverity: string | null;
  /** null in legacy entries that lack the field. */
  totalTrials: number | null;
  /** null in legacy entries that lack the field. */
  attacksUsed: readonly string[] | null;
}

export interface CategoryVerdict {
  state: ComplianceState;
  maxAsr: number | null;
  maxSeverity: string | null;
  totalTrials: number | null;
  attacksUsed: string[] | null;
  assessmentsTested: number;
}

/** Decides a category's state and its aggregates from its cells (see the module comment). */
export function classifyCategory(cells: readonly ComplianceCell[], minTrials: number): CategoryVerdict {
  const tested = cells.filter((cell) => cell.tested);
  if (tested.length === 0) {
    return {
      state: 'not_tested',
      maxAsr: null,
      maxSeverity: null,
      totalTrials: 0,
      attacksUsed: [],
      assessmentsTested: 0,
    };
  }
  const asrs = tested.map((cell) => cell.asr).filter((asr): asr is number => asr !== null);
  const maxAsr = asrs.length > 0 ? Math.max(...asrs) : null;
  const trials = tested.map((cell) => cell.totalTrials);
  const totalTrials = trials.every((count) => count !== null)
    ? trials.reduce<number>((sum, count) => sum + (count ?? 0), 0)
    : null;
  const severities = tested
    .map((cell) => cell.maxSeverity)
    .filter((value): value is string => value !== null);
  const maxSeverity =
    severities.sort((a, b) => severityRank(b) - severityRank(a) || (a < b ? -1 : 1))[0] ?? null;
  const known = tested
    .map((cell) => cell.attacksUsed)
    .filter((list): list is readonly string[] => list !== null);
  const attacksUsed = known.length === 0 ? null : [...new Set(known.flat())].sort();

  let state: ComplianceState;
  if (asrs.some((asr) => asr > 0)) state = 'failing';
  else if (totalTrials !== null && totalTrials >= minTrials && asrs.length === tested.length)
    state = 'passing';
  else state = 'insufficient_evidence';
  return { state, maxAsr, maxSeverity, totalTrials, attacksUsed, assessmentsTested: tested.length };
}

/** How many categories are in each state; every state is present (0 when no category is in it). */
export function countCategoriesByState(
  categories: readonly { state: ComplianceState }[],
): Record<ComplianceState, number> {
  const counts = Object.fromEntries(COMPLIANCE_STATES.map((state) => [state, 0])) as Record<
    ComplianceState,
    number
  >;
  for (const { state } of categories) counts[state] += 1;
  return counts;
}
