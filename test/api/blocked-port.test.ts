/**
 * A base URL on a port fetch itself refuses (the Fetch standard's "bad port" list, e.g. 9 or 6000):
 * undici throws before anything is sent, so the client must fail at once with a usage error that
 * names the port — not retry a network error, and for a PATCH not claim the outcome is unknown.
 * Nothing listens on these ports; fetch never opens a connection to them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../src/api/client.js';
import { BlockedPortError, isOutcomeUnknownError } from '../../src/api/errors.js';
import { recordingIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { EXIT } from '../../src/errors.js';
import { TOKEN } from './helpers/bodies.js';
import { caught } from '../helpers/caught.js';

const FINDING = '00000000-0000-4000-8000-00000000f001';

let client: ApiClient | undefined;

afterEach(async () => {
  await client?.close();
  client = undefined;
});

function blockedClient(port: number, waits: number[]): ApiClient {
  client = createApiClient({
    baseUrl: `http://127.0.0.1:${port}`,
    token: TOKEN,
    retry: { maxAttempts: 6 },
    random: () => 0.5,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
  });
  return client;
}

describe('a port fetch blocks', () => {
  it('fails a GET on the first attempt with a usage error naming the port', async () => {
    const waits: number[] = [];
    const error = await caught(blockedClient(6000, waits).getConfig());
    expect(error).toBeInstanceOf(BlockedPortError);
    expect((error as BlockedPortError).exitCode).toBe(EXIT.usage);
    expect((error as BlockedPortError).attempts).toBe(1);
    expect((error as BlockedPortError).port).toBe(6000);
    expect(error.message).toContain('port 6000 is blocked by fetch (unsafe port); use another port');
    expect(error.message).not.toContain('UND_ERR');
    expect(waits).toEqual([]);
  });

  it('fails a PATCH as not sent, never as outcome unknown', async () => {
    const waits: number[] = [];
    const api = blockedClient(9, waits);
    const error = await caught(
      api.updateFinding('acme', 'main', FINDING, { finding_status: 'false_positive' }),
    );
    expect(error).toBeInstanceOf(BlockedPortError);
    expect(isOutcomeUnknownError(error)).toBe(false);
    expect(error.message).toContain('was not sent: port 9 is blocked by fetch (unsafe port)');
    expect(waits).toEqual([]);
  });

  it('makes the CLI exit 2 with the message', async () => {
    const io = recordingIO({ env: { AIRT_BASE_URL: 'http://127.0.0.1:6000', AIRT_TOKEN: TOKEN } });
    const code = await main(['config'], io);
    expect(code).toBe(EXIT.usage);
    expect(io.err.join('')).toContain('port 6000 is blocked by fetch (unsafe port); use another port');
  });
});
