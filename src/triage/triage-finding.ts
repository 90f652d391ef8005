/**
 * Single-finding triage: one validated change, one PATCH, two journal lines ("sending" before the
 * request leaves, then its outcome; see journal.ts). A journal we cannot write stops us before the
 * service is changed.
 */
import path from 'node:path';
import type { ApiClient } from '../api/client-types.js';
import type { FindingDetail } from '../api/schemas.js';
import { CliError } from '../errors.js';
import { openJournal, type JournalEntry } from './journal.js';
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
}

/** An applied change. */
export interface TriageFindingResult {
  entry: JournalEntry;
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
