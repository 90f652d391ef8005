/**
 * Credit auto-refill: validate locally (auto-refill-request.ts), PUT, and judge the answer.
 *
 * ```
 * settings ─▶ checkAutoRefillRequest (the CLI's checks; nothing sent on a problem)
 *          ─▶ PUT ─┬─ 2xx stating the four settings ─▶ result: mismatches (asked vs held) + warnings
 *                  ├─ 2xx that does not state them (HTML, empty, other JSON) ─▶ outcome unknown
 *                  ├─ 502/503/504, timeout, broken connection, stopped mid-flight ─▶ outcome unknown
 *                  └─ any other failure (4xx, 500, refused connection) ─▶ rethrown: nothing changed
 * ```
 *
 * "Outcome unknown" is triage's notion (OutcomeUnknownError, send-change.ts): the service may or may
 * not have applied the change. It differs for this PUT in one way: the PUT is idempotent, so the
 * client has already repeated it on 502/504/timeouts, and repeating it once more is safe.
 */
import type { ApiClient } from '../api/client-types.js';
import {
  describeRequest,
  isApiError,
  isHttpError,
  isNetworkError,
  isOutcomeUnknownError,
  isResponseSchemaError,
  isTimeoutError,
  OutcomeUnknownError,
  type RequestTarget,
  type ResponseSchemaError,
} from '../api/errors.js';
import { formatIssues } from '../api/parse.js';
import { apiPaths } from '../api/paths.js';
import type { AutoRefillConfigResponse, ConfigureAutoRefillRequest } from '../api/schemas.js';
import { textSnippet } from '../api/text-snippet.js';
import { describeError, EXIT, WordedError, wordsFlags } from '../errors.js';
import { AUTO_REFILL_FIELDS, checkAutoRefillRequest, type AutoRefillField } from './auto-refill-request.js';
import { withFieldErrors } from './service-validation.js';
import { terminalSafe } from './terminal-text.js';

/** The organization's credits auto-refill setting after configureAutoRefill. */
export interface AutoRefillResult {
  /** The settings sent. */
  request: ConfigureAutoRefillRequest;
  /** The validated response; absent when the body did not match the schema (see `raw`). */
  config?: AutoRefillConfigResponse;
  /**
   * The body as received when it stated the four settings but did not match the schema otherwise. A
   * body that does not state them is no answer at all: configureAutoRefill throws
   * AutoRefillOutcomeUnknownError instead.
   */
  raw?: unknown;
  /** Keys the spec does not know, e.g. `$.new_field`. */
  unknownKeys: string[];
  /**
   * The settings the service holds other than asked, in the order enabled, threshold, quantity,
   * monthly_cap; empty when it holds what was asked. Each is also a warning.
   */
  mismatches: AutoRefillMismatch[];
  /** Things to call out on stderr: settings not as asked, no payment method, an answer off the schema. */
  warnings: string[];
}

/** A setting the service holds other than asked (`held` null: the service holds no value). */
export interface AutoRefillMismatch {
  field: AutoRefillField;
  asked: boolean | number;
  held: boolean | number | null;
}

/** The library option that sets each body field as the CLI knows it (shown as its flag). */
const OPTION_OF_FIELD: Record<string, string> = {
  enabled: 'enabled',
  monthly_cap: 'monthlyCap',
  quantity: 'quantity',
  threshold: 'threshold',
};

/** Statuses of a gateway that may have passed the PUT on before giving up (as attempt.ts judges a PATCH). */
const GATEWAY_STATUSES = new Set([502, 503, 504]);

/** Errno codes that mean the request never left or never arrived (as attempt.ts judges a PATCH). */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * The PUT may or may not have taken effect: a gateway answered 502/503/504, no complete answer came in
 * time, the connection broke, the request was stopped in flight, or a 2xx carried something other than
 * the settings (a proxy's maintenance page, an empty body). `isOutcomeUnknownError` is true for it, as
 * for a triage PATCH; its message differs from the PATCH's because a PUT is idempotent: the client may
 * have repeated it already, and the caller may safely send the same settings again, which is also the
 * only way to read them back (the API has no GET for them).
 */
export class AutoRefillOutcomeUnknownError extends OutcomeUnknownError {
  override readonly name: string = 'AutoRefillOutcomeUnknownError';
  /** The settings sent, to send again unchanged. */
  readonly settings: ConfigureAutoRefillRequest;
  constructor(
    target: RequestTarget,
    reason: string,
    status: number | undefined,
    attempts: number,
    settings: ConfigureAutoRefillRequest,
    cause?: unknown,
  ) {
    super(target, reason, status, attempts, cause);
    this.settings = settings;
    this.message =
      `${describeRequest(target)}: outcome unknown — ${reason}. The service may or may not have applied ` +
      `the settings (${describeSettings(settings)}). The API cannot read them back, but sending the same ` +
      'settings again is safe (the PUT sets all four, so a repeat changes nothing more) and its answer ' +
      'shows what the service holds.';
  }
  /** The message names no option, so every caller reads the same words. */
  override describeWith(): string {
    return this.message;
  }
}

/**
 * Checks the settings like the CLI does (a problem throws a UsageError naming the field as given,
 * `options.monthly_cap`, and nothing is sent), PUTs them and compares the answer with what was asked.
 * Resolves when the service stated its settings, as asked or not (`mismatches`); throws
 * AutoRefillOutcomeUnknownError when it may or may not have applied them, and the client's typed error
 * (a 422 field by field) when it refused them.
 */
export async function configureAutoRefill(
  client: Pick<ApiClient, 'configureAutoRefill'>,
  org: string,
  request: ConfigureAutoRefillRequest,
): Promise<AutoRefillResult> {
  const settings = checkAutoRefillRequest(request);
  const target: RequestTarget = { method: 'PUT', path: apiPaths.autoRefill(org) };
  try {
    const { value, unknownKeys } = await client.configureAutoRefill(org, settings);
    return judged(settings, heldIn(value), value, { config: value, unknownKeys });
  } catch (error) {
    if (isResponseSchemaError(error) && error.status >= 200 && error.status < 300) {
      return notTheSchema(settings, target, error);
    }
    const unknown = unknownOutcome(error);
    if (unknown !== undefined) {
      throw new AutoRefillOutcomeUnknownError(
        target,
        unknown.reason,
        unknown.status,
        isApiError(error) ? error.attempts : 1,
        settings,
        error,
      );
    }
    throw withAutoRefillFieldErrors(error);
  }
}

/** The four settings as the service states them. */
type HeldSettings = Record<AutoRefillField, boolean | number | null>;

function heldIn(config: AutoRefillConfigResponse): HeldSettings {
  return {
    enabled: config.enabled,
    threshold: config.threshold,
    quantity: config.quantity,
    monthly_cap: config.monthly_cap,
  };
}

/** A result: what differs from what was asked, and the other things worth a warning. */
function judged(
  settings: ConfigureAutoRefillRequest,
  held: HeldSettings,
  body: Record<string, unknown>,
  parts: Pick<AutoRefillResult, 'config' | 'raw' | 'unknownKeys'>,
  extraWarnings: string[] = [],
): AutoRefillResult {
  const mismatches = AUTO_REFILL_FIELDS.filter((field) => held[field] !== settings[field]).map((field) => ({
    field,
    asked: settings[field],
    held: held[field],
  }));
  const disabledReason = typeof body.disabled_reason === 'string' ? body.disabled_reason : undefined;
  const warnings = mismatches.map((mismatch) => mismatchWarning(mismatch, held, disabledReason));
  if (body.has_payment_method === false) {
    warnings.push(
      'The organization has no payment method (has_payment_method: false): auto-refill cannot buy ' +
        'credits until one is added in the service.',
    );
  }
  if (disabledReason && held.enabled === true) {
    warnings.push(
      `The service reports auto-refill enabled, yet gives a disabled_reason (${terminalSafe(disabledReason, 300)}).`,
    );
  }
  return { request: settings, ...parts, mismatches, warnings: [...warnings, ...extraWarnings] };
}

/** One setting not as asked, named with both values; a refill left on says that money is still spent. */
function mismatchWarning(
  { field, asked, held }: AutoRefillMismatch,
  all: HeldSettings,
  disabledReason: string | undefined,
): string {
  const heldText = held === null ? 'none (null)' : String(held);
  const head = `${field}: asked ${String(asked)}, but the service holds ${heldText}`;
  if (field === 'enabled' && held === true) {
    return (
      `${head}: auto-refill is still ON and keeps buying credits (threshold ${String(all.threshold)}, ` +
      `quantity ${String(all.quantity)}, monthly_cap ${String(all.monthly_cap)}).`
    );
  }
  if (field === 'enabled') {
    const why = disabledReason ? `disabled_reason: ${terminalSafe(disabledReason, 300)}` : 'no reason given';
    return `${head} (${why}): auto-refill will not buy credits.`;
  }
  return `${head}.`;
}

/**
 * A 2xx whose body does not match the schema. It proves the settings only if it states all four (a
 * newer service that changed another field): then it is judged like any answer. Anything else — an
 * HTML maintenance page from a proxy, an empty body, JSON without the settings — proves nothing.
 */
function notTheSchema(
  settings: ConfigureAutoRefillRequest,
  target: RequestTarget,
  error: ResponseSchemaError,
): AutoRefillResult {
  const body: unknown = error.body;
  const held = isRecord(body) ? statedSettings(body) : undefined;
  if (!isRecord(body) || held === undefined) {
    const what =
      typeof body === 'string'
        ? body.trim() === ''
          ? 'an empty body'
          : `a body that is not JSON ("${textSnippet(body, 120)}")`
        : `JSON that does not state ${notStated(body).join(', ')}`;
    throw new AutoRefillOutcomeUnknownError(
      target,
      `the answer was ${error.status} with ${what}, which is not the API's answer`,
      error.status,
      error.attempts,
      settings,
      error,
    );
  }
  return judged(settings, held, body, { raw: body, unknownKeys: error.unknownKeys }, [
    `The service's answer states the settings but does not match the API schema otherwise ` +
      `(${clip(formatIssues(error.issues, 3))}); the service may be newer than this version.`,
  ]);
}

/** The four settings of a body that states every one with its type (integers may be null), else undefined. */
function statedSettings(body: Record<string, unknown>): HeldSettings | undefined {
  if (notStated(body).length > 0) return undefined;
  return {
    enabled: body.enabled as boolean,
    threshold: body.threshold as number | null,
    quantity: body.quantity as number | null,
    monthly_cap: body.monthly_cap as number | null,
  };
}

/** The settings a body does not state with their type: `enabled` a boolean, the others integers or null. */
function notStated(body: unknown): AutoRefillField[] {
  const record = isRecord(body) ? body : {};
  return AUTO_REFILL_FIELDS.filter((field) => {
    const value = record[field];
    return field === 'enabled' ? typeof value !== 'boolean' : value !== null && !Number.isSafeInteger(value);
  });
}

/**
 * Why the PUT may or may not have taken effect, or undefined when the failure shows it did not (the
 * service refused it, or it never left: connection refused, no such host, a blocked port).
 */
function unknownOutcome(error: unknown): { reason: string; status?: number } | undefined {
  if (isOutcomeUnknownError(error)) {
    return { reason: error.reason, ...(error.status === undefined ? {} : { status: error.status }) };
  }
  if (isHttpError(error)) {
    if (!GATEWAY_STATUSES.has(error.status)) return undefined;
    const said = error.detail ?? error.bodySnippet;
    const quoted = said ? ` ("${textSnippet(said, 120)}")` : '';
    return {
      reason: `the gateway answered ${error.status}${quoted}${afterAttempts(error.attempts)}`,
      status: error.status,
    };
  }
  if (isTimeoutError(error)) {
    return { reason: `no complete answer within ${error.timeoutMs} ms${afterAttempts(error.attempts)}` };
  }
  if (isNetworkError(error)) {
    if (error.code !== undefined && NOT_SENT_CODES.has(error.code)) return undefined;
    return {
      reason: `the connection broke before a complete answer arrived (${error.code ?? 'no error code'})${afterAttempts(error.attempts)}`,
    };
  }
  if (isApiError(error)) {
    // Any other client error about a 2xx (a body it could not use): the service answered, with what
    // is unknown. Every other failure of the client shows the PUT was refused or never sent.
    const status = (error as { status?: unknown }).status;
    if (typeof status !== 'number' || status < 200 || status > 299) return undefined;
    return { reason: `the answer was ${status}, but unusable (${terminalSafe(error.message, 300)})`, status };
  }
  // Not the client's verdict: the caller's abort (Ctrl-C), or an unexpected error, while in flight.
  const what = error instanceof Error ? error.message : String(error);
  return { reason: `the request was stopped before an answer arrived (${terminalSafe(what, 200)})` };
}

/**
 * A 422 field by field: the CLI names each field's flag (`monthly_cap (--monthly-cap)`); the library
 * names the field as its caller wrote it in the body, which is the field itself (`monthly_cap`).
 */
function withAutoRefillFieldErrors(error: unknown): unknown {
  const withFlags = withFieldErrors(error, (field) => OPTION_OF_FIELD[field]);
  if (withFlags === error || !(withFlags instanceof Error)) return error;
  const asGiven = withFieldErrors(error, () => undefined) as Error;
  return new WordedError(
    (name) => describeError(wordsFlags(name) ? withFlags : asGiven, name),
    EXIT.failure,
    { cause: error },
  );
}

function describeSettings(settings: ConfigureAutoRefillRequest): string {
  return AUTO_REFILL_FIELDS.map((field) => `${field} ${String(settings[field])}`).join(', ');
}

function afterAttempts(attempts: number): string {
  return attempts > 1 ? `, after ${attempts} attempts` : '';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function clip(text: string, max = 300): string {
  return terminalSafe(text, max);
}
