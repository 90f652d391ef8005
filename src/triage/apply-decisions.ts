/**
 * Bulk triage: applies a validated decisions file with bounded concurrency, journaling each row before
 * its request leaves and its outcome the moment it is known.
 *
 * ```
 * lock journal ─▶ read journal ─▶ plan (skip applied / unresolved-unknown rows)
 *      ─▶ per row, N at a time: fsync'ed "sending" line ─▶ PATCH ─▶ fsync'ed outcome line
 *      ─▶ unlock ─▶ write "<file>.remaining.<ext>" when rows are left ─▶ report
 * ```
 * Stopping early (abort signal, or a failure that would repeat for every row such as a bad token)
 * starts no new rows and waits for the requests in flight, so they are journaled with their real
 * outcome: an aborted PATCH would have an unknown outcome, a finished one is simply recorded. The wait
 * after an interruption is bounded (`interruptGraceMs`): a row still without an answer then is
 * journaled as outcome_unknown and held back from later runs until the operator checks it. If the
 * process dies before either, its "sending" line reads as outcome_unknown (journal.ts).
 */
import path from 'node:path';
import pLimit from 'p-limit';
import type { ApiClient } from '../api/client-types.js';
import { CliError, InvalidOptionError } from '../errors.js';
import { planApply, type ApplyPlan } from './apply-plan.js';
import type { DecisionRow, DecisionsFile } from './decisions-file.js';
import { lockJournal, openJournal, readJournal, type JournalEntry } from './journal.js';
import { writeRemainingRows } from './remaining-rows.js';
import { sendingEntry, sendTriageChange, type ChangeOutcome, type TriageTarget } from './send-change.js';

export const DEFAULT_APPLY_CONCURRENCY = 4;
export const MAX_APPLY_CONCURRENCY = 16;
/**
 * How long rows in flight are waited for after an interruption. Long enough for a healthy service to
 * answer (and so for the row to be journaled as applied or failed), short enough that Ctrl-C still
 * feels like it works.
 */
export const DEFAULT_INTERRUPT_GRACE_MS = 5_000;

/** How applyDecisions sends a decisions file: concurrency, journal, progress, signal. */
export interface ApplyDecisionsOptions {
  client: Pick<ApiClient, 'updateFinding'>;
  target: TriageTarget;
  decisions: DecisionsFile;
  /** Journal file, absolute or relative to `cwd`. */
  journalPath: string;
  /** Resolves the journal and the remaining-rows file. */
  cwd: string;
  /** Rows in flight at once, 1–16; default 4. */
  concurrency?: number;
  /** Send rows whose earlier outcome was unknown: only after the operator checked they did not apply. */
  resendUnknown?: boolean;
  /** Stops starting new rows; rows in flight finish (up to `interruptGraceMs`) and are journaled. */
  signal?: AbortSignal;
  /** After the signal aborts, how long to wait for rows in flight; default DEFAULT_INTERRUPT_GRACE_MS. */
  interruptGraceMs?: number;
  now?: () => Date;
  /** Called once the plan is known, before anything is sent. */
  onPlan?: (plan: ApplyPlan) => void;
  /** Called after each row's outcome is journaled. */
  onOutcome?: (outcome: RowOutcome) => void;
  /** Called for problems that do not stop the run: a stale journal lock, an unwritable remaining file. */
  onWarning?: (message: string) => void;
}

/** What happened to one sent row. */
export interface RowOutcome {
  row: DecisionRow;
  entry: JournalEntry;
  /** The error behind a failed or unknown outcome (send-change.ts `outcomeErrorText` words it). */
  error?: unknown;
}

/** What applyDecisions did, row by row. */
export interface ApplyReport {
  plan: ApplyPlan;
  applied: RowOutcome[];
  /** Applied, but the response did not match the schema (also counted in `applied`). */
  appliedWithWarning: RowOutcome[];
  failed: RowOutcome[];
  outcomeUnknown: RowOutcome[];
  /** Rows not started because the run stopped early. */
  notAttempted: DecisionRow[];
  /** Why the run stopped early, when it did. */
  stoppedBecause?: string;
  /** Path of the file of rows left to do (failed + not attempted), when there are any. */
  remainingFile?: string;
  journalPath: string;
}

/** Reads the journal and returns the plan without sending anything (`--dry-run`). */
export async function planDecisions(
  options: Pick<ApplyDecisionsOptions, 'target' | 'decisions' | 'journalPath' | 'cwd' | 'resendUnknown'>,
): Promise<{ plan: ApplyPlan; journalPath: string }> {
  const journalPath = path.resolve(options.cwd, options.journalPath);
  return { plan: await planFromJournal(options, journalPath), journalPath };
}

/** Applies the decisions; see the module comment for the phases. Never sends a row twice. */
export async function applyDecisions(options: ApplyDecisionsOptions): Promise<ApplyReport> {
  const concurrency = options.concurrency ?? DEFAULT_APPLY_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_APPLY_CONCURRENCY) {
    throw new InvalidOptionError(
      'concurrency',
      (name) =>
        `${name('concurrency')} must be an integer from 1 to ${MAX_APPLY_CONCURRENCY}, got ${concurrency}.`,
    );
  }
  const now = options.now ?? (() => new Date());
  const journalPath = path.resolve(options.cwd, options.journalPath);

  // Opening first creates the file, which the lock needs; the lock then keeps a second run of the same
  // file from reading the journal before this run's outcomes are in it.
  const writer = await openJournal(journalPath);
  let release: (() => Promise<void>) | undefined;
  const report: ApplyReport = {
    plan: { toSend: [], alreadyApplied: [], unresolvedUnknown: [] },
    applied: [],
    appliedWithWarning: [],
    failed: [],
    outcomeUnknown: [],
    notAttempted: [],
    journalPath,
  };
  try {
    release = await lockJournal(journalPath, (error) =>
      options.onWarning?.(`the lock on the journal could not be refreshed: ${error.message}`),
    );
    report.plan = await planFromJournal(options, journalPath);
    options.onPlan?.(report.plan);
    await sendRows(options, report, writer, concurrency, now);
  } finally {
    await writer.close();
    await release?.();
  }

  const remaining = [...report.failed.map((o) => o.row), ...report.notAttempted].sort(
    (a, b) => a.row - b.row,
  );
  if (remaining.length > 0) {
    try {
      report.remainingFile = await writeRemainingRows(options.decisions, remaining, options.cwd);
    } catch (error) {
      // The outcomes are journaled already; losing the convenience file must not lose the report.
      options.onWarning?.(
        `the file of remaining rows could not be written (${(error as Error).message}); ` +
          're-running the decisions file sends only what is left.',
      );
    }
  }
  return report;
}

async function sendRows(
  options: ApplyDecisionsOptions,
  report: ApplyReport,
  writer: Awaited<ReturnType<typeof openJournal>>,
  concurrency: number,
  now: () => Date,
): Promise<void> {
  const limit = pLimit(concurrency);
  const graceMs = options.interruptGraceMs ?? DEFAULT_INTERRUPT_GRACE_MS;
  let journalFailure: unknown;
  const stop = (reason: string): void => {
    report.stoppedBecause ??= reason;
  };
  // Settles `graceMs` after an interruption; rows still waiting for their answer then give up on it.
  let giveUp = (): void => undefined;
  const gaveUp = new Promise<void>((resolve) => (giveUp = resolve));
  let graceTimer: NodeJS.Timeout | undefined;
  const onAbort = (): void => {
    stop('interrupted');
    graceTimer ??= setTimeout(giveUp, graceMs);
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  const classify = (row: DecisionRow, outcome: ChangeOutcome): void => {
    const result: RowOutcome = { row, entry: outcome.entry, error: outcome.error };
    if (outcome.entry.outcome === 'applied') {
      report.applied.push(result);
      if (outcome.entry.warning !== undefined) report.appliedWithWarning.push(result);
    } else if (outcome.entry.outcome === 'outcome_unknown') {
      report.outcomeUnknown.push(result);
    } else {
      report.failed.push(result);
    }
    if (outcome.stopsRun) stop(outcome.entry.error ?? 'a request failed in a way every row would');
    options.onOutcome?.(result);
  };
  try {
    await Promise.all(
      report.plan.toSend.map((row) =>
        limit(async () => {
          if (report.stoppedBecause !== undefined) {
            report.notAttempted.push(row);
            return;
          }
          const source = `apply:${options.decisions.file}#${row.row}`;
          // Durable before the request leaves: if this process dies while it is in flight, the re-run
          // finds the line and holds the row back instead of sending it a second time.
          try {
            await writer.append(sendingEntry(options.target, row, source, now));
          } catch (error) {
            journalFailure ??= error;
            stop('the journal could not be written');
            report.notAttempted.push(row);
            return;
          }
          const sent = sendTriageChange(options.client, options.target, row, source, now);
          const outcome = await Promise.race([
            sent,
            gaveUp.then(() => unanswered(sendingEntry(options.target, row, source, now), graceMs)),
          ]);
          try {
            await writer.append(outcome.entry);
          } catch (error) {
            journalFailure ??= error;
            stop('the journal could not be written');
          }
          classify(row, outcome);
        }),
      ),
    );
  } finally {
    clearTimeout(graceTimer);
    options.signal?.removeEventListener('abort', onAbort);
  }
  for (const list of [report.applied, report.appliedWithWarning, report.failed, report.outcomeUnknown]) {
    list.sort((a, b) => a.row.row - b.row.row);
  }
  report.notAttempted.sort((a, b) => a.row - b.row);
  if (journalFailure !== undefined) {
    const message = journalFailure instanceof Error ? journalFailure.message : JSON.stringify(journalFailure);
    throw new CliError(
      `Writing the triage journal ${report.journalPath} failed (${message}); the run was stopped. ` +
        `${report.applied.length} row(s) were applied in this run but some may be missing from the journal: ` +
        'do not re-run the file until the journal is fixed (check the findings in the service first).',
    );
  }
}

/** A row still waiting for its answer when the grace period after an interruption ran out. */
function unanswered(sending: JournalEntry, graceMs: number): ChangeOutcome {
  return {
    entry: {
      ...sending,
      outcome: 'outcome_unknown',
      error:
        `interrupted: no answer within ${graceMs / 1000} s of the interruption; ` +
        'the change may or may not have been applied',
    },
    stopsRun: false,
  };
}

/** The plan for the decisions given what the journal at `journalPath` already records. */
async function planFromJournal(
  options: Pick<ApplyDecisionsOptions, 'target' | 'decisions' | 'resendUnknown'>,
  journalPath: string,
): Promise<ApplyPlan> {
  const journal = await readJournal(journalPath);
  const resend = options.resendUnknown === undefined ? {} : { resendUnknown: options.resendUnknown };
  return planApply(options.decisions.rows, options.target, journal, resend);
}
