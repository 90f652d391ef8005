/**
 * Error mapping against a real HTTP server: every non-2xx becomes a typed error with the service's
 * type/detail/errors[], non-JSON bodies still give a clear message, 2xx bodies that do not fit give
 * ResponseSchemaError, and the token never appears in any error.
 */
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient, type ApiClientOptions } from '../../src/api/client.js';
import {
  ApiError,
  AuthenticationError,
  ForbiddenError,
  HttpError,
  isHttpError,
  isResponseSchemaError,
  NotFoundError,
  ResponseSchemaError,
  UpgradeRequiredError,
} from '../../src/api/errors.js';
import { cliMessage } from '../../src/cli/option-names.js';
import { EXIT } from '../../src/errors.js';
import { configBody, findingBody, TOKEN } from './helpers/bodies.js';
import {
  envelope,
  sequence,
  startScriptServer,
  type Script,
  type ScriptServer,
} from './helpers/script-server.js';
import { caught } from '../helpers/caught.js';

let server: ScriptServer | undefined;
let client: ApiClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function setup(script: Script, options: Partial<ApiClientOptions> = {}): Promise<ApiClient> {
  server = await startScriptServer(script);
  client = createApiClient({
    baseUrl: server.url,
    token: TOKEN,
    sleep: () => Promise.resolve(),
    random: () => 0.5,
    timeoutMs: 2_000,
    ...options,
  });
  return client;
}

const FINDING = '00000000-0000-4000-8000-00000000f001';

describe('non-2xx answers become typed errors', () => {
  const cases: [number, string, new (...args: never[]) => HttpError][] = [
    [400, 'invalid_error', HttpError],
    [401, 'authentication_error', AuthenticationError],
    [403, 'forbidden_error', ForbiddenError],
    [404, 'not_found_error', NotFoundError],
    [409, 'conflict_error', HttpError],
    [422, 'validation_error', HttpError],
    [426, 'upgrade_required_error', UpgradeRequiredError],
    [500, 'server_error', HttpError],
  ];
  for (const [status, type, errorClass] of cases) {
    it(`${status} ${type} → ${errorClass.name} with the service's detail and errors[]`, async () => {
      const items = [{ loc: ['query', 'page_size'], msg: 'must be at most 100', type: 'less_than_equal' }];
      const api = await setup(sequence(envelope(status, type, `detail for ${status}`, items)));
      const error = await caught(api.listEvaluations('acme', 'main', { page: 2, pageSize: 100 }));
      expect(error).toBeInstanceOf(errorClass);
      expect(error).toBeInstanceOf(ApiError);
      expect(isHttpError(error)).toBe(true);
      const http = error as HttpError;
      expect(http.status).toBe(status);
      expect(http.type).toBe(type);
      expect(http.detail).toBe(`detail for ${status}`);
      expect(http.errors).toEqual(items);
      expect(http.method).toBe('GET');
      expect(http.path).toBe('/api/v1/org/acme/ws/main/evaluations?page=2&page_size=100');
      expect(http.exitCode).toBe(EXIT.failure);
      expect(http.message).toContain('GET /api/v1/org/acme/ws/main/evaluations?page=2&page_size=100');
      expect(http.message).toContain(`detail for ${status}`);
      expect(server?.requests).toHaveLength(1); // none of these is retried
    });
  }

  it('422 lists each validation item with its location', async () => {
    const api = await setup(
      sequence(
        envelope(422, 'validation_error', 'Request validation failed', [
          { loc: ['body', 'threshold'], msg: 'must be at least 1000', type: 'greater_than_equal' },
        ]),
      ),
    );
    const error = await caught(
      api.configureAutoRefill('acme', { enabled: true, monthly_cap: 1, quantity: 1, threshold: 1000 }),
    );
    expect(error.message).toContain('PUT /api/v1/org/acme/credits/auto-refill failed with 422');
    expect(error.message).toContain('body.threshold: must be at least 1000 (greater_than_equal)');
  });

  it('401 says the token is missing or invalid; the CLI wording names AIRT_TOKEN and --token-file', async () => {
    const api = await setup(sequence(envelope(401, 'authentication_error', 'Invalid token')));
    const error = await caught(api.getProjectSummary('acme', 'main', 'chatbot'));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.message).toContain('GET /api/v1/org/acme/ws/main/airt/projects/chatbot/summary');
    expect(error.message).toContain('token is missing or invalid');
    expect(error.message).toContain('Set options.token to a valid token.');
    expect(error.message).not.toContain('AIRT_TOKEN');
    expect(error.message).toContain('Invalid token');
    const cli = cliMessage(error);
    expect(cli).toContain('Set AIRT_TOKEN or --token-file FILE to a valid token.');
    expect(cli).toContain('Invalid token');
  });

  it('426 says a newer client is needed and shows the api_version learned from getConfig', async () => {
    const api = await setup((request) =>
      request.url === '/api/v1/config'
        ? { body: configBody({ api_version: '9.3.0' }) }
        : envelope(426, 'upgrade_required_error', 'Client too old'),
    );
    const before = await caught(api.listTrials('acme', 'main', FINDING));
    expect(before).toBeInstanceOf(UpgradeRequiredError);
    expect(before.message).toContain('requires a newer client');
    expect(before.message).toContain('api_version is unknown');
    expect(before.message).not.toContain('airt-report config');
    await api.getConfig();
    expect(api.knownApiVersion).toBe('9.3.0');
    const after = (await caught(api.listTrials('acme', 'main', FINDING))) as UpgradeRequiredError;
    expect(after.apiVersion).toBe('9.3.0');
    expect(after.message).toContain('api_version 9.3.0');
    expect(after.message).toContain('Client too old');
  });

  it('an HTML 502 page from a proxy gives the status and a tag-free excerpt', async () => {
    const html =
      '<html><head><title>502 Bad Gateway</title><style>body{color:red}</style></head>' +
      '<body><h1>Bad Gateway</h1><p>The upstream server &amp; its friends did not answer.</p>' +
      `<script>alert(1)</script>${'<p>filler</p>'.repeat(200)}</body></html>`;
    const api = await setup(sequence({ status: 502, body: html, headers: { 'content-type': 'text/html' } }), {
      retry: { maxAttempts: 2 },
    });
    const error = (await caught(api.getConfig())) as HttpError;
    expect(error).toBeInstanceOf(HttpError);
    expect(error.status).toBe(502);
    expect(error.type).toBeUndefined();
    expect(error.bodySnippet).toMatch(
      /^502 Bad Gateway Bad Gateway The upstream server & its friends did not answer\./,
    );
    expect(error.bodySnippet).not.toMatch(/[<>]|alert|color:red/);
    expect(error.bodySnippet!.length).toBeLessThanOrEqual(201);
    expect(error.message).toContain('GET /api/v1/config failed with 502');
    expect(error.message).toContain('after 2 attempts');
    expect(error.message).toContain('The upstream server & its friends');
  });

  it('an envelope with an unknown type and malformed errors[] items is still read field by field', async () => {
    const api = await setup(
      sequence({
        status: 400,
        body: {
          code: 400,
          type: 'brand_new_error',
          detail: 'Nope',
          errors: [{ loc: 'x' }, { loc: [0], msg: 'm', type: 't' }],
        },
      }),
    );
    const error = (await caught(api.getConfig())) as HttpError;
    expect(error.type).toBe('brand_new_error');
    expect(error.detail).toBe('Nope');
    expect(error.errors).toEqual([{ loc: [0], msg: 'm', type: 't' }]);
  });

  it('does not follow redirects (the token stays with the named host)', async () => {
    const api = await setup(sequence({ status: 302, headers: { location: 'http://127.0.0.2:9/elsewhere' } }));
    const error = (await caught(api.getProjectSummary('acme', 'main', 'p'))) as HttpError;
    expect(error.status).toBe(302);
    expect(error.message).toContain('redirected to http://127.0.0.2:9/elsewhere');
    expect(server?.requests).toHaveLength(1);
  });
});

describe('2xx bodies that do not fit', () => {
  it('a non-JSON 2xx is a ResponseSchemaError', async () => {
    const api = await setup(
      sequence({ status: 200, body: '<html>maintenance</html>', headers: { 'content-type': 'text/html' } }),
    );
    const error = (await caught(api.getConfig())) as ResponseSchemaError;
    expect(isResponseSchemaError(error)).toBe(true);
    expect(error.status).toBe(200);
    expect(error.issues[0]?.code).toBe('invalid_json');
    expect(error.message).toContain('GET /api/v1/config answered 200');
    expect(error.message).toContain('text/html');
  });

  it('a PATCH whose answer does not validate says the update was applied, with issues and body', async () => {
    const body = findingBody(FINDING, { status: 'exploded', total_trials: 'ten' });
    const api = await setup(sequence({ status: 200, body }));
    const error = (await caught(
      api.updateFinding('acme', 'main', FINDING, { finding_status: 'false_positive' }),
    )) as ResponseSchemaError;
    expect(error).toBeInstanceOf(ResponseSchemaError);
    expect(error.message).toContain(`PATCH /api/v1/org/acme/ws/main/airt/findings/${FINDING} answered 200`);
    expect(error.message).toContain('the change was applied');
    expect(error.issues.map((i) => i.path).sort()).toEqual(['$.status', '$.total_trials']);
    expect(error.body).toEqual(body);
    expect(server?.requests).toHaveLength(1);
  });

  it('typed methods return unknown keys next to the value', async () => {
    const api = await setup(sequence({ body: configBody({ quantum_mode: true }) }));
    const { value, unknownKeys } = await api.getConfig();
    expect(value.api_version).toBe('1.7.0');
    expect(value.credits_enabled).toBe(true); // the spec's default
    expect(unknownKeys).toEqual(['$.quantum_mode']);
  });
});

describe('the token never appears in an error', () => {
  it('not in message, properties, JSON or inspection, even when the service echoes it back', async () => {
    const echo: Script = (request) => {
      const auth = request.headers.authorization ?? '';
      const [, status = '200', mode = 'envelope'] = /(\d{3})~(\w+)/.exec(request.url) ?? [];
      const code = Number(status);
      if (mode === 'html') {
        return {
          status: code,
          body: `<h1>Denied for ${auth}</h1>`,
          headers: { 'content-type': 'text/html' },
        };
      }
      if (mode === 'schema') return { status: 200, body: { echoed: auth, api_version: 1 } };
      if (mode === 'text') return { status: 200, body: `not json ${auth}` };
      return envelope(code, 'authentication_error', `bad credentials: ${auth}`, [
        { loc: ['header', auth], msg: `rejected ${auth}`, type: 'token_error' },
      ]);
    };
    const api = await setup(echo, { retry: { maxAttempts: 2 } });
    const errors: unknown[] = [];
    const statuses = [400, 401, 403, 404, 409, 422, 426, 429, 500, 502, 504];
    for (const status of statuses) {
      for (const mode of ['envelope', 'html']) {
        errors.push(await caught(api.getProjectSummary('acme', 'main', `${status}~${mode}`)));
        errors.push(await caught(api.updateFinding('acme', 'main', `${status}~${mode}`, { notes: 'x' })));
      }
    }
    errors.push(await caught(api.getProjectSummary('acme', 'main', '200~schema')));
    errors.push(await caught(api.updateFinding('acme', 'main', '200~schema', {})));
    errors.push(await caught(api.getProjectSummary('acme', 'main', '200~text')));
    expect(errors.length).toBe(statuses.length * 4 + 3);
    for (const error of errors) {
      expect(error).toBeInstanceOf(ApiError);
      const texts = [
        (error as Error).message,
        JSON.stringify(error),
        inspect(error, { depth: 8, showHidden: true }),
        String((error as Error).stack),
      ];
      for (const text of texts) expect(text).not.toContain(TOKEN);
    }
    // The service did receive the token: the test would be meaningless otherwise.
    expect(server?.requests.every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });
});
