/**
 * Error behaviour: 401 without or with a wrong token, 403 for writes with a read-only token, 404 for
 * unknown org/workspace/project/assessment/finding/route, 422 envelopes naming the location of each
 * bounded or malformed parameter, 426 when an upgrade is required.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import {
  autoRefillPath,
  call,
  evaluationsPath,
  findingPath,
  summaryPath,
  trialsPath,
  type Fetched,
} from './helpers.js';

const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';
const GOOD_REFILL = { enabled: true, monthly_cap: 10, quantity: 2, threshold: 5000 };

interface Envelope {
  code: number;
  type: string;
  detail: string;
  errors?: { loc: (string | number)[]; msg: string; type: string }[];
}

function envelopeOf(result: Fetched): Envelope {
  return JSON.parse(result.text) as Envelope;
}

let sim: RunningSimulator;
let assessmentId: string;
let findingId: string;
beforeAll(async () => {
  sim = await startSimulator({ seed: 3, readOnlyToken: 'viewer-token', scale: { trialsPerAttack: 5 } });
  const project = sim.projectKeys[0] ?? '';
  assessmentId = sim.truth.assessmentIds(project)[0] ?? '';
  findingId = sim.truth.findingIds(project)[0] ?? '';
});
afterAll(() => sim.close());

describe('authentication and authorization', () => {
  it.each([null, 'wrong-token'])(
    'answers 401 authentication_error on every operation 1-5 (token %s)',
    async (token) => {
      const requests = [
        call(sim, summaryPath(sim, sim.projectKeys[0] ?? ''), { token }),
        call(sim, findingPath(sim, findingId), { token, method: 'PATCH', body: { notes: 'x' } }),
        call(sim, autoRefillPath(sim), { token, method: 'PUT', body: GOOD_REFILL }),
        call(sim, evaluationsPath(sim), { token }),
        call(sim, trialsPath(sim, assessmentId), { token }),
      ];
      for (const result of await Promise.all(requests)) {
        expect(result.status).toBe(401);
        expect(envelopeOf(result)).toMatchObject({ code: 401, type: 'authentication_error' });
      }
    },
  );

  it('lets a read-only token read but answers 403 forbidden_error on PATCH and PUT', async () => {
    expect((await call(sim, evaluationsPath(sim), { token: 'viewer-token' })).status).toBe(200);
    const patch = await call(sim, findingPath(sim, findingId), {
      token: 'viewer-token',
      method: 'PATCH',
      body: { notes: 'x' },
    });
    const put = await call(sim, autoRefillPath(sim), {
      token: 'viewer-token',
      method: 'PUT',
      body: GOOD_REFILL,
    });
    for (const result of [patch, put])
      expect(envelopeOf(result)).toMatchObject({ code: 403, type: 'forbidden_error' });
  });
});

describe('not found', () => {
  it.each([
    ['unknown org', '/api/v1/org/nope/ws/main/evaluations'],
    ['unknown workspace', '/api/v1/org/acme/ws/nope/evaluations'],
    ['unknown project', '/api/v1/org/acme/ws/main/airt/projects/nope/summary'],
    ['unknown assessment', `/api/v1/org/acme/ws/main/airt/assessments/${UNKNOWN_UUID}/traces/trials`],
    ['unknown route', '/api/v1/org/acme/ws/main/airt/nothing-here'],
    ['unknown root', '/robots.txt'],
  ])('%s → 404 not_found_error', async (_label, path) => {
    const result = await call(sim, path);
    expect(result.status).toBe(404);
    expect(envelopeOf(result)).toMatchObject({ code: 404, type: 'not_found_error' });
  });

  it('unknown finding → 404, unknown org on auto-refill → 404', async () => {
    const patch = await call(sim, findingPath(sim, UNKNOWN_UUID), { method: 'PATCH', body: { notes: 'x' } });
    expect(envelopeOf(patch)).toMatchObject({ code: 404, type: 'not_found_error' });
    const put = await call(sim, '/api/v1/org/nope/credits/auto-refill', { method: 'PUT', body: GOOD_REFILL });
    expect(envelopeOf(put)).toMatchObject({ code: 404, type: 'not_found_error' });
  });

  it('finds a project by id as well as by slug', async () => {
    const project = sim.truth.projects()[0];
    expect((await call(sim, summaryPath(sim, project?.id ?? ''))).status).toBe(200);
  });
});

describe('validation (422)', () => {
  const get = (path: () => string) => () => call(sim, path());
  const patch = (body: unknown, id?: string) => () =>
    call(sim, findingPath(sim, id ?? findingId), { method: 'PATCH', body });
  const put = (body: unknown) => () => call(sim, autoRefillPath(sim), { method: 'PUT', body });
  const cases: [string, () => Promise<Fetched>, (string | number)[], string][] = [
    ['page 0', get(() => evaluationsPath(sim, '?page=0')), ['query', 'page'], 'greater_than_equal'],
    ['page not a number', get(() => evaluationsPath(sim, '?page=two')), ['query', 'page'], 'int_parsing'],
    [
      'page_size 0',
      get(() => evaluationsPath(sim, '?page_size=0')),
      ['query', 'page_size'],
      'greater_than_equal',
    ],
    [
      'page_size 101',
      get(() => evaluationsPath(sim, '?page_size=101')),
      ['query', 'page_size'],
      'less_than_equal',
    ],
    [
      'project_id not a uuid',
      get(() => evaluationsPath(sim, '?project_id=abc')),
      ['query', 'project_id'],
      'uuid_parsing',
    ],
    [
      'limit 0',
      get(() => trialsPath(sim, assessmentId, '?limit=0')),
      ['query', 'limit'],
      'greater_than_equal',
    ],
    [
      'limit 5001',
      get(() => trialsPath(sim, assessmentId, '?limit=5001')),
      ['query', 'limit'],
      'less_than_equal',
    ],
    ['limit 1.5', get(() => trialsPath(sim, assessmentId, '?limit=1.5')), ['query', 'limit'], 'int_parsing'],
    [
      'jailbreaks_only maybe',
      get(() => trialsPath(sim, assessmentId, '?jailbreaks_only=maybe')),
      ['query', 'jailbreaks_only'],
      'bool_parsing',
    ],
    [
      'assessment not a uuid',
      get(() => trialsPath(sim, 'latest')),
      ['path', 'assessment_id'],
      'uuid_parsing',
    ],
    ['finding_id not a uuid', patch({ notes: 'x' }, 'not-a-uuid'), ['path', 'finding_id'], 'uuid_parsing'],
    ['finding_status enum', patch({ finding_status: 'closed' }), ['body', 'finding_status'], 'enum'],
    ['finding_type enum', patch({ finding_type: 'bug' }), ['body', 'finding_type'], 'enum'],
    ['severity enum', patch({ severity: 'urgent' }), ['body', 'severity'], 'enum'],
    ['notes not a string', patch({ notes: 42 }), ['body', 'notes'], 'string_type'],
    ['PATCH body not JSON', patch('{nope'), ['body'], 'json_invalid'],
    ['monthly_cap 0', put({ ...GOOD_REFILL, monthly_cap: 0 }), ['body', 'monthly_cap'], 'greater_than_equal'],
    ['monthly_cap 51', put({ ...GOOD_REFILL, monthly_cap: 51 }), ['body', 'monthly_cap'], 'less_than_equal'],
    ['quantity 11', put({ ...GOOD_REFILL, quantity: 11 }), ['body', 'quantity'], 'less_than_equal'],
    ['quantity 0', put({ ...GOOD_REFILL, quantity: 0 }), ['body', 'quantity'], 'greater_than_equal'],
    ['threshold 999', put({ ...GOOD_REFILL, threshold: 999 }), ['body', 'threshold'], 'greater_than_equal'],
    [
      'threshold 1000001',
      put({ ...GOOD_REFILL, threshold: 1_000_001 }),
      ['body', 'threshold'],
      'less_than_equal',
    ],
    [
      'threshold not an integer',
      put({ ...GOOD_REFILL, threshold: 'lots' }),
      ['body', 'threshold'],
      'int_parsing',
    ],
    [
      'monthly_cap fractional',
      put({ ...GOOD_REFILL, monthly_cap: 2.5 }),
      ['body', 'monthly_cap'],
      'int_type',
    ],
    [
      'enabled missing',
      put({ monthly_cap: 1, quantity: 1, threshold: 1000 }),
      ['body', 'enabled'],
      'missing',
    ],
    [
      'quantity missing',
      put({ enabled: true, monthly_cap: 1, threshold: 1000 }),
      ['body', 'quantity'],
      'missing',
    ],
    ['enabled not a boolean', put({ ...GOOD_REFILL, enabled: 'yes' }), ['body', 'enabled'], 'bool_type'],
  ];
  it.each(cases)('%s → 422 validation_error naming the location', async (_label, request, loc, type) => {
    const result = await request();
    expect(result.status).toBe(422);
    const envelope = envelopeOf(result);
    expect(envelope).toMatchObject({ code: 422, type: 'validation_error' });
    expect(envelope.errors).toContainEqual(expect.objectContaining({ loc, type }));
    for (const item of envelope.errors ?? []) expect(typeof item.msg).toBe('string');
  });

  it('accepts the bounds themselves', async () => {
    expect((await call(sim, evaluationsPath(sim, '?page=1&page_size=100'))).status).toBe(200);
    expect((await call(sim, evaluationsPath(sim, '?page=1&page_size=1'))).status).toBe(200);
    expect((await call(sim, trialsPath(sim, assessmentId, '?limit=1&jailbreaks_only=false'))).status).toBe(
      200,
    );
    expect((await call(sim, trialsPath(sim, assessmentId, '?limit=5000&jailbreaks_only=true'))).status).toBe(
      200,
    );
    for (const body of [
      { enabled: false, monthly_cap: 1, quantity: 1, threshold: 1000 },
      { enabled: true, monthly_cap: 50, quantity: 10, threshold: 1_000_000 },
    ]) {
      expect((await call(sim, autoRefillPath(sim), { method: 'PUT', body })).status).toBe(200);
    }
  });
});

describe('upgrade required', () => {
  it('answers 426 upgrade_required_error on operations 1-5 while the config still answers', async () => {
    const old = await startSimulator({ upgradeRequired: true, scale: { trialsPerAttack: 2 } });
    try {
      expect((await call(old, '/api/v1/config', { token: null })).status).toBe(200);
      for (const result of [
        await call(old, evaluationsPath(old)),
        await call(old, summaryPath(old, old.projectKeys[0] ?? '')),
      ]) {
        expect(result.status).toBe(426);
        expect(envelopeOf(result)).toMatchObject({ code: 426, type: 'upgrade_required_error' });
      }
    } finally {
      await old.close();
    }
  });
});
