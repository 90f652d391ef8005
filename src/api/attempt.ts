/**
 * One attempt of a request, and the verdict on its failure: which error it is, and whether the retry
 * loop may repeat it. The rule for repeating depends on the method:
 *
 * - GET and PUT are idempotent: repeated on 429, 502, 503, 504, network errors, timeouts, bodies
 *   cut off mid-stream, and (when the caller's `consume` refuses it: MalformedBodyError, client.ts)
 *   a 2xx body that is not valid JSON.
 * - PATCH appends a review event on the service: repeated only when it certainly did not take effect
 *   (429, connection refused, name resolution failed for now).
 * - A host name that does not exist (ENOTFOUND) fails at once: asking again gives the same answer. A
 *   resolver that did not answer (EAI_AGAIN) is asked at most three times in all. A 502/503/504, a timeout, a reset connection or
 *   a cut-off 2xx body gives OutcomeUnknownError and is never repeated.
 * - A port fetch refuses to use (6000, 9, …) fails every method at once with BlockedPortError: nothing
 *   was sent, and no retry could change that.
 */
import type { fetch as undiciFetch, RequestInit, Response } from 'undici';
import { readErrorBody, textSnippet } from './error-body.js';
import {
  BlockedPortError,
  httpErrorFor,
  NetworkError,
  OutcomeUnknownError,
  TimeoutError,
  type HttpErrorFields,
  type RequestTarget,
} from './errors.js';
import { abortReason, parseRetryAfter, type AttemptOutcome } from './retry.js';

/** A request ready to send: where, how, and how to name it in messages. */
export interface PreparedRequest {
  target: RequestTarget;
  url: string;
  init: RequestInit;
}

export interface AttemptEnvironment {
  fetch: typeof undiciFetch;
  timeoutMs: number;
  /** The caller's signal: its abort ends everything at once and is never retried. */
  signal: AbortSignal | undefined;
  /** Wall clock (ms since epoch) for HTTP-date Retry-After values. */
  clock: () => number;
  /** The service's api_version, when known, for 426 messages. */
  apiVersion: () => string | undefined;
  /** Removes the token from service text before it goes into an error. */
  redact: (text: string) => string;
  /** Where the user sets the token, for the 401 message (see ApiClientOptions.tokenSource). */
  tokenSource: string | undefined;
}

/** At most this much of an error body is read: enough for any envelope or the start of an HTML page. */
const ERROR_BODY_LIMIT = 64 * 1024;

/** Statuses a gateway or an overloaded service answers without having processed a GET/PUT. */
const GATEWAY_STATUSES = new Set([502, 503, 504]);

/** Errno codes that mean the request never left or never arrived: safe to repeat even a PATCH. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Attempts in all for a name the resolver could not answer for now (EAI_AGAIN): a brief resolver
 * hiccup is worth one or two more tries, a resolver that is down is not worth the whole policy.
 * ENOTFOUND (the name does not exist) is never repeated: the resolver would give the same answer.
 */
const DNS_TEMPORARY_MAX_ATTEMPTS = 3;

/** Errno codes of a broken or unreachable connection (as opposed to, say, a full disk in `consume`). */
const NETWORK_CODES = new Set([
  ...NOT_SENT_CODES,
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
]);

/**
 * How long a body may take in all, as a multiple of the timeout. The timeout itself bounds the wait
 * for the answer to start and every pause while the body arrives (the client's undici Agent:
 * headersTimeout, bodyTimeout), so a large body that keeps flowing over a slow link is not cut off
 * and fetched again from zero every `timeoutMs`; this bound only ends one that trickles forever.
 */
export const BODY_TIME_LIMIT_FACTOR = 20;

/** Undici's own timeouts (see BODY_TIME_LIMIT_FACTOR): no answer, or a pause in the body, too long. */
const UNDICI_TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export async function attemptRequest<T>(
  request: PreparedRequest,
  consume: (response: Response) => Promise<T>,
  attempt: number,
  env: AttemptEnvironment,
): Promise<AttemptOutcome<T>> {
  const { target } = request;
  const deadline = new AttemptDeadline(env.timeoutMs);
  const signal = env.signal ? AbortSignal.any([env.signal, deadline.signal]) : deadline.signal;
  let response: Response;
  try {
    response = await env.fetch(request.url, { ...request.init, signal });
  } catch (error) {
    deadline.clear();
    return classifyThrown(error, 'request', undefined, request, attempt, env, deadline.signal);
  }
  // The answer has started: from here the body may take longer, as long as it keeps coming.
  deadline.extend(env.timeoutMs * BODY_TIME_LIMIT_FACTOR);
  try {
    if (response.status < 200 || response.status > 299) {
      return await classifyStatus(response, target, attempt, env, signal);
    }
    try {
      return { ok: true, value: await consume(response) };
    } catch (error) {
      return classifyThrown(error, 'body', response.status, request, attempt, env, deadline.signal);
    } finally {
      await discardBody(response);
    }
  } finally {
    deadline.clear();
  }
}

/** One attempt's time limit: an abort signal whose deadline can be moved once the answer starts. */
class AttemptDeadline {
  readonly #controller = new AbortController();
  #timer: NodeJS.Timeout;

  constructor(ms: number) {
    this.#timer = this.#arm(ms);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  extend(ms: number): void {
    clearTimeout(this.#timer);
    this.#timer = this.#arm(ms);
  }

  clear(): void {
    clearTimeout(this.#timer);
  }

  #arm(ms: number): NodeJS.Timeout {
    const timer = setTimeout(
      () => this.#controller.abort(new DOMException('The attempt took too long', 'TimeoutError')),
      ms,
    );
    // A pending deadline must not keep the process alive on its own.
    timer.unref();
    return timer;
  }
}

async function classifyStatus(
  response: Response,
  target: RequestTarget,
  attempt: number,
  env: AttemptEnvironment,
  signal: AbortSignal,
): Promise<AttemptOutcome<never>> {
  const status = response.status;
  const text = await readCapped(response, ERROR_BODY_LIMIT, signal);
  if (env.signal?.aborted) return fatal(abortReason(env.signal));
  const fields: HttpErrorFields = {
    status,
    statusText: response.statusText,
    ...readErrorBody(env.redact(text)),
    location: response.headers.get('location') ?? undefined,
  };
  const error = httpErrorFor(target, fields, attempt, env.apiVersion(), env.tokenSource);
  const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), env.clock());
  const reason = `${status}${response.statusText ? ` ${response.statusText}` : ''}${
    retryAfterMs !== undefined ? ` (Retry-After ${formatSeconds(retryAfterMs)})` : ''
  }`;
  if (status === 429) return { ok: false, error, retryable: true, retryAfterMs, reason };
  if (GATEWAY_STATUSES.has(status)) {
    if (target.method === 'PATCH') {
      const said = fields.detail ?? fields.bodySnippet;
      const suffix = said ? ` ("${textSnippet(said)}")` : '';
      return fatal(
        new OutcomeUnknownError(target, `the gateway answered ${reason}${suffix}`, status, attempt),
      );
    }
    return { ok: false, error, retryable: true, retryAfterMs, reason };
  }
  return fatal(error);
}

function classifyThrown(
  error: unknown,
  phase: 'request' | 'body',
  status: number | undefined,
  request: PreparedRequest,
  attempt: number,
  env: AttemptEnvironment,
  timeout: AbortSignal,
): AttemptOutcome<never> {
  const { target } = request;
  if (env.signal?.aborted) return fatal(abortReason(env.signal));
  const isPatch = target.method === 'PATCH';
  const blockedPort = phase === 'request' ? blockedPortOf(error, request.url) : undefined;
  if (blockedPort !== undefined) return fatal(new BlockedPortError(target, blockedPort, attempt, error));
  if (timeout.aborted || UNDICI_TIMEOUT_CODES.has(networkCode(error) ?? '')) {
    const reason =
      phase === 'request'
        ? `no answer within ${env.timeoutMs} ms`
        : `the body paused for more than ${env.timeoutMs} ms or took more than ${env.timeoutMs * BODY_TIME_LIMIT_FACTOR} ms in all`;
    if (isPatch)
      return fatal(new OutcomeUnknownError(target, `timed out (${reason})`, status, attempt, error));
    return {
      ok: false,
      error: new TimeoutError(target, env.timeoutMs, attempt, phase === 'body' ? reason : undefined),
      retryable: true,
      reason: 'timeout',
    };
  }
  const code = networkCode(error);
  if (code === undefined) {
    // Not a transport failure: an error of the caller's `consume` (e.g. a full disk). Not ours to retry.
    return fatal(error instanceof Error ? error : new Error(String(error)));
  }
  if (phase === 'body') {
    if (isPatch) {
      const reason = `the service answered ${status}, so the change was most likely applied, but the response body was cut off`;
      return fatal(new OutcomeUnknownError(target, reason, status, attempt, error));
    }
    const what = `the response body (status ${status}) was cut off before its end`;
    return {
      ok: false,
      error: new NetworkError(target, what, code, attempt, error),
      retryable: true,
      reason: `body cut off (${code})`,
    };
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return dnsFailure(code, request, attempt, error);
  const notSent = NOT_SENT_CODES.has(code);
  const what = notSent
    ? 'could not connect to the service'
    : 'the connection failed before an answer arrived';
  if (isPatch && !notSent) {
    return fatal(new OutcomeUnknownError(target, `${what} (${code})`, undefined, attempt, error));
  }
  return {
    ok: false,
    error: new NetworkError(target, what, code, attempt, error),
    retryable: true,
    reason: `network error ${code}`,
  };
}

/** A host name that does not resolve: nothing was sent, so even a PATCH is safe to repeat (EAI_AGAIN). */
function dnsFailure(
  code: 'ENOTFOUND' | 'EAI_AGAIN',
  request: PreparedRequest,
  attempt: number,
  cause: unknown,
): AttemptOutcome<never> {
  const host = new URL(request.url).hostname;
  if (code === 'ENOTFOUND') {
    const what = `the host name ${host} does not exist (DNS lookup found no such name)`;
    return fatal(new NetworkError(request.target, what, code, attempt, cause));
  }
  const what = `the host name ${host} could not be resolved (DNS server did not answer)`;
  return {
    ok: false,
    error: new NetworkError(request.target, what, code, attempt, cause),
    retryable: attempt < DNS_TEMPORARY_MAX_ATTEMPTS,
    reason: `DNS lookup of ${host} failed (${code})`,
  };
}

function fatal(error: Error): AttemptOutcome<never> {
  return { ok: false, error, retryable: false, reason: error.message };
}

/**
 * The transport error code of a failed fetch or body read, or undefined when the error is not a
 * transport failure. undici reports them as `TypeError('fetch failed' | 'terminated')` with the socket
 * error (code ECONNREFUSED, UND_ERR_SOCKET, …) as its cause.
 */
function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  let undiciWrapper = false;
  for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || code.startsWith('UND_ERR_'))) return code;
    if (
      current instanceof TypeError &&
      (current.message === 'fetch failed' || current.message === 'terminated')
    ) {
      undiciWrapper = true;
    }
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors)) {
      const inner = errors.map(networkCode).find((c) => c !== undefined);
      if (inner) return inner;
    }
    current = current.cause;
  }
  return undiciWrapper ? 'UND_ERR' : undefined;
}

/**
 * The port of `url` when fetch refused it as a "bad port" (the Fetch standard's blocked list), else
 * undefined. undici says so only by the message of a code-less Error in the cause chain.
 */
function blockedPortOf(error: unknown, url: string): number | undefined {
  let current: unknown = error;
  let refused = false;
  for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
    if (current.message === 'bad port' && (current as { code?: unknown }).code === undefined) refused = true;
    current = current.cause;
  }
  if (!refused) return undefined;
  const parsed = new URL(url);
  return Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
}

/** Reads at most `limit` bytes of a body as text; a body that breaks off yields what arrived. */
async function readCapped(response: Response, limit: number, signal: AbortSignal): Promise<string> {
  const body = response.body;
  if (!body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  try {
    while (size < limit && !signal.aborted) {
      const chunk = (await reader.read()) as { done: boolean; value?: unknown };
      if (chunk.done) break;
      if (!(chunk.value instanceof Uint8Array)) continue;
      chunks.push(chunk.value);
      size += chunk.value.byteLength;
    }
  } catch {
    // A cut-off error body still leaves its status, which is what matters.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, limit));
}

/** Frees the connection when `consume` left the body unread (or half read). */
async function discardBody(response: Response): Promise<void> {
  const body = response.body;
  if (!body || body.locked) return;
  await body.cancel().catch(() => undefined);
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
