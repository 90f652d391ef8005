/**
 * Which rows of a decisions file still need sending, judged by the journal alone (the API has no way
 * to read a finding's triage state back). A row's identity is organization + workspace + finding id +
 * the exact requested fields + the dated acceptance, if any (journal.ts `changeKey`):
 *
 * - journal says applied          → skipped (this is what makes re-running an interrupted file safe)
 * - journal says outcome_unknown  → skipped and listed: it may have been applied, so it is never
 *                                   re-sent unless the operator asks for it (`resendUnknown`). This
 *                                   includes a "sending" line with no outcome after it (journal.ts).
 *                                   Not reconciled automatically: the spec has no read of a finding,
 *                                   and the only request that returns one (PATCH) is itself a write —
 *                                   its empty-body behaviour is "not shown", so probing with it could
 *                                   add the very review event we are trying not to duplicate.
 * - journal says failed, or none  → sent
 */
import type { DecisionRow } from './decisions-file.js';
import { changeKey, type JournalEntry, type KnownOutcome } from './journal.js';
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

/** Splits the rows by what the journal knows about each. */
export function planApply(
  rows: readonly DecisionRow[],
  target: TriageTarget,
  journal: ReadonlyMap<string, KnownOutcome>,
  options: { resendUnknown?: boolean } = {},
): ApplyPlan {
  const plan: ApplyPlan = { toSend: [], alreadyApplied: [], unresolvedUnknown: [] };
  for (const row of rows) {
    const known = journal.get(
      changeKey(target.org, target.workspace, row.findingId, row.request, row.acceptance),
    );
    if (known?.outcome === 'applied') plan.alreadyApplied.push({ row, entry: known.entry });
    else if (known?.outcome === 'outcome_unknown' && !options.resendUnknown) {
      plan.unresolvedUnknown.push({ row, entry: known.entry });
    } else plan.toSend.push(row);
  }
  return plan;
}
