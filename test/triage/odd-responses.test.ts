/**
 * Answers the simulator does not give, from a real node:http server on loopback: a PATCH that was
 * applied but whose body does not match the schema, and a 422 with errors[] on the auto-refill PUT.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';

const ID = '0a1b2c3d-0000-4000-8000-00000000000a';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

async function serve(handler: Handler): Promise<{ url: string; server: Server; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      requests.push(`${req.method} ${req.url} ${body}`);
      handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, requests };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

describe('answers the simulator does not give', () => {
  let dir: string;
  let server: Server | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'airt-odd-'));
  });
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  it('journals a PATCH answered 200 with a body that fails the schema as applied, with the raw body and a warning', async () => {
    const odd = { id: ID, finding_status: 'false_positive', surprise: true };
    const started = await serve((_req, _body, res) => json(res, 200, odd));
    server = started.server;
    const io = recordingIO({
      cwd: dir,
      env: {
        AIRT_BASE_URL: started.url,
        AIRT_ORG: 'acme',
        AIRT_WORKSPACE: 'main',
        AIRT_TOKEN: 'odd-responses-token',
      },
    });
    const code = await main(['triage', ID, '--status', 'false_positive'], io);
    expect(code).toBe(0);
    expect(started.requests).toHaveLength(1);
    expect(io.err.join('')).toContain('the change was applied (do not send it again)');
    expect(io.out.join('')).toContain('The response as received');
    const lines = (await readFile(path.join(dir, 'triage', 'journal.jsonl'), 'utf8')).trim().split('\n');
    // The "sending" line written before the request left, then the outcome.
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ outcome: 'sending', finding: null });
    const entry = JSON.parse(lines[1] ?? '') as Record<string, unknown>;
    expect(entry).toMatchObject({
      outcome: 'applied',
      http_status: 200,
      error: null,
      finding: odd,
      source: 'cli',
    });
    expect(entry.warning).toMatch(/did not validate against the API schema/u);
  });

  it("shows the service's 422 errors[] field by field", async () => {
    const started = await serve((_req, _body, res) =>
      json(res, 422, {
        code: 422,
        type: 'validation_error',
        detail: 'Invalid auto-refill settings',
        errors: [
          { loc: ['body', 'monthly_cap'], msg: 'must not exceed the plan limit of 20', type: 'plan_limit' },
          { loc: ['body', 'quantity'], msg: 'too many packs for this plan', type: 'plan_limit' },
        ],
      }),
    );
    server = started.server;
    const io = recordingIO({
      cwd: dir,
      env: { AIRT_BASE_URL: started.url, AIRT_ORG: 'acme', AIRT_TOKEN: 'odd-responses-token' },
    });
    const code = await main(
      [
        'credits',
        'auto-refill',
        '--enabled',
        '--threshold',
        '5000',
        '--quantity',
        '10',
        '--monthly-cap',
        '50',
      ],
      io,
    );
    expect(code).toBe(1);
    const err = io.err.join('');
    expect(err).toContain(
      'PUT /api/v1/org/acme/credits/auto-refill was refused with 422 (validation_error: Invalid auto-refill settings)',
    );
    expect(err).toContain(
      '\n  monthly_cap (--monthly-cap): must not exceed the plan limit of 20 (plan_limit)\n',
    );
    expect(err).toContain('\n  quantity (--quantity): too many packs for this plan (plan_limit)');
    expect(started.requests).toEqual([
      'PUT /api/v1/org/acme/credits/auto-refill {"enabled":true,"monthly_cap":50,"quantity":10,"threshold":5000}',
    ]);
  });
});
