/**
 * Sends one triage change and turns whatever happens into a journal entry. This is where "never send
 * twice blindly" is decided (the caller journals `sendingEntry` before calling, so even a process that
 * dies mid-request leaves a trace that reads as outcome_unknown):
 *
 * - 2xx with a valid FindingDetail      → applied
 * - 2xx whose body fails the schema      → applied (with the raw body and a warning), never a failure
 * - 502/504/timeout/reset on the PATCH   → outcome_unknown: not retried, listed for the operator
 * - any other HTTP error, refused socket → failed (nothing was changed; safe to send again)
 * - anything else (a broken connection, a timeout the client did not classify, the caller's abort
 *   signal cutting the request off, an unexpected error)
 *                                        → outcome_unknown, because we cannot tell whether it arrived
 */
import type { ApiClient } from '../api/client-types.js';
import {
  isApiError,
  type ApiError,
  isHttpError,
  isNetworkError,
  isOutcomeUnknownError,
  isResponseSchemaError,
} from '../api/errors.js';
import type { FindingDetail } from '../api/schemas.js';
import { describedOptionName, InterruptedError } from '../errors.js';
import { JOURNAL_FORMAT, type JournalEntry } from './journal.js';
import { canonicalRequest, type ValidTriageChange } from './triage-request.js';

const RUN_STOPPING_STATUSES = new Set([401, 403, 426, 429]);

/** Where the change goes. */
export interface TriageTarget {
  org: string;
  workspace: string;
}

/** The outcome of one PATCH. */
export interface ChangeOutcome {
  entry: JournalEntry;
  /** The validated FindingDetail, when the response matched the schema. */
  finding?: FindingDetail;
  /** The error behind a failed or unknown outcome (to rethrow for a single triage). */
  error?: unknown;
  /**
   * True when the failure would repeat for every other row (bad token, missing rights, client too old,
   * service unreachable), so a bulk run should stop sending.
   */
  stopsRun: boolean;
}

/** The "sending" line, journaled and fsync'ed before the PATCH leaves (see journal.ts). */
export function sendingEntry(
  target: TriageTarget,
  change: ValidTriageChange,
  source: string,
  now: () => Date,
): JournalEntry {
  return {
    journal: JOURNAL_FORMAT,
    time: now().toISOString(),
    org: target.org,
    workspace: target.workspace,
    finding_id: change.findingId,
    request: canonicalRequest(change.request),
    outcome: 'sending',
    http_status: null,
    error: null,
    finding: null,
    source,
    ...(change.acceptance === undefined ? {} : { acceptance: change.acceptance }),
  };
}

/** Sends `change` with the client's retry policy (PATCH is retried only on 429 / refused connection). */
export async function sendTriageChange(
  client: Pick<ApiClient, 'updateFinding'>,
  target: TriageTarget,
  change: ValidTriageChange,
  source: string,
  now: () => Date,
): Promise<ChangeOutcome> {
  const request = canonicalRequest(change.request);
  const base = {
    journal: JOURNAL_FORMAT,
    org: target.org,
    workspace: target.workspace,
    finding_id: change.findingId,
    request,
    source,
    ...(change.acceptance === undefined ? {} : { acceptance: change.acceptance }),
  } as const;
  const entry = (
    fields: Pick<JournalEntry, 'outcome' | 'http_status' | 'error' | 'finding'> & { warning?: string },
  ) => ({ ...base, time: now().toISOString(), ...fields }) satisfies JournalEntry;

  try {
    const { value } = await client.updateFinding(target.org, target.workspace, change.findingId, request);
    return {
      entry: entry({ outcome: 'applied', http_status: 200, error: null, finding: value }),
      finding: value,
      stopsRun: false,
    };
  } catch (error) {
    if (isResponseSchemaError(error) && error.status >= 200 && error.status < 300) {
      return {
        entry: entry({
          outcome: 'applied',
          http_status: error.status,
          error: null,
          finding: error.body ?? null,
          warning: error.message,
        }),
        error,
        stopsRun: false,
      };
    }
    if (isOutcomeUnknownError(error)) {
      return {
        entry: entry({
          outcome: 'outcome_unknown',
          http_status: error.status ?? null,
          error: journaled(error),
          finding: null,
        }),
        error,
        stopsRun: false,
      };
    }
    if (isHttpError(error)) {
      return {
        entry: entry({
          outcome: 'failed',
          http_status: error.status,
          error: journaled(error),
          finding: null,
        }),
        error,
        // 401 bad token, 403 missing rights, 426 client too old, 429 still limited after the retries.
        stopsRun: RUN_STOPPING_STATUSES.has(error.status),
      };
    }
    if (isNetworkError(error) && error.code === 'ECONNREFUSED') {
      // Refused: the request never reached the service, so nothing changed.
      return {
        entry: entry({ outcome: 'failed', http_status: null, error: journaled(error), finding: null }),
        error,
        stopsRun: true,
      };
    }
    const message = isApiError(error)
      ? journaled(error)
      : isAbort(error)
        ? `${error.message.replace(/\.$/u, '')} while the PATCH was in flight, before the service answered`
        : `unexpected error while sending: ${error instanceof Error ? error.message : String(error)}`;
    return {
      entry: entry({
        outcome: 'outcome_unknown',
        http_status: null,
        error: message,
        finding: null,
      }),
      error,
      stopsRun: true,
    };
  }
}

/**
 * An API error as the journal keeps it: read later by the library, the CLI and a run alike, it names
 * what to check in plain words ("the service's base URL"), not one interface's spelling of it.
 */
function journaled(error: ApiError): string {
  return error.describeWith(describedOptionName);
}

/**
 * A sent row's error as `name` spells the options it names: the CLI shows its flags (`--base-url`)
 * where the journal says them in plain words. Null for a row without one.
 */
export function outcomeErrorText(
  outcome: Pick<ChangeOutcome, 'entry' | 'error'>,
  name: (option: string) => string,
): string | null {
  return isApiError(outcome.error) && outcome.entry.error !== null
    ? outcome.error.describeWith(name)
    : outcome.entry.error;
}

/** The client's abort: the caller's signal reason (the CLI's InterruptedError) or a plain AbortError. */
function isAbort(error: unknown): error is Error {
  return error instanceof InterruptedError || (error instanceof Error && error.name === 'AbortError');
}
