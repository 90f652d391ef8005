/**
 * The finding-count gates over the diff (`new_critical_findings`, `new_findings`,
 * `regressed_findings`): which findings of the lifecycle each one counts, and which findings of
 * unknown severity it could count.
 *
 * A finding whose attack run lacks its required best_score (and that no triage gave a severity) is
 * "not comparable" in the lifecycle: in no list, so in no count. Such a finding could still belong to
 * a count once its severity is known. Whether it could is decided by the lifecycle itself: the unknown
 * side is given each severity it could have, at either end of that severity's score band, and the pair
 * is compared again (diffFindings); it could count when one of these outcomes counts it. The ends of
 * the bands are enough: every count only grows as the later score rises or the earlier one falls. None
 * counts for sure: a later side could be info (not tracked), an earlier side as bad as the later one.
 */
import {
  diffFindings,
  isOpen,
  type FindingLifecycle,
  type FindingRecord,
  type NotComparableFinding,
} from '../diff/finding-lifecycle.js';
import { countOf } from '../number-format.js';
import { severityFromScore } from '../severity.js';

/** The gate metrics that count findings of the diff. */
export type DiffCountMetric = 'new_critical_findings' | 'new_findings' | 'regressed_findings';

/** A finding a count gate counts, and how it changed since the previous snapshot. */
export interface CountedFinding {
  finding: FindingRecord;
  change: string;
}

/** The findings of a lifecycle that a diff count gate counts. */
export function pickFindings(kind: DiffCountMetric, lifecycle: FindingLifecycle): CountedFinding[] {
  if (kind === 'new_findings') return lifecycle.new.map((finding) => ({ finding, change: 'new' }));
  const regressed = lifecycle.regressed.map((r) => ({
    finding: r.to,
    change: r.reasons.join('; '),
    was: r.from,
  }));
  if (kind === 'regressed_findings') return regressed.map(({ finding, change }) => ({ finding, change }));
  // New critical: new findings at critical, and findings that became critical (or reopened at critical).
  return [
    ...lifecycle.new.filter((f) => f.severity === 'critical').map((finding) => ({ finding, change: 'new' })),
    ...regressed
      .filter((r) => r.finding.severity === 'critical' && (r.was.severity !== 'critical' || !isOpen(r.was)))
      .map(({ finding, change }) => ({ finding, change })),
  ];
}

/** The largest double below a positive number: the top of the score band under a threshold. */
function justBelow(threshold: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, threshold);
  view.setBigUint64(0, view.getBigUint64(0) - 1n);
  return view.getFloat64(0);
}

/**
 * Scores at both ends of every severity band (TAXONOMY: critical ≥ 0.9, high ≥ 0.7, medium ≥ 0.5,
 * low ≥ 0.3, else info), highest first, each with the one severity rule's band. A run without a
 * finished trial (score null, info) counts nowhere a score of 0 would not.
 */
const BAND_ENDS: readonly { severity: string; score: number }[] = [
  1,
  0.9,
  justBelow(0.9),
  0.7,
  justBelow(0.7),
  0.5,
  justBelow(0.5),
  0.3,
  justBelow(0.3),
  0,
].map((score) => ({ severity: severityFromScore(score), score }));

/** What an open finding of unknown severity could turn out to be (the diff's record). */
function possibilities(
  finding: FindingRecord | null,
  unknown: boolean,
  order: 'worst' | 'best',
): (FindingRecord | null)[] {
  if (finding === null || !unknown) return [finding];
  const ends = order === 'worst' ? BAND_ENDS : [...BAND_ENDS].reverse();
  return ends.map(({ severity, score }) => ({ ...finding, severity, score }));
}

/** Whether a not-comparable finding could be counted by the gate once its severity is known. */
function couldCount(kind: DiffCountMetric, pair: NotComparableFinding): boolean {
  const unknownFrom = pair.unknown_in !== 'to';
  const unknownTo = pair.unknown_in !== 'from';
  // The likeliest to count first (a later side at its worst, an earlier one at its best), so the
  // search usually stops at once.
  for (const to of possibilities(pair.to, unknownTo, 'worst')) {
    for (const from of possibilities(pair.from, unknownFrom, 'best')) {
      const lifecycle = diffFindings(from === null ? [] : [from], to === null ? [] : [to]);
      if (pickFindings(kind, lifecycle).length > 0) return true;
    }
  }
  return false;
}

/** How a finding of unknown severity shows as a row: its later side, and where its severity is unknown. */
export function notComparableChange(pair: NotComparableFinding): CountedFinding {
  const finding = pair.to ?? pair.from;
  if (finding === null) throw new Error('a finding pair holds a finding on one side at least');
  const change =
    pair.unknown_in === 'both'
      ? 'severity unknown in both snapshots'
      : pair.unknown_in === 'from'
        ? `severity unknown in the previous snapshot, ${pair.to?.severity ?? 'gone'} now`
        : pair.from === null
          ? 'severity unknown, not in the previous snapshot'
          : `severity unknown, ${pair.from.severity} in the previous snapshot`;
  return { finding, change };
}

/** The not-comparable findings of a lifecycle that a diff count gate could count. */
export function couldCountFindings(
  kind: DiffCountMetric,
  lifecycle: FindingLifecycle,
): NotComparableFinding[] {
  return lifecycle.not_comparable.filter((pair) => couldCount(kind, pair));
}

/** What findings of unknown severity could be, for each count gate that has them. */
const COULD_BE: Record<DiffCountMetric | 'open_critical_findings', string> = {
  new_findings: 'be new',
  regressed_findings: 'have regressed',
  new_critical_findings: 'be new or regressed at critical',
  open_critical_findings: 'be critical',
};

/**
 * "2 open findings of unknown severity, whose attack runs lack the required best_score, could be
 * critical": how many, why their severity is unknown, and what they could be.
 */
export function unknownSeverityReason(
  kind: DiffCountMetric | 'open_critical_findings',
  count: number,
): string {
  const why = count === 1 ? 'whose attack run lacks' : 'whose attack runs lack';
  return `${countOf(count, 'open finding', 'open findings')} of unknown severity, ${why} the required best_score, could ${COULD_BE[kind]}`;
}
