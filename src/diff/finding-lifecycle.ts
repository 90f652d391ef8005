/**
 * Finding lifecycle between two snapshots of one project: which findings are new, resolved, regressed
 * or persisting. Pure: it works on plain records, so it is tested on hand-made fixtures and fed from
 * the warehouse (diff-source.ts) in production.
 *
 * Identity: a finding is its attack run (the attack run id). When an assessment is re-run, its attack
 * runs get new ids, so findings that found no partner by id are matched by a fingerprint of attack
 * name, goal category and normalized goal text — pairwise, in a stable order, so two identical
 * fingerprints on each side pair up one to one.
 *
 * A finding is tracked when it is open (not triaged false_positive or remediated) and at least `low`
 * severity: refusals and near-misses (info) are attack runs, not findings anyone has to act on. States:
 * - new: tracked in `to`, no partner in `from`;
 * - resolved: tracked in `from`, and in `to` gone, triaged false_positive/remediated, or down to info;
 * - regressed: tracked in `to`, and its partner was tracked with a lower severity or score, or was
 *   below the threshold, or was closed (reopened);
 * - persisting: tracked in both, not worse;
 * - not comparable: open with an unknown severity on either side (UNKNOWN_SEVERITY: the run's
 *   required best_score is missing and no triage set one), so whether it is tracked there cannot be
 *   told: neither new, resolved, regressed nor persisting. A finding whose score went missing is not
 *   fixed ("resolved below_threshold"), and one whose score came back is not new: both are named here.
 * Pairs tracked on neither side are in no list. Matching uses every attack run, tracked or not, so a
 * run that jumps from info to critical is a regression, not a new finding.
 */
import { createHash } from 'node:crypto';
import { severityRank } from '../severity.js';

/** Triage statuses that take a finding off the open list. */
const CLOSED_FINDING_STATUSES: readonly string[] = ['false_positive', 'remediated'];

/**
 * The severity of a finding that has none: its attack run lacks the required best_score and no triage
 * gave it one (the metrics layer's NULL severity). Never ranked as info.
 */
export const UNKNOWN_SEVERITY = 'unknown';

/** One finding as the diff sees it. Text fields are attacker-controlled: escape when printing. */
export interface FindingRecord {
  /** Attack run id; null when the source row had none (then only the fingerprint identifies it). */
  attack_run_id: string | null;
  assessment_id: string;
  assessment_name: string | null;
  attack_name: string;
  goal_category: string | null;
  goal: string;
  /**
   * critical, high, medium, low or info (free string in the API; other values rank lowest), or
   * UNKNOWN_SEVERITY when the snapshot gives none (no score, no triage): the finding is then not
   * comparable.
   */
  severity: string;
  /** Best score 0-1; null when the run has none (no finished trial) or its score is unknown. */
  score: number | null;
  /** Triage status (open, false_positive, …); null when never triaged, which counts as open. */
  finding_status: string | null;
  /**
   * A dated risk acceptance at the snapshot's time: `accepted` (not open, like a closed finding) or
   * `expired` (open again; finding_status then reads open). Absent: no dated acceptance.
   */
  acceptance_state?: 'accepted' | 'expired';
}

export type ResolvedReason = 'gone' | 'false_positive' | 'remediated' | 'accepted_risk' | 'below_threshold';

/** The lowest severity the lifecycle tracks by default. */
const DEFAULT_MIN_SEVERITY = 'low';

export interface FindingChange {
  from: FindingRecord;
  to: FindingRecord;
  /** How the pair was matched. */
  matched_by: 'attack_run_id' | 'fingerprint';
}

export interface RegressedFinding extends FindingChange {
  /** What got worse: `severity medium → high`, `score 0.61 → 0.83`, `reopened (was false_positive)`. */
  reasons: string[];
}

export interface ResolvedFinding {
  from: FindingRecord;
  /** The finding in `to` when it was triaged closed, null when it is gone. */
  to: FindingRecord | null;
  reason: ResolvedReason;
  matched_by: 'attack_run_id' | 'fingerprint' | null;
}

/**
 * A finding open with an unknown severity on at least one side: nothing can say whether it is tracked
 * there. `from` or `to` is null when the finding is not in that snapshot.
 */
export interface NotComparableFinding {
  from: FindingRecord | null;
  to: FindingRecord | null;
  matched_by: 'attack_run_id' | 'fingerprint' | null;
  /** The side(s) where its severity is unknown. */
  unknown_in: 'from' | 'to' | 'both';
}

/** Findings between two snapshots: new, resolved, regressed, persisting and not comparable. */
export interface FindingLifecycle {
  new: FindingRecord[];
  resolved: ResolvedFinding[];
  regressed: RegressedFinding[];
  persisting: FindingChange[];
  not_comparable: NotComparableFinding[];
}

/** Compares the findings of one project in two snapshots. Output lists are sorted worst first. */
export function diffFindings(
  from: readonly FindingRecord[],
  to: readonly FindingRecord[],
  minSeverity: string = DEFAULT_MIN_SEVERITY,
): FindingLifecycle {
  const minimum = severityRank(minSeverity);
  const tracked = (finding: FindingRecord | null): boolean =>
    finding !== null && isOpen(finding) && severityRank(finding.severity) >= minimum;
  const result: FindingLifecycle = {
    new: [],
    resolved: [],
    regressed: [],
    persisting: [],
    not_comparable: [],
  };
  for (const { from: before, to: after, matchedBy } of matchFindings(from, to)) {
    const unknownBefore = before !== null && isUnknown(before);
    const unknownAfter = after !== null && isUnknown(after);
    if (unknownBefore || unknownAfter) {
      const unknownIn = unknownBefore && unknownAfter ? 'both' : unknownBefore ? 'from' : 'to';
      result.not_comparable.push({ from: before, to: after, matched_by: matchedBy, unknown_in: unknownIn });
      continue;
    }
    const trackedBefore = tracked(before);
    const trackedAfter = tracked(after);
    if (trackedBefore && !trackedAfter && before !== null) {
      const reason: ResolvedReason =
        after === null
          ? 'gone'
          : !isOpen(after)
            ? (after.finding_status as ResolvedReason)
            : 'below_threshold';
      result.resolved.push({ from: before, to: after, reason, matched_by: matchedBy });
    } else if (!trackedBefore && trackedAfter && after !== null) {
      if (before === null) result.new.push(after);
      else {
        const reasons = worsening(before, after);
        result.regressed.push({
          from: before,
          to: after,
          matched_by: matchedBy ?? 'attack_run_id',
          reasons: reasons.length > 0 ? reasons : ['now above the tracked severity'],
        });
      }
    } else if (trackedBefore && trackedAfter && before !== null && after !== null) {
      const pair = { from: before, to: after, matched_by: matchedBy ?? 'attack_run_id' } as const;
      const reasons = worsening(before, after);
      if (reasons.length > 0) result.regressed.push({ ...pair, reasons });
      else result.persisting.push(pair);
    }
  }
  result.new.sort(worstFirst);
  result.resolved.sort((a, b) => worstFirst(a.from, b.from));
  result.regressed.sort((a, b) => worstFirst(a.to, b.to));
  result.persisting.sort((a, b) => worstFirst(a.to, b.to));
  result.not_comparable.sort((a, b) => worstFirst(knownSide(a), knownSide(b)));
  return result;
}

/**
 * The side of a not-comparable finding to show and rank it by: the one whose severity is known (what
 * a reader last saw of it), else the later one.
 */
export function knownSide(pair: NotComparableFinding): FindingRecord {
  const side = (pair.unknown_in === 'to' ? pair.from : pair.to) ?? pair.to ?? pair.from;
  if (side === null) throw new Error('a finding pair holds a finding on one side at least');
  return side;
}

/**
 * Open with an unknown severity: whether it is tracked cannot be told (a closed finding is untracked,
 * whatever its severity).
 */
function isUnknown(finding: FindingRecord): boolean {
  return isOpen(finding) && finding.severity === UNKNOWN_SEVERITY;
}

/** True unless triaged false_positive or remediated, or under a dated risk acceptance that holds. */
export function isOpen(finding: FindingRecord): boolean {
  // A dated acceptance that holds takes the finding off the open list until it expires.
  if (finding.acceptance_state === 'accepted') return false;
  return finding.finding_status === null || !CLOSED_FINDING_STATUSES.includes(finding.finding_status);
}

/**
 * Fingerprint for findings of re-run assessments: attack name, goal category and the goal text with
 * Unicode normalized, case folded and whitespace collapsed (re-runs often differ only in spacing).
 */
export function findingFingerprint(
  finding: Pick<FindingRecord, 'attack_name' | 'goal_category' | 'goal'>,
): string {
  const goal = finding.goal.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim();
  return createHash('sha256')
    .update(JSON.stringify([finding.attack_name, finding.goal_category ?? '', goal]))
    .digest('hex');
}

interface Pair {
  from: FindingRecord | null;
  to: FindingRecord | null;
  matchedBy: 'attack_run_id' | 'fingerprint' | null;
}

function matchFindings(from: readonly FindingRecord[], to: readonly FindingRecord[]): Pair[] {
  const pairs: Pair[] = [];
  const toById = new Map<string, FindingRecord>();
  for (const finding of to) if (finding.attack_run_id !== null) toById.set(finding.attack_run_id, finding);
  const matchedTo = new Set<FindingRecord>();
  const unmatchedFrom: FindingRecord[] = [];
  for (const finding of from) {
    const partner = finding.attack_run_id === null ? undefined : toById.get(finding.attack_run_id);
    if (partner && !matchedTo.has(partner)) {
      matchedTo.add(partner);
      pairs.push({ from: finding, to: partner, matchedBy: 'attack_run_id' });
    } else {
      unmatchedFrom.push(finding);
    }
  }
  // Fallback: pair the rest by fingerprint, each group in a stable order so reruns pair deterministically.
  const toByPrint = groupByFingerprint(to.filter((finding) => !matchedTo.has(finding)));
  for (const [print, group] of groupByFingerprint(unmatchedFrom)) {
    const candidates = toByPrint.get(print) ?? [];
    group.forEach((finding, index) => {
      const partner = candidates[index];
      if (partner) {
        matchedTo.add(partner);
        pairs.push({ from: finding, to: partner, matchedBy: 'fingerprint' });
      } else {
        pairs.push({ from: finding, to: null, matchedBy: null });
      }
    });
  }
  for (const finding of to)
    if (!matchedTo.has(finding)) pairs.push({ from: null, to: finding, matchedBy: null });
  return pairs;
}

function groupByFingerprint(findings: readonly FindingRecord[]): Map<string, FindingRecord[]> {
  const groups = new Map<string, FindingRecord[]>();
  for (const finding of findings) {
    const print = findingFingerprint(finding);
    const group = groups.get(print) ?? [];
    group.push(finding);
    groups.set(print, group);
  }
  for (const group of groups.values()) group.sort(worstFirst);
  return groups;
}

function worsening(before: FindingRecord, after: FindingRecord): string[] {
  const reasons: string[] = [];
  if (!isOpen(before)) reasons.push(`reopened (was ${before.finding_status ?? 'closed'})`);
  if (severityRank(after.severity) > severityRank(before.severity)) {
    reasons.push(`severity ${before.severity} → ${after.severity}`);
  }
  if (after.score !== null && before.score !== null && after.score > before.score) {
    reasons.push(`score ${before.score} → ${after.score}`);
  }
  return reasons;
}

/** Worst first: severity, then score, then stable identity so equal findings keep one order. */
export function worstFirst(a: FindingRecord, b: FindingRecord): number {
  return (
    severityRank(b.severity) - severityRank(a.severity) ||
    (b.score ?? -1) - (a.score ?? -1) ||
    compareText(a.attack_name, b.attack_name) ||
    compareText(a.goal_category ?? '', b.goal_category ?? '') ||
    compareText(a.goal, b.goal) ||
    compareText(a.attack_run_id ?? '', b.attack_run_id ?? '') ||
    compareText(a.assessment_id, b.assessment_id)
  );
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
