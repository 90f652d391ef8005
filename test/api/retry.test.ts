/** The waiting rules on their own: backoff, Retry-After parsing, policy checks and the loop's bounds. */
import { describe, expect, it } from 'vitest';
import { readErrorBody, redactSecret, textSnippet } from '../../src/api/error-body.js';
import { apiPaths } from '../../src/api/paths.js';
import {
  abortableSleep,
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  resolveRetryPolicy,
  runWithRetry,
  type AttemptOutcome,
} from '../../src/api/retry.js';

describe('backoffDelay', () => {
  const policy = { maxAttempts: 10, baseDelayMs: 200, maxDelayMs: 1000, maxElapsedMs: 60_000 };
  it('is uniform below a doubling ceiling that stops at maxDelayMs', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, policy, () => 0.999999))).toEqual([
      200, 400, 800, 1000, 1000,
    ]);
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
    expect(backoffDelay(3, policy, () => 0.25)).toBe(200);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  it('reads delta-seconds and HTTP-dates', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(' 12 ', now)).toBe(12_000);
    expect(parseRetryAfter('Sun, 01 Mar 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 01 Mar 2026 11:59:00 GMT', now)).toBe(0);
  });
  it('ignores absent and unreadable values', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
  });
});

describe('resolveRetryPolicy', () => {
  it('fills from the defaults and refuses unbounded values', () => {
    expect(resolveRetryPolicy({ maxAttempts: 2 })).toEqual({ ...DEFAULT_RETRY_POLICY, maxAttempts: 2 });
    expect(() => resolveRetryPolicy({ maxAttempts: 0 })).toThrow(/maxAttempts/);
    expect(() => resolveRetryPolicy({ maxElapsedMs: Number.POSITIVE_INFINITY })).toThrow(/maxElapsedMs/);
  });
});

describe('runWithRetry', () => {
  const failing: AttemptOutcome<never> = {
    ok: false,
    error: new Error('busy'),
    retryable: true,
    reason: 'busy',
  };

  it('stops starting attempts once the elapsed budget is spent, cutting the last wait to fit', async () => {
    let clock = 0;
    const delays: number[] = [];
    let attempts = 0;
    const run = runWithRetry(
      () => {
        attempts++;
        return Promise.resolve(failing);
      },
      {
        method: 'GET',
        path: '/x',
        policy: { maxAttempts: 100, baseDelayMs: 400, maxDelayMs: 400, maxElapsedMs: 1000 },
        random: () => 1,
        now: () => clock,
        sleep: (ms) => {
          delays.push(ms);
          clock += ms;
          return Promise.resolve();
        },
      },
    );
    await expect(run).rejects.toThrow('busy');
    expect(delays).toEqual([400, 400, 200]);
    expect(attempts).toBe(4);
  });

  it('does not repeat a non-retryable outcome', async () => {
    let attempts = 0;
    const run = runWithRetry(
      () => {
        attempts++;
        return Promise.resolve<AttemptOutcome<never>>({ ...failing, retryable: false });
      },
      {
        method: 'PATCH',
        path: '/x',
        policy: DEFAULT_RETRY_POLICY,
        random: () => 0,
        now: () => 0,
        sleep: () => Promise.resolve(),
      },
    );
    await expect(run).rejects.toThrow('busy');
    expect(attempts).toBe(1);
  });
});

describe('abortableSleep', () => {
  it('rejects with the signal reason as soon as it aborts', async () => {
    const controller = new AbortController();
    const sleeping = abortableSleep(3_600_000, controller.signal);
    controller.abort(new Error('bye'));
    await expect(sleeping).rejects.toThrow('bye');
  });
});

describe('error bodies', () => {
  it('strips tags, scripts and control characters from snippets', () => {
    expect(textSnippet('<p>a\u001b[31mb</p><script>evil()</script> \u202e c')).toBe(
      'a\\u{001b}[31mb \\u{202e} c',
    );
  });
  it('keeps envelope fields independently and keeps non-envelope JSON as a snippet', () => {
    expect(readErrorBody('{"detail":"x","type":5}')).toEqual({ detail: 'x' });
    expect(readErrorBody('[1,2]')).toEqual({ bodySnippet: '[1,2]' });
    expect(readErrorBody('   ')).toEqual({});
  });
  it('redacts a secret in raw and JSON-escaped form', () => {
    expect(redactSecret('a tok"en b', 'tok"en')).toBe('a [redacted] b');
    expect(redactSecret(JSON.stringify({ t: 'tok"en' }), 'tok"en')).toBe('{"t":"[redacted]"}');
  });
});

describe('apiPaths', () => {
  it('builds the spec paths with every segment encoded', () => {
    expect(apiPaths.config()).toBe('/api/v1/config');
    expect(apiPaths.summary('acme', 'main', 'p')).toBe('/api/v1/org/acme/ws/main/airt/projects/p/summary');
    expect(apiPaths.finding('a', 'w', 'id')).toBe('/api/v1/org/a/ws/w/airt/findings/id');
    expect(apiPaths.autoRefill('a b')).toBe('/api/v1/org/a%20b/credits/auto-refill');
    expect(apiPaths.evaluations('a', 'w')).toBe('/api/v1/org/a/ws/w/evaluations');
    expect(apiPaths.trials('a', 'w', '../x')).toBe(
      '/api/v1/org/a/ws/w/airt/assessments/..%2Fx/traces/trials',
    );
  });
  it('refuses empty and dot segments', () => {
    for (const bad of ['', '.', '..']) {
      expect(() => apiPaths.summary('acme', 'main', bad)).toThrow(/cannot be used in a request path/);
    }
    expect(apiPaths.summary('acme', 'main', '%2e%2e')).toBe(
      '/api/v1/org/acme/ws/main/airt/projects/%252e%252e/summary',
    );
  });
});
