/**
 * A host name that does not resolve. `.invalid` is reserved (RFC 2606/6761): it never exists. The
 * resolver's "no such name" (ENOTFOUND) is permanent: one attempt and one clear message, not six
 * attempts with backoff. A resolver that did not answer for now (EAI_AGAIN) is asked at most three
 * times in all.
 *
 * Tests send nothing beyond loopback, and a real lookup would ask the machine's name server: so
 * `dns.lookup` (what undici's connections resolve through) is replaced for this file by one that
 * answers ENOTFOUND exactly as getaddrinfo does, and counts how often it was asked.
 */
import dns from 'node:dns';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { fetch as undiciFetch } from 'undici';
import { createApiClient, type ApiClient } from '../../src/api/client.js';
import { NetworkError } from '../../src/api/errors.js';
import { recordingIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { EXIT } from '../../src/errors.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { TOKEN } from './helpers/bodies.js';
import { caught } from '../helpers/caught.js';

const NOWHERE = 'http://airt-report-test.invalid:8080';
const FINDING = '00000000-0000-4000-8000-00000000f001';

let client: ApiClient | undefined;
const realLookup = dns.lookup;
let lookups = 0;

beforeAll(() => {
  const fakeLookup = (hostname: string, ...rest: unknown[]): void => {
    lookups += 1;
    const callback = rest.at(-1) as (error: NodeJS.ErrnoException) => void;
    const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
      code: 'ENOTFOUND',
      errno: -3008,
      syscall: 'getaddrinfo',
      hostname,
    });
    process.nextTick(callback, error);
  };
  dns.lookup = fakeLookup as unknown as typeof dns.lookup;
});

afterAll(() => {
  dns.lookup = realLookup;
});

afterEach(async () => {
  await client?.close();
  client = undefined;
});

function makeClient(waits: number[], fetch?: typeof undiciFetch): ApiClient {
  client = createApiClient({
    baseUrl: NOWHERE,
    token: TOKEN,
    retry: { maxAttempts: 6 },
    random: () => 0.5,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    ...(fetch ? { fetch } : {}),
  });
  return client;
}

describe('a host name that does not exist (ENOTFOUND)', () => {
  it('fails a GET after 1 attempt, naming the host', async () => {
    const waits: number[] = [];
    const before = lookups;
    const error = await caught(makeClient(waits).getConfig());
    expect(lookups - before).toBe(1);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe('ENOTFOUND');
    expect((error as NetworkError).attempts).toBe(1);
    expect(waits).toEqual([]);
    expect(error.message).toContain(
      'the host name airt-report-test.invalid does not exist (DNS lookup found no such name) (ENOTFOUND)',
    );
    expect(error.message).not.toContain('attempts');
  });

  it('fails a PATCH after 1 attempt too', async () => {
    const waits: number[] = [];
    const error = await caught(
      makeClient(waits).updateFinding('acme', 'main', FINDING, { finding_status: 'false_positive' }),
    );
    expect((error as NetworkError).code).toBe('ENOTFOUND');
    expect((error as NetworkError).attempts).toBe(1);
    expect(waits).toEqual([]);
  });

  it('`snapshot` exits 1 with one message and no retry lines', async () => {
    const io = recordingIO({ env: { AIRT_TOKEN: TOKEN } });
    const code = await main(
      [
        'snapshot',
        '--base-url',
        NOWHERE,
        '--org',
        'acme',
        '--workspace',
        'main',
        '--out',
        await makeTempDir('airt-dns-'),
      ],
      io,
    );
    const stderr = io.err.join('');
    expect(code, stderr).toBe(EXIT.failure);
    expect(stderr).toContain('airt-report-test.invalid does not exist');
    expect(stderr).not.toMatch(/retrying/i);
    expect(stderr).not.toContain('attempts');
  });
});

describe('a resolver that does not answer for now (EAI_AGAIN)', () => {
  it('is asked at most three times in all', async () => {
    const waits: number[] = [];
    let calls = 0;
    // The transport error undici gives when getaddrinfo says EAI_AGAIN (no resolver can be made to
    // say that on demand, so the fetch is replaced; the classification is what is under test).
    const failingFetch = (() => {
      calls += 1;
      const cause = Object.assign(new Error('getaddrinfo EAI_AGAIN airt-report-test.invalid'), {
        code: 'EAI_AGAIN',
      });
      return Promise.reject(new TypeError('fetch failed', { cause }));
    }) as unknown as typeof undiciFetch;
    const error = await caught(makeClient(waits, failingFetch).getConfig());
    expect((error as NetworkError).code).toBe('EAI_AGAIN');
    expect(calls).toBe(3);
    expect((error as NetworkError).attempts).toBe(3);
    expect(waits).toHaveLength(2);
    expect(error.message).toContain('could not be resolved (DNS server did not answer)');
  });
});
