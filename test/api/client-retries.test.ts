/**
 * Retry behaviour against a real HTTP server on 127.0.0.1. Waits go through an injected sleep that
 * records the delay and returns at once, so Retry-After and backoff are asserted as computed values,
 * never as measured time.
 */
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createApiClient,
  type ApiClient,
  type ApiClientOptions,
  type RetryEvent,
} from '../../src/api/client.js';
import {
  HttpError,
  isOutcomeUnknownError,
  NetworkError,
  OutcomeUnknownError,
  TimeoutError,
} from '../../src/api/errors.js';
import { abortableSleep } from '../../src/api/retry.js';
import { autoRefillBody, configBody, findingBody, TOKEN } from './helpers/bodies.js';
import {
  envelope,
  sequence,
  startScriptServer,
  type Script,
  type ScriptServer,
} from './helpers/script-server.js';
import { caught } from '../helpers/caught.js';

const FINDING = '00000000-0000-4000-8000-00000000f001';
const AUTO_REFILL = { enabled: true, monthly_cap: 5, quantity: 2, threshold: 5000 };

let servers: ScriptServer[] = [];
let client: ApiClient | undefined;

afterEach(async () => {
  await client?.close();
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  client = undefined;
});

interface Harness {
  api: ApiClient;
  server: ScriptServer;
  delays: number[];
  events: RetryEvent[];
}

async function setup(script: Script, options: Partial<ApiClientOptions> = {}): Promise<Harness> {
  const server = await startScriptServer(script);
  servers.push(server);
  const delays: number[] = [];
  const events: RetryEvent[] = [];
  client = createApiClient({
    baseUrl: server.url,
    token: TOKEN,
    sleep: (ms) => {
      delays.push(ms);
      return Promise.resolve();
    },
    random: () => 0.5,
    timeoutMs: 2_000,
    onRetry: (event) => events.push(event),
    ...options,
  });
  return { api: client, server, delays, events };
}

const rateLimited = (retryAfter: string) => ({
  ...envelope(429, 'usage_limit_exceeded_error', 'Slow down'),
  headers: { 'retry-after': retryAfter },
});

describe('Retry-After', () => {
  it('honours delta-seconds', async () => {
    const { api, delays, events } = await setup(
      sequence(rateLimited('3'), rateLimited('0'), { body: configBody() }),
    );
    const { value } = await api.getConfig();
    expect(value.app_version).toBe('2026.2.1');
    expect(delays).toEqual([3000, 0]);
    expect(events.map((e) => [e.attempt, e.delayMs])).toEqual([
      [1, 3000],
      [2, 0],
    ]);
    expect(events[0]?.reason).toContain('429');
    expect(events[0]?.path).toBe('/api/v1/config');
  });

  it('honours an HTTP-date, measured against the injected wall clock', async () => {
    const now = Date.parse('2026-03-01T12:00:00Z');
    const { api, delays } = await setup(
      sequence(rateLimited('Sun, 01 Mar 2026 12:00:07 GMT'), rateLimited('Sun, 01 Mar 2026 11:00:00 GMT'), {
        body: configBody(),
      }),
      { now: () => new Date(now) },
    );
    await api.getConfig();
    expect(delays).toEqual([7000, 0]); // a date in the past means "now"
  });

  it('is cut to the remaining time budget', async () => {
    let clock = 0;
    const { api, delays } = await setup(sequence(rateLimited('3600'), { body: configBody() }), {
      retry: { maxElapsedMs: 5_000 },
      monotonicNow: () => clock,
      sleep: (ms) => {
        delays.push(ms);
        clock += ms;
        return Promise.resolve();
      },
    });
    await api.getConfig();
    expect(delays).toEqual([5000]);
  });

  it('without Retry-After the wait is full-jitter exponential backoff, capped', async () => {
    const { api, delays } = await setup(sequence({ status: 502 }), {
      retry: { maxAttempts: 6, baseDelayMs: 100, maxDelayMs: 500 },
      random: () => 0.5,
    });
    const error = await caught(api.getConfig());
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).attempts).toBe(6);
    // ceilings 100, 200, 400, 500, 500 → half of each with random() = 0.5
    expect(delays).toEqual([50, 100, 200, 250, 250]);
  });
});

describe('GET and PUT are retried', () => {
  it('on 429, 502 and 504, then succeed', async () => {
    const { api, server } = await setup(
      sequence(
        rateLimited('0'),
        { status: 502, body: '<h1>bad gateway</h1>' },
        envelope(504, 'gateway_timeout_error', 'x'),
        {
          body: autoRefillBody(),
        },
      ),
    );
    const { value } = await api.configureAutoRefill('acme', AUTO_REFILL);
    expect(value.threshold).toBe(5000);
    expect(server.requests).toHaveLength(4);
    expect(server.requests.map((r) => [r.method, r.body])).toEqual(
      Array.from({ length: 4 }, () => ['PUT', JSON.stringify(AUTO_REFILL)]),
    );
  });

  it('when the body is cut off mid-stream', async () => {
    const { api, server, events } = await setup(
      sequence({ body: configBody(), cut: true }, { body: configBody() }),
    );
    const { value } = await api.getConfig();
    expect(value.api_version).toBe('1.7.0');
    expect(server.requests).toHaveLength(2);
    expect(events[0]?.reason).toContain('body cut off');
  });

  it('a cut body through send(): consume runs again from scratch', async () => {
    const { api } = await setup(sequence({ body: configBody(), cut: true }, { body: configBody() }));
    const starts: number[] = [];
    const text = await api.send({ method: 'GET', path: '/api/v1/config', auth: false }, async (response) => {
      starts.push(response.status);
      return response.text();
    });
    expect(JSON.parse(text)).toEqual(configBody());
    expect(starts).toEqual([200, 200]);
  });

  it('when the connection is reset before an answer', async () => {
    const { api, server } = await setup(sequence({ reset: true }, { body: configBody() }));
    await api.getConfig();
    expect(server.requests).toHaveLength(2);
  });

  it('on timeout, and give up with TimeoutError after maxAttempts', async () => {
    const { api, server, events } = await setup(sequence({ hang: true }), {
      timeoutMs: 150,
      retry: { maxAttempts: 2 },
    });
    const error = await caught(api.getConfig());
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.message).toContain('GET /api/v1/config timed out after 150 ms (after 2 attempts)');
    expect(server.requests).toHaveLength(2);
    expect(events[0]?.reason).toBe('timeout');
  });

  it('never after a 4xx other than 429', async () => {
    const { api, server } = await setup(sequence(envelope(404, 'not_found_error', 'No such project')));
    await caught(api.getProjectSummary('acme', 'main', 'nope'));
    expect(server.requests).toHaveLength(1);
  });

  it('within maxAttempts: the last error is thrown', async () => {
    const { api, server } = await setup(sequence(rateLimited('1')), { retry: { maxAttempts: 3 } });
    const error = (await caught(api.getConfig())) as HttpError;
    expect(error.status).toBe(429);
    expect(error.message).toContain('after 3 attempts');
    expect(server.requests).toHaveLength(3);
  });
});

describe('PATCH is repeated only when it certainly did not take effect', () => {
  const patch = (api: ApiClient) =>
    api.updateFinding('acme', 'main', FINDING, { finding_status: 'false_positive' });

  for (const [label, reply] of [
    ['502', { status: 502, body: '<html><body>upstream died</body></html>' }],
    ['504', envelope(504, 'gateway_timeout_error', 'upstream timed out')],
    ['a reset connection', { reset: true }],
    ['a cut-off 200 body', { body: findingBody(FINDING), cut: true }],
  ] as const) {
    it(`after ${label}: OutcomeUnknownError, one request only`, async () => {
      const { api, server } = await setup(sequence(reply, { body: findingBody(FINDING) }));
      const error = await caught(patch(api));
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      expect(isOutcomeUnknownError(error)).toBe(true);
      expect(error.message).toContain(
        `PATCH /api/v1/org/acme/ws/main/airt/findings/${FINDING}: outcome unknown`,
      );
      expect(error.message).toContain('may or may not have been applied');
      expect(server.requests).toHaveLength(1);
    });
  }

  it('after a timeout: OutcomeUnknownError, one request only', async () => {
    const { api, server } = await setup(sequence({ hang: true }), { timeoutMs: 150 });
    const error = await caught(patch(api));
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error.message).toContain('timed out');
    expect(server.requests).toHaveLength(1);
  });

  it('after 429: repeated (rate limiting happens before the update)', async () => {
    const { api, server, delays } = await setup(sequence(rateLimited('2'), { body: findingBody(FINDING) }));
    const { value } = await patch(api);
    expect(value.finding_status).toBe('false_positive');
    expect(server.requests).toHaveLength(2);
    expect(server.requests.map((r) => r.body)).toEqual([
      '{"finding_status":"false_positive"}',
      '{"finding_status":"false_positive"}',
    ]);
    expect(delays).toEqual([2000]);
  });

  it('after connection refused: repeated (nothing was sent)', async () => {
    // Reserve a port, free it, and bring a server up on it only during the client's first wait.
    const probe = await startScriptServer(sequence({}));
    const port = probe.port;
    await probe.close();
    let late: ScriptServer | undefined;
    const delays: number[] = [];
    client = createApiClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: TOKEN,
      random: () => 0.5,
      sleep: async (ms) => {
        delays.push(ms);
        late ??= await startScriptServer(sequence({ body: findingBody(FINDING) }), port);
        servers.push(late);
      },
    });
    const { value } = await patch(client);
    expect(value.id).toBe(FINDING);
    expect(delays).toHaveLength(1);
    expect(late?.requests).toHaveLength(1);
  });

  it('connection refused on every attempt ends in NetworkError naming ECONNREFUSED', async () => {
    const probe = await startScriptServer(sequence({}));
    await probe.close();
    client = createApiClient({
      baseUrl: probe.url,
      token: TOKEN,
      retry: { maxAttempts: 3 },
      sleep: () => Promise.resolve(),
    });
    const error = await caught(client.getConfig());
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe('ECONNREFUSED');
    expect(error.message).toContain('GET /api/v1/config failed (after 3 attempts): could not connect');
  });
});

describe('cancellation', () => {
  it('aborting the signal stops a wait at once and throws the signal reason', async () => {
    const controller = new AbortController();
    const { api, server } = await setup(sequence(rateLimited('3600')), {
      signal: controller.signal,
      sleep: abortableSleep, // the real timer: the test shows it is cut short
    });
    const pending = api.getConfig();
    // Abort once the first attempt has been answered and the client is waiting an hour.
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 20));
    controller.abort(new Error('stop now'));
    const error = await caught(pending);
    expect(error.message).toBe('stop now');
    expect(server.requests).toHaveLength(1);
  });

  it('aborting stops a request in flight and is not retried', async () => {
    const controller = new AbortController();
    const { api, server } = await setup(sequence({ hang: true }), { signal: controller.signal });
    const pending = api.getConfig();
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort(new Error('user pressed ctrl-c'));
    expect((await caught(pending)).message).toBe('user pressed ctrl-c');
    expect(server.requests).toHaveLength(1);
  });
});

describe('requests', () => {
  it('Authorization on operations 1-5, none on config; Accept, User-Agent and JSON Content-Type', async () => {
    const { api, server } = await setup((request) => {
      if (request.url === '/api/v1/config') return { body: configBody() };
      if (request.method === 'PATCH') return { body: findingBody(FINDING) };
      if (request.method === 'PUT') return { body: autoRefillBody() };
      if (request.url.includes('/traces/trials')) return { body: [] };
      if (request.url.includes('/evaluations'))
        return { body: { items: [], page: 1, page_size: 20, total: 0 } };
      return { status: 500 };
    });
    await api.getConfig();
    await api.updateFinding('acme', 'main', FINDING, { notes: 'checked' });
    await api.configureAutoRefill('acme', AUTO_REFILL);
    await api.listEvaluations('acme', 'main', { projectId: FINDING, status: 'completed' });
    await api.listTrials('acme', 'main', FINDING, { jailbreaksOnly: true, limit: 50 });
    await caught(api.getProjectSummary('acme', 'main', 'p'));
    const [config, ...authed] = server.requests;
    expect(config?.headers.authorization).toBeUndefined();
    expect(authed).toHaveLength(5);
    for (const request of authed) expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
    for (const request of server.requests) {
      expect(request.headers.accept).toBe('application/json');
      expect(request.headers['user-agent']).toMatch(/^airt-report\/\d+\.\d+\.\d+/);
    }
    expect(server.requests.map((r) => [r.method, r.url, r.headers['content-type'] ?? null, r.body])).toEqual([
      ['GET', '/api/v1/config', null, ''],
      [
        'PATCH',
        `/api/v1/org/acme/ws/main/airt/findings/${FINDING}`,
        'application/json',
        '{"notes":"checked"}',
      ],
      ['PUT', '/api/v1/org/acme/credits/auto-refill', 'application/json', JSON.stringify(AUTO_REFILL)],
      ['GET', `/api/v1/org/acme/ws/main/evaluations?project_id=${FINDING}&status=completed`, null, ''],
      [
        'GET',
        `/api/v1/org/acme/ws/main/airt/assessments/${FINDING}/traces/trials?jailbreaks_only=true&limit=50`,
        null,
        '',
      ],
      ['GET', '/api/v1/org/acme/ws/main/airt/projects/p/summary', null, ''],
    ]);
  });

  it('keeps connections alive and never exceeds the concurrency limit', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { api, server } = await setup(
      async () => {
        await gate;
        return { body: configBody() };
      },
      { concurrency: 3 },
    );
    const all = Promise.all(Array.from({ length: 12 }, () => api.getConfig()));
    while (server.requests.length < 3) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 30));
    expect(server.requests).toHaveLength(3); // the other nine wait for a slot
    release();
    await all;
    expect(server.requests).toHaveLength(12);
    expect(server.maxInFlight()).toBeLessThanOrEqual(3);
    expect(new Set(server.requests.map((r) => r.connection)).size).toBeLessThanOrEqual(3);
  });

  it('percent-encodes path segments from data and refuses dot segments', async () => {
    const { api, server } = await setup(sequence(envelope(404, 'not_found_error', 'no')));
    await caught(api.getProjectSummary('ac/me', 'm?a#in', 'p q'));
    expect(server.requests[0]?.url).toBe('/api/v1/org/ac%2Fme/ws/m%3Fa%23in/airt/projects/p%20q/summary');
    await expect(api.getProjectSummary('acme', 'main', '..')).rejects.toThrow(/dot segment/);
    await expect(api.listTrials('acme', '.', 'x')).rejects.toThrow(/dot segment/);
    expect(server.requests).toHaveLength(1);
  });
});

describe('a raw node:http check that the simulated cut really breaks the body', () => {
  it('the scripted cut closes the socket before Content-Length bytes arrive', async () => {
    const { server } = await setup(sequence({ body: configBody(), cut: true }));
    const received = await new Promise<{ length: number; declared: number }>((resolve) => {
      http.get(`${server.url}/x`, (res) => {
        let length = 0;
        res.on('data', (chunk: Buffer) => (length += chunk.length));
        res.on('error', () => undefined);
        res.on('close', () => resolve({ length, declared: Number(res.headers['content-length']) }));
      });
    });
    expect(received.length).toBeLessThan(received.declared);
  });
});
