/**
 * Single-finding triage: one validated change, one PATCH, two journal lines ("sending" before the
 * request leaves, then its outcome; see journal.ts). A journal we cannot write stops us before the
 * service is changed.
 *
 * ```
 * read journal ─▶ last word on the finding (journal.ts lastWordOn) is this change:
 *                   applied          → nothing sent, resolves alreadyApplied
 *                   outcome unknown  → nothing sent, TriageOutcomeUnknownError (exit 3)
 *                   failed / other   → sent
 *              ─▶ fsync'ed "sending" line ─▶ PATCH ─▶ fsync'ed outcome line
 * ```
 * `resend` skips the first step.
 */
import path from 'node:path';
import type { ApiClient } from '../api/client-types.js';
import type { FindingDetail } from '../api/schemas.js';
import { CliError, EXIT, WordedError, wordsFlags, type ExitCode } from '../errors.js';
import { changeKey, lastWordOn, openJournal, readJournal, type JournalEntry } from './journal.js';
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
   * Send even when the journal's last word on the finding is this very change, applied or with its
   * outcome unknown (see triageFinding): for a finding changed in the service since, which the journal
   * cannot know, or an unknown outcome the operator checked did not apply.
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
 * A change the service may or may not have applied. `sentNow`: this run's PATCH got no usable answer
 * (a 502/504, a timeout, a dropped connection, an interruption; exit 1). Otherwise nothing was sent:
 * the journal's last word on the finding is this change with its outcome unknown, from an earlier run
 * (exit 3, as a partial result: not done as asked). The message says how to check and that `resend`
 * sends it anyway; `entry` is the journal line (a "sending" line with no outcome reads as
 * outcome_unknown). `exitCode` overrides the code: the CLI's 130/143 for a PATCH its Ctrl-C or
 * SIGTERM cut off.
 */
export class TriageOutcomeUnknownError extends WordedError {
  override readonly name = 'TriageOutcomeUnknownError';
  constructor(
    readonly entry: JournalEntry,
    readonly journalPath: string,
    readonly sentNow: boolean,
    options: { cause?: unknown; exitCode?: ExitCode } = {},
  ) {
    const { exitCode = sentNow ? EXIT.failure : EXIT.partial, ...cause } = options;
    super((name) => outcomeUnknownMessage(entry, journalPath, sentNow, name), exitCode, cause);
  }
}

/**
 * Sends the change and journals the outcome. Resolves only when the change was applied (or the
 * journal shows it applied); a failed change rethrows the client's error (exit 1), an unknown outcome
 * — this run's or, unsent, an earlier run's — throws a TriageOutcomeUnknownError that says how to
 * check it. Whatever was sent has its outcome in the journal first.
 */
export async function triageFinding(options: TriageFindingOptions): Promise<TriageFindingResult> {
  const journalPath = path.resolve(options.cwd, options.journalPath);
  // A script of single triages re-run after an interruption must not send each change again (every
  // PATCH adds a review event to the finding's history, a no-op one included), as a re-run of
  // `triage apply` sends none: when the journal's last word on the finding is this change, applied,
  // nothing is sent; with its outcome unknown (a killed run's unanswered "sending" line, an
  // interrupted or timed-out PATCH) nothing is sent either, as `triage apply` holds such rows back.
  // Any later change of the finding (or a failure) in the journal sends it again.
  if (!options.resend) {
    const { org, workspace } = options.target;
    const last = lastWordOn(await readJournal(journalPath), org, workspace, options.change.findingId);
    if (last !== undefined && sameChange(last.entry, options.target, options.change)) {
      if (last.outcome === 'applied') return { entry: last.entry, alreadyApplied: true, journalPath };
      if (last.outcome === 'outcome_unknown')
        throw new TriageOutcomeUnknownError(last.entry, journalPath, false);
    }
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
    throw new TriageOutcomeUnknownError(entry, journalPath, true, { cause: outcome.error });
  }
  if (entry.outcome === 'failed') throw withFieldErrors(outcome.error, (field) => OPTION_OF_FIELD[field]);
  return {
    entry,
    ...(outcome.finding ? { finding: outcome.finding } : {}),
    ...(entry.warning !== undefined ? { warning: entry.warning } : {}),
    journalPath,
  };
}

/**
 * What to tell the operator about a change that may or may not have been applied: why, how to check,
 * and that only `resend` sends it again (the same command alone sends nothing: that duplicated it).
 */
function outcomeUnknownMessage(
  entry: JournalEntry,
  journalPath: string,
  sentNow: boolean,
  name: (option: string) => string,
): string {
  const why = terminalSafe(entry.error ?? 'no answer', 300);
  const cli = wordsFlags(name);
  const again = cli
    ? `run the same command with ${name('resend')}`
    : `triage it again with ${name('resend')}`;
  const what = sentNow
    ? `The change to finding ${entry.finding_id} may or may not have been applied (${why}). ` +
      `It was recorded as outcome_unknown in ${journalPath} and was not sent again; ` +
      `${cli ? 'running the same command again' : 'triaging it again'} sends nothing.`
    : `Nothing was sent: the journal ${journalPath} shows this change to finding ${entry.finding_id} ` +
      `sent at ${entry.time} with its outcome unknown (${why}): the service may or may not have ` +
      'applied it, and sending it again on its own could add a second review event.';
  return (
    `${what} Check the finding's review history in the service: if the change is there, nothing is ` +
    `left to do; only if it is missing, ${again}.`
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

/** Whether a journal line records `change` (the same fields and dated acceptance: journal.ts changeKey). */
function sameChange(entry: JournalEntry, target: TriageTarget, change: ValidTriageChange): boolean {
  return (
    changeKey(entry.org, entry.workspace, entry.finding_id, entry.request, entry.acceptance) ===
    changeKey(target.org, target.workspace, change.findingId, change.request, change.acceptance)
  );
}
