/**
 * Single-finding triage: one validated change, one PATCH, two journal lines ("sending" before the
 * request leaves, then its outcome; see journal.ts). A journal we cannot write stops us before the
 * service is changed.
 */
import path from 'node:path';
import type { ApiClient } from '../api/client-types.js';
import type { FindingDetail } from '../api/schemas.js';
import { CliError } from '../errors.js';
import { changeKey, openJournal, readJournal, type JournalEntry } from './journal.js';
import { sendingEntry, sendTriageChange, type TriageTarget } from './send-change.js';
import { withFieldErrors } from './service-validation.js';
import { terminalSafe } from './terminal-text.js';
import type { ValidTriageChange } from './triage-request.js';

/** The library option that sets each body field (the CLI spells it as its flag). */
const OPTION_OF_FIELD: Record<string, string> = {
  finding_status: 'status',
  finding_type: 'type',
  severity: 'severity',
  notes: 'notes',
};

/** One triage change to send, with the journal to record it in. */
export interface TriageFindingOptions {
  client: Pick<ApiClient, 'updateFinding'>;
  target: TriageTarget;
  change: ValidTriageChange;
  /** Journal file, absolute or relative to `cwd`. */
  journalPath: string;
  cwd: string;
  now?: () => Date;
  /**
   * Send even when the journal's last word on the finding is this very change, applied (see
   * triageFinding): for a finding changed in the service since, which the journal cannot know.
   */
  resend?: boolean;
}

/** An applied change, or one found applied already (`alreadyApplied`: nothing was sent). */
export interface TriageFindingResult {
  /** The applied line: this run's, or, when already applied, the journal's earlier one. */
  entry: JournalEntry;
  alreadyApplied?: boolean;
  /** The validated FindingDetail; absent when the response did not match the schema (see `warning`). */
  finding?: FindingDetail;
  /** Set when the change was applied but the response did not match the schema. */
  warning?: string;
  journalPath: string;
}

/**
 * Sends the change and journals the outcome. Resolves only when the change was applied; a failed
 * change rethrows the client's error (exit 1), an unknown outcome throws a CliError that says how to
 * check it. Either way the outcome is in the journal first.
 */
export async function triageFinding(options: TriageFindingOptions): Promise<TriageFindingResult> {
  const journalPath = path.resolve(options.cwd, options.journalPath);
  // A script of single triages re-run after an interruption must not send each change again (every
  // PATCH adds a review event to the finding's history, a no-op one included), as a re-run of
  // `triage apply` sends none: when the journal's last word on the finding is this change, applied,
  // nothing is sent. Any later change of the finding (or a failure) in the journal sends it again.
  if (!options.resend) {
    const last = lastOutcomeOf(await readJournal(journalPath), options.target, options.change.findingId);
    if (last?.outcome === 'applied' && sameChange(last, options.target, options.change))
      return { entry: last, alreadyApplied: true, journalPath };
  }
  const journal = await openJournal(journalPath);
  const now = options.now ?? (() => new Date());
  let outcome: Awaited<ReturnType<typeof sendTriageChange>>;
  try {
    try {
      await journal.append(sendingEntry(options.target, options.change, 'cli', now));
    } catch (error) {
      throw new CliError(
        `Nothing was sent: the triage journal ${journalPath} could not be written: ${(error as Error).message}`,
      );
    }
    outcome = await sendTriageChange(options.client, options.target, options.change, 'cli', now);
    try {
      await journal.append(outcome.entry);
    } catch (error) {
      throw journalWriteFailed(outcome.entry, journalPath, error);
    }
  } finally {
    await journal.close();
  }

  const { entry } = outcome;
  if (entry.outcome === 'outcome_unknown') {
    throw new CliError(outcomeUnknownMessage(entry, journalPath), undefined, { cause: outcome.error });
  }
  if (entry.outcome === 'failed') throw withFieldErrors(outcome.error, (field) => OPTION_OF_FIELD[field]);
  return {
    entry,
    ...(outcome.finding ? { finding: outcome.finding } : {}),
    ...(entry.warning !== undefined ? { warning: entry.warning } : {}),
    journalPath,
  };
}

/** What to tell the operator about a PATCH that may or may not have been applied. */
function outcomeUnknownMessage(entry: JournalEntry, journalPath: string): string {
  return (
    `The change to finding ${entry.finding_id} may or may not have been applied ` +
    `(${terminalSafe(entry.error ?? 'no answer', 300)}). It was recorded as outcome_unknown in ${journalPath} ` +
    'and was not sent again. Check the finding in the service (its review history shows whether the ' +
    'change arrived); only if it did not, send the same triage command again.'
  );
}

function journalWriteFailed(entry: JournalEntry, journalPath: string, error: unknown): CliError {
  const message = error instanceof Error ? error.message : String(error);
  const what =
    entry.outcome === 'applied'
      ? 'The change WAS applied (do not send it again)'
      : `The change ended as ${entry.outcome}`;
  return new CliError(
    `${what}, but the journal ${journalPath} could not be written: ${message}. ` +
      'Fix the journal file so the record of this change is not lost.',
  );
}

/**
 * The journal's last outcome line for a finding of this organization and workspace ("sending" lines
 * are not outcomes), or undefined when the journal never changed it.
 */
export function lastOutcomeOf(
  entries: readonly JournalEntry[],
  target: TriageTarget,
  findingId: string,
): JournalEntry | undefined {
  const id = findingId.toLowerCase();
  return entries.findLast(
    (entry) =>
      entry.outcome !== 'sending' &&
      entry.org === target.org &&
      entry.workspace === target.workspace &&
      entry.finding_id.toLowerCase() === id,
  );
}

/** Whether a journal line records `change` (the same fields and dated acceptance: journal.ts changeKey). */
function sameChange(entry: JournalEntry, target: TriageTarget, change: ValidTriageChange): boolean {
  return (
    changeKey(entry.org, entry.workspace, entry.finding_id, entry.request, entry.acceptance) ===
    changeKey(target.org, target.workspace, change.findingId, change.request, change.acceptance)
  );
}
