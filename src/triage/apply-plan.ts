/**
 * Which rows of a decisions file still need sending, judged by the journal alone (the API has no way
 * to read a finding's triage state back). A row's identity is organization + workspace + finding id +
 * the exact requested fields + the dated acceptance, if any (journal.ts `changeKey`). What counts is
 * the journal's last word on the row's finding (journal.ts `lastWordOn`, the rule a single triage
 * decides by too; a "sending" line with no outcome after it reads as outcome_unknown):
 *
 * - last word is another change, or none → sent: a later change of the finding (a single triage,
 *                                   another file) replaced this one, whatever this one's outcome was,
 *                                   so skipping it would silently lose the decision
 * - last word is this change, applied → skipped (this is what makes re-running an interrupted file
 *                                   safe)
 * - last word is this change, outcome_unknown → skipped and listed: it may have been applied, so it is
 *                                   never re-sent unless the operator asks for it (`resendUnknown`).
 *                                   Not reconciled automatically: the spec has no read of a finding,
 *                                   and the only request that returns one (PATCH) is itself a write —
 *                                   its empty-body behaviour is "not shown", so probing with it could
 *                                   add the very review event we are trying not to duplicate.
 * - last word is this change, failed → sent
 *
 * The same change tried more than once in a row (a re-run after an unknown outcome, `--resend-unknown`)
 * is decided as lastWordOn decides: applied over outcome_unknown over failed, among the tries since
 * the finding last changed otherwise.
 */
import type { DecisionRow } from './decisions-file.js';
import { changeKey, lastWordOn, type JournalEntry, type KnownOutcome } from './journal.js';
import type { TriageTarget } from './send-change.js';

export interface PlannedSkip {
  row: DecisionRow;
  /** The journal line that decided the skip. */
  entry: JournalEntry;
}

/** What applying a decisions file would send, what the journal shows as applied, and unknown outcomes. */
export interface ApplyPlan {
  /** Rows to send, in file order. */
  toSend: DecisionRow[];
  alreadyApplied: PlannedSkip[];
  /** Rows whose earlier PATCH had an unknown outcome; not sent again automatically. */
  unresolvedUnknown: PlannedSkip[];
}

/** Splits the rows by what the journal's last word on each row's finding is (see the module comment). */
export function planApply(
  rows: readonly DecisionRow[],
  target: TriageTarget,
  journal: readonly JournalEntry[],
  options: { resendUnknown?: boolean } = {},
): ApplyPlan {
  const plan: ApplyPlan = { toSend: [], alreadyApplied: [], unresolvedUnknown: [] };
  const byFinding = linesByFinding(journal);
  for (const row of rows) {
    const lines = byFinding.get(findingKey(target.org, target.workspace, row.findingId)) ?? [];
    const known = lastWordIfThisChange(lines, target, row);
    if (known?.outcome === 'applied') plan.alreadyApplied.push({ row, entry: known.entry });
    else if (known?.outcome === 'outcome_unknown' && !options.resendUnknown) {
      plan.unresolvedUnknown.push({ row, entry: known.entry });
    } else plan.toSend.push(row);
  }
  return plan;
}

/**
 * The outcome of the row's change when the journal's last word on its finding is that change;
 * undefined when the finding was never changed, or changed otherwise since.
 */
function lastWordIfThisChange(
  lines: readonly JournalEntry[],
  target: TriageTarget,
  row: DecisionRow,
): KnownOutcome | undefined {
  const last = lastWordOn(lines, target.org, target.workspace, row.findingId);
  const key = changeKey(target.org, target.workspace, row.findingId, row.request, row.acceptance);
  return last !== undefined && keyOf(last.entry) === key ? last : undefined;
}

function keyOf(entry: JournalEntry): string {
  return changeKey(entry.org, entry.workspace, entry.finding_id, entry.request, entry.acceptance);
}

function findingKey(org: string, workspace: string, findingId: string): string {
  return JSON.stringify([org, workspace, findingId.toLowerCase()]);
}

/** The journal lines of each finding, in journal order, so a row looks only at its finding's lines. */
function linesByFinding(lines: readonly JournalEntry[]): Map<string, JournalEntry[]> {
  const byFinding = new Map<string, JournalEntry[]>();
  for (const line of lines) {
    const key = findingKey(line.org, line.workspace, line.finding_id);
    const group = byFinding.get(key);
    if (group) group.push(line);
    else byFinding.set(key, [line]);
  }
  return byFinding;
}
