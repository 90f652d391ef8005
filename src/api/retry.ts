/**
 * When and how long to wait before repeating a request. The decision *whether* an attempt may be
 * repeated belongs to the client (it depends on the method: a PATCH is repeated only when it certainly
 * did not reach the service); this module owns the waiting: capped exponential backoff with full
 * jitter, `Retry-After` in both forms, and the two bounds (attempts and total elapsed time).
 */
import { terminalSafe } from '../text-safety.js';

/** How persistent the client is. Every bound applies to one logical request. */
export interface RetryPolicy {
  /** Attempts in total, the first included (1 = never retry). */
  maxAttempts: number;
  /** Backoff ceiling of the first retry; doubles with each further retry. */
  baseDelayMs: number;
  /** Ceiling of one computed backoff (a server's Retry-After may ask for longer). */
  maxDelayMs: number;
  /** No retry starts after this much time since the first attempt; waits are cut to fit. */
  maxElapsedMs: number;
}

/** 6 attempts, 200 ms base, 10 s cap, 120 s in total. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 6,
  baseDelayMs: 200,
  maxDelayMs: 10_000,
  maxElapsedMs: 120_000,
});

/** Emitted before each wait, for progress output (`retrying GET … in 1.2 s: 502 Bad Gateway`). */
export interface RetryEvent {
  method: string;
  /** Request path with query string. */
  path: string;
  /** The attempt that just failed (1-based). */
  attempt: number;
  /** How long the client waits before the next attempt. */
  delayMs: number;
  /** Why the attempt failed, e.g. `429 Too Many Requests (Retry-After 2 s)`. */
  reason: string;
}

/**
 * The one line every command prints before a retry wait:
 * `Retrying GET /api/v1/config in 1.2 s (attempt 1 failed: 429 Too Many Requests)`. The service's
 * reason passes through the text-safety rule (one line, unsafe characters shown, at most 200 chars).
 */
export function formatRetryEvent(event: RetryEvent): string {
  return (
    `Retrying ${event.method} ${terminalSafe(event.path, 500)} in ${(event.delayMs / 1000).toFixed(1)} s ` +
    `(attempt ${event.attempt} failed: ${terminalSafe(event.reason, 200)})`
  );
}

/** Fills a partial policy from the defaults and rejects values that would make the loop unbounded. */
export function resolveRetryPolicy(partial: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...definedOnly(partial) };
  const check = (name: keyof RetryPolicy, min: number): void => {
    const value = policy[name];
    if (!Number.isFinite(value) || value < min) {
      throw new RangeError(`retry.${name} must be a finite number >= ${min}, got ${value}`);
    }
  };
  check('maxAttempts', 1);
  check('baseDelayMs', 0);
  check('maxDelayMs', 0);
  check('maxElapsedMs', 0);
  policy.maxAttempts = Math.floor(policy.maxAttempts);
  return policy;
}

function definedOnly(partial: Partial<RetryPolicy>): Partial<RetryPolicy> {
  return Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined));
}

/**
 * Full jitter (uniform between 0 and the capped exponential ceiling): spreads clients that failed
 * together so they do not retry together. `failedAttempt` is 1 for the first retry's wait.
 */
export function backoffDelay(failedAttempt: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, failedAttempt - 1));
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(r * ceiling);
}

/**
 * `Retry-After` as milliseconds to wait: delta-seconds (`120`) or an HTTP-date
 * (`Wed, 21 Oct 2015 07:28:00 GMT`, measured against `nowMs`, 0 when already past). Undefined when
 * absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The error an aborted signal stands for (its reason, or a generic AbortError). */
export function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error) return reason;
  return new DOMException('The operation was aborted', 'AbortError');
}

/** What one attempt produced: a value, or an error with whether and when it may be repeated. */
export type AttemptOutcome<T> =
  | { ok: true; value: T }
  | { ok: false; error: Error; retryable: boolean; retryAfterMs?: number | undefined; reason: string };

export interface RetryLoopContext {
  method: string;
  path: string;
  policy: RetryPolicy;
  random: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
  signal?: AbortSignal | undefined;
  onRetry?: ((event: RetryEvent) => void) | undefined;
}

/**
 * Runs attempts until one succeeds, one fails for good, or a bound is reached; then throws the last
 * attempt's error. Bounded by `maxAttempts`; each wait is cut to the time left of `maxElapsedMs`, and
 * no attempt starts once that budget is spent. A server's Retry-After replaces the computed backoff.
 */
export async function runWithRetry<T>(
  attempt: (attemptNumber: number) => Promise<AttemptOutcome<T>>,
  context: RetryLoopContext,
): Promise<T> {
  const { policy, signal } = context;
  const startedAt = context.now();
  for (let attemptNumber = 1; ; attemptNumber++) {
    if (signal?.aborted) throw abortReason(signal);
    const outcome = await attempt(attemptNumber);
    if (outcome.ok) return outcome.value;
    if (!outcome.retryable || attemptNumber >= policy.maxAttempts) throw outcome.error;
    const remainingMs = policy.maxElapsedMs - (context.now() - startedAt);
    if (remainingMs <= 0) throw outcome.error;
    const wanted = outcome.retryAfterMs ?? backoffDelay(attemptNumber, policy, context.random);
    const delayMs = Math.max(0, Math.min(wanted, remainingMs));
    context.onRetry?.({
      method: context.method,
      path: context.path,
      attempt: attemptNumber,
      delayMs,
      reason: outcome.reason,
    });
    await context.sleep(delayMs, signal);
    if (signal?.aborted) throw abortReason(signal);
  }
}
