/**
 * What the client's timeout bounds, against a real HTTP server on 127.0.0.1: the wait for an answer to
 * start and every pause while a body arrives, not the whole transfer (a large trial list over a slow
 * link kept being cut off and fetched again from zero every 30 s, so it could never be fetched), and a
 * body that trickles forever still ends (BODY_TIME_LIMIT_FACTOR).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient, type ApiClientOptions } from '../../src/api/client.js';
import { TimeoutError } from '../../src/api/errors.js';
import { BODY_TIME_LIMIT_FACTOR } from '../../src/api/attempt.js';
import { configBody, TOKEN } from './helpers/bodies.js';
import { sequence, startScriptServer, type Script, type ScriptServer } from './helpers/script-server.js';
import { caught } from '../helpers/caught.js';

let servers: ScriptServer[] = [];
let client: ApiClient | undefined;

afterEach(async () => {
  await client?.close();
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  client = undefined;
});

async function setup(
  script: Script,
  options: Partial<ApiClientOptions>,
): Promise<{ api: ApiClient; server: ScriptServer }> {
  const server = await startScriptServer(script);
  servers.push(server);
  client = createApiClient({
    baseUrl: server.url,
    token: TOKEN,
    sleep: () => Promise.resolve(),
    random: () => 0.5,
    ...options,
  });
  return { api: client, server };
}

describe('the request timeout', () => {
  it('lets a body that keeps arriving take longer than the timeout, in one request', async () => {
    // 10 pieces 100 ms apart: ~1 s in all, never a pause near the 400 ms timeout.
    const { api, server } = await setup(
      sequence({ body: configBody(), drip: { pieces: 10, everyMs: 100 } }),
      {
        timeoutMs: 400,
        retry: { maxAttempts: 3 },
      },
    );
    const { value } = await api.getConfig();
    expect(value.api_version).toBe(configBody().api_version);
    expect(server.requests).toHaveLength(1);
  });

  it('ends a body that pauses longer than the timeout, and says so', async () => {
    const { api, server } = await setup(sequence({ body: configBody(), stall: true }), {
      timeoutMs: 200,
      retry: { maxAttempts: 2 },
    });
    const error = await caught(api.getConfig());
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.message).toContain('GET /api/v1/config timed out (the body paused for more than 200 ms');
    expect(error.message).toContain('(after 2 attempts)');
    expect(server.requests).toHaveLength(2);
  });

  it(`ends a body that trickles forever after ${BODY_TIME_LIMIT_FACTOR}x the timeout`, async () => {
    // A space every 20 ms: never a pause of 100 ms, so only the body's time limit (2 s) ends it.
    const { api, server } = await setup(
      sequence({ body: configBody(), drip: { pieces: Infinity, everyMs: 20 } }),
      {
        timeoutMs: 100,
        retry: { maxAttempts: 1 },
      },
    );
    const error = await caught(api.getConfig());
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.message).toContain(`took more than ${100 * BODY_TIME_LIMIT_FACTOR} ms in all`);
    expect(server.requests).toHaveLength(1);
  });

  it('still bounds the wait for an answer to start by the timeout itself', async () => {
    const { api } = await setup(sequence({ hang: true }), { timeoutMs: 150, retry: { maxAttempts: 1 } });
    const error = await caught(api.getConfig());
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.message).toContain('GET /api/v1/config timed out after 150 ms');
  });
});
