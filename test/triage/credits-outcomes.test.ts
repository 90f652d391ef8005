/**
 * `credits auto-refill` and the library's configureAutoRefill against answers a proxy in front of the
 * service can give and the simulator does not: settings other than asked, a 504 or a timeout after the
 * PUT arrived, Ctrl-C/SIGTERM while it is in flight, a 200 that is not the API's JSON. And the
 * library's own checks of the settings before anything is sent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { isOutcomeUnknownError } from '../../src/api/errors.js';
import type { ConfigureAutoRefillRequest } from '../../src/api/schemas.js';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import { cliMessage } from '../../src/cli/option-names.js';
import { AutoRefillOutcomeUnknownError, configureAutoRefill } from '../../src/triage/auto-refill.js';
import { startSimulator } from '../../src/simulator/index.js';
import { spawnCli } from '../helpers/cli.js';

const TOKEN = 'credits-outcomes-token';
const ASKED_OFF = ['--no-enabled', '--threshold', '5000', '--quantity', '2', '--monthly-cap', '10'];
const ASKED_OFF_BODY = { enabled: false, monthly_cap: 10, quantity: 2, threshold: 5000 };
const SAME_COMMAND =
  'airt-report credits auto-refill --no-enabled --threshold 5000 --quantity 2 --monthly-cap 10';

/** A full AutoRefillConfigResponse with the given settings. */
function answer(settings: Partial<Record<string, unknown>>): Record<string, unknown> {
  return {
    enabled: false,
    has_payment_method: true,
    month_count: 0,
    month_reset: '2026-12-01T00:00:00Z',
    monthly_cap: 10,
    quantity: 2,
    threshold: 5000,
    disabled_reason: null,
    ...settings,
  };
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface Started {
  url: string;
  /** `METHOD path body` of every request received, once its body has arrived. */
  requests: string[];
  /** Resolves when the first request's body has arrived. */
  received: Promise<void>;
}

let servers: Server[] = [];
afterEach(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  servers = [];
});

async function serve(handler: Handler): Promise<Started> {
  const requests: string[] = [];
  let arrived = (): void => undefined;
  const received = new Promise<void>((resolve) => (arrived = resolve));
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      requests.push(`${req.method} ${req.url} ${body}`);
      arrived();
      handler(req, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, received };
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Runs `airt-report credits auto-refill <flags>` in-process against `url`. */
async function credits(url: string, flags: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = recordingIO({ env: { AIRT_BASE_URL: url, AIRT_ORG: 'acme', AIRT_TOKEN: TOKEN } });
  const code = await main(['credits', 'auto-refill', ...flags], io);
  return { code, out: io.out.join(''), err: io.err.join('') };
}

describe('an answer other than asked (defect 1)', () => {
  it('names every setting the service holds otherwise, asked vs held, and exits 3', async () => {
    const started = await serve((_req, res) =>
      json(res, 200, answer({ enabled: true, threshold: 1000, quantity: 1, monthly_cap: 50 })),
    );
    const result = await credits(started.url, ASKED_OFF);
    expect(result.code).toBe(3);
    // The table shows what the service holds.
    expect(result.out).toMatch(/Enabled\s+yes\n/u);
    expect(result.err).toContain(
      'Warning: enabled: asked false, but the service holds true: auto-refill is still ON and keeps buying credits',
    );
    expect(result.err).toContain('Warning: threshold: asked 5000, but the service holds 1000.');
    expect(result.err).toContain('Warning: quantity: asked 2, but the service holds 1.');
    expect(result.err).toContain('Warning: monthly_cap: asked 10, but the service holds 50.');
    expect(result.err).toContain(
      'airt-report: The service answered, but does not hold the settings asked for ' +
        '(enabled, threshold, quantity, monthly_cap; see the warnings above): auto-refill is still ON',
    );
    expect(result.err).toContain(SAME_COMMAND);
  });

  it('lists the differences in --json, and one differing number alone also exits 3', async () => {
    const started = await serve((_req, res) => json(res, 200, answer({ monthly_cap: null })));
    const result = await credits(started.url, [...ASKED_OFF, '--json']);
    expect(result.code).toBe(3);
    const printed = JSON.parse(result.out) as { mismatches: unknown[] };
    expect(printed.mismatches).toEqual([{ field: 'monthly_cap', asked: 10, held: null }]);
    expect(result.err).toContain('Warning: monthly_cap: asked 10, but the service holds none (null).');
    expect(result.err).not.toContain('still ON');
  });

  it('exits 0 with no warning when the service holds what was asked (simulator, off and on)', async () => {
    const sim = await startSimulator({ seed: 3 });
    try {
      const io = (): ReturnType<typeof recordingIO> =>
        recordingIO({ env: { AIRT_BASE_URL: sim.url, AIRT_ORG: sim.org, AIRT_TOKEN: sim.token } });
      for (const enabled of ['--no-enabled', '--enabled']) {
        const recorded = io();
        const code = await main(['credits', 'auto-refill', enabled, ...ASKED_OFF.slice(1)], recorded);
        expect(code).toBe(0);
        expect(recorded.err.join('')).toBe('');
      }
    } finally {
      await sim.close();
    }
  });

  it('the library returns the differences as facts (field, asked, held)', async () => {
    const client = fakeClient(() => answer({ enabled: true, threshold: 1000 }));
    const result = await configureAutoRefill(client, 'acme', ASKED_OFF_BODY);
    expect(result.mismatches).toEqual([
      { field: 'enabled', asked: false, held: true },
      { field: 'threshold', asked: 5000, held: 1000 },
    ]);
    expect(result.warnings[0]).toContain('enabled: asked false, but the service holds true');
  });
});

describe('outcome unknown: the PUT may have been applied (defect 2)', () => {
  it('a 504 on every attempt after the service got the PUT: outcome unknown, how to check, safe to repeat', async () => {
    // Retry-After: 0 makes the client's retries of the idempotent PUT immediate.
    const started = await serve((_req, res) =>
      json(
        res,
        504,
        { code: 504, type: 'gateway_timeout_error', detail: 'upstream timed out' },
        { 'retry-after': '0' },
      ),
    );
    const result = await credits(started.url, ASKED_OFF);
    expect(result.code).toBe(1);
    expect(started.requests.length).toBeGreaterThan(1);
    expect(result.err).toContain(
      'airt-report: PUT /api/v1/org/acme/credits/auto-refill: outcome unknown — the gateway answered 504 ("upstream timed out")',
    );
    expect(result.err).toContain('The service may or may not have applied the settings.');
    expect(result.err).toContain(
      `run the same command again (${SAME_COMMAND}, with the same connection settings)`,
    );
    expect(result.err).toContain('sending the same settings twice is safe');
    expect(result.err).not.toContain('try again later');
  });

  it('a timeout: the library throws AutoRefillOutcomeUnknownError, an OutcomeUnknownError', async () => {
    const started = await serve(() => undefined); // never answers
    const client = createApiClient({
      baseUrl: started.url,
      token: TOKEN,
      timeoutMs: 150,
      retry: { maxAttempts: 2 },
      sleep: () => Promise.resolve(),
    });
    try {
      const error = await configureAutoRefill(client, 'acme', ASKED_OFF_BODY).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AutoRefillOutcomeUnknownError);
      expect(isOutcomeUnknownError(error)).toBe(true);
      const message = (error as Error).message;
      expect(message).toContain(
        'PUT /api/v1/org/acme/credits/auto-refill: outcome unknown — no complete answer within 150 ms, after 2 attempts.',
      );
      expect(message).toContain('sending the same settings again is safe');
      expect((error as AutoRefillOutcomeUnknownError).settings).toEqual(ASKED_OFF_BODY);
    } finally {
      await client.close();
    }
  });

  it('a refused 4xx is a failure, not an unknown outcome (nothing was changed)', async () => {
    const started = await serve((_req, res) =>
      json(res, 409, { code: 409, type: 'conflict_error', detail: 'busy' }),
    );
    const result = await credits(started.url, ASKED_OFF);
    expect(result.code).toBe(1);
    expect(result.err).toContain('failed with 409');
    expect(result.err).not.toContain('outcome unknown');
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s while the PUT is in flight: outcome unknown, exit %d',
    async (signal, exitCode) => {
      const started = await serve(() => undefined); // holds the request open
      const { child, finished } = spawnCli(['credits', 'auto-refill', ...ASKED_OFF], {
        env: { AIRT_BASE_URL: started.url, AIRT_ORG: 'acme', AIRT_TOKEN: TOKEN },
      });
      await started.received;
      child.kill(signal);
      const run = await finished;
      expect(run.code).toBe(exitCode);
      expect(run.stderr).toContain(
        `Interrupted by ${signal} while the auto-refill settings were being sent (PUT /api/v1/org/acme/credits/auto-refill): outcome unknown.`,
      );
      expect(run.stderr).toContain(`run the same command again (${SAME_COMMAND}`);
      expect(run.stdout).toBe('');
    },
    30_000,
  );
});

describe('a 200 that is not the API answer (defect 3)', () => {
  it.each([
    [
      'an HTML maintenance page',
      'text/html',
      '<html><body><h1>Down for maintenance</h1></body></html>',
      'a body that is not JSON ("Down for maintenance")',
    ],
    ['an empty body', 'application/json', '', 'an empty body'],
    [
      'JSON without the settings',
      'application/json',
      '{"status":"ok"}',
      'JSON that does not state enabled, threshold, quantity, monthly_cap',
    ],
  ])('%s: outcome unknown, exit 1', async (_what, type, body, said) => {
    const started = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    });
    const result = await credits(started.url, ASKED_OFF);
    expect(result.code).toBe(1);
    expect(result.out).toBe('');
    expect(result.err).toContain(
      `outcome unknown — the answer was 200 with ${said}, which is not the API's answer`,
    );
    expect(result.err).toContain(`run the same command again (${SAME_COMMAND}`);
    expect(result.err).not.toContain('applied.');
  });

  it('a 200 stating the four settings as asked, off the schema elsewhere, is an answer: exit 0, warned', async () => {
    const started = await serve((_req, res) => json(res, 200, answer({ month_reset: 'next month' })));
    const result = await credits(started.url, ASKED_OFF);
    expect(result.code).toBe(0);
    expect(result.out).toContain("The service's answer as received (it does not match the API schema):");
    expect(result.err).toContain(
      "Warning: The service's answer states the settings but does not match the API schema",
    );
  });
});

describe('the library checks the settings like the CLI (defect 4)', () => {
  it('refuses out-of-range values before sending, naming the fields as given (monthly_cap)', async () => {
    const client = fakeClient(() => answer({}));
    const error = await configureAutoRefill(client, 'acme', {
      enabled: true,
      threshold: 999,
      quantity: 11,
      monthly_cap: 51,
    }).then(unexpected, (e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toContain(
      'options.threshold must be at least 1000 (an integer from 1000 to 1000000), got 999',
    );
    expect(error.message).toContain('options.quantity must be at most 10 (an integer from 1 to 10), got 11');
    expect(error.message).toContain(
      'options.monthly_cap must be at most 50 (an integer from 1 to 50), got 51',
    );
    expect(error.message).not.toContain('monthlyCap');
    expect(client.calls).toEqual([]);
  });

  it('refuses a missing field, a fraction and an enabled that is not a boolean', async () => {
    const client = fakeClient(() => answer({}));
    const loose = {
      enabled: 'false',
      threshold: 5000.5,
      quantity: 2,
    } as unknown as ConfigureAutoRefillRequest;
    const error = await configureAutoRefill(client, 'acme', loose).then(
      unexpected,
      (e: unknown) => e as Error,
    );
    expect(error.message).toContain('options.enabled must be true or false, got "false"');
    expect(error.message).toContain(
      'options.threshold must be an integer from 1000 to 1000000, got "5000.5"',
    );
    expect(error.message).toContain('options.monthly_cap is required (an integer from 1 to 50)');
    expect(client.calls).toEqual([]);
  });

  it("the service's 422 names monthly_cap as given in the library, --monthly-cap at the CLI", async () => {
    const started = await serve((_req, res) =>
      json(res, 422, {
        code: 422,
        type: 'validation_error',
        detail: 'Invalid auto-refill settings',
        errors: [
          { loc: ['body', 'monthly_cap'], msg: 'must not exceed the plan limit of 20', type: 'plan_limit' },
        ],
      }),
    );
    const client = createApiClient({ baseUrl: started.url, token: TOKEN });
    try {
      const error = await configureAutoRefill(client, 'acme', { ...ASKED_OFF_BODY, monthly_cap: 30 }).then(
        unexpected,
        (e: unknown) => e as Error,
      );
      expect(error.message).toContain('\n  monthly_cap: must not exceed the plan limit of 20 (plan_limit)');
      expect(error.message).not.toContain('monthlyCap');
      expect(cliMessage(error)).toContain(
        '\n  monthly_cap (--monthly-cap): must not exceed the plan limit of 20',
      );
    } finally {
      await client.close();
    }
  });
});

/** A client whose PUT answers `body` and records what it was sent. */
function fakeClient(body: () => Record<string, unknown>): Parameters<typeof configureAutoRefill>[0] & {
  calls: ConfigureAutoRefillRequest[];
} {
  const calls: ConfigureAutoRefillRequest[] = [];
  return {
    calls,
    configureAutoRefill: (_org, request) => {
      calls.push(request);
      return Promise.resolve({ value: body() as never, unknownKeys: [] });
    },
  };
}

function unexpected(): never {
  throw new Error('expected configureAutoRefill to throw');
}
