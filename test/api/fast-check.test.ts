/**
 * acceptsFor (fast-check.ts) must say yes exactly where zod's safeParse succeeds — never where zod
 * fails (that would hide drift) — and inspectTolerant must report what parseTolerant reports. Checked
 * on the simulator's bodies as served, on thousands of mutated copies (wrong types, missing and
 * foreign keys, odd numbers and strings, prototype names), on edge values of every leaf kind, and on
 * schema kinds the quick check leaves to zod (refinements, pipes, strict objects, exclusive unions).
 */
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { acceptsFor } from '../../src/api/fast-check.js';
import { inspectTolerant, parseTolerant } from '../../src/api/parse.js';
import { apiPaths } from '../../src/api/paths.js';
import * as schemas from '../../src/api/schemas.js';
import {
  AssessmentDetailSchema,
  ConfigResponseSchema,
  EvaluationJobListSchema,
  FindingDetailSchema,
  ProjectSummarySchema,
  TrialListSchema,
  TrialResultSchema,
  UpdateFindingRequestSchema,
} from '../../src/api/schemas.js';
import { Rng } from '../../src/simulator/prng.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { AcceptanceFileSchema } from '../../src/snapshot/risk-acceptances-file.js';

const TOKEN = 'fast-check-token';

/** zod's verdict and the quick check's must be the same; returns zod's. */
function agree(schema: z.ZodType, value: unknown, what: string): boolean {
  const byZod = schema.safeParse(value).success;
  expect(acceptsFor(schema)(value), what).toBe(byZod);
  return byZod;
}

function sameReport(schema: z.ZodType, value: unknown, what: string): void {
  const tolerant = parseTolerant(schema, value);
  expect(inspectTolerant(schema, value), what).toEqual({
    issues: tolerant.issues,
    unknownKeys: tolerant.unknownKeys,
  });
}

let sim: RunningSimulator;
/** Bodies as the simulator serves them, with the schema each is checked against. */
const served: { what: string; schema: z.ZodType; body: unknown }[] = [];

async function get(pathAndQuery: string, init: RequestInit = {}): Promise<unknown> {
  const response = await fetch(`${sim.url}${pathAndQuery}`, {
    ...init,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
  });
  expect(response.status, pathAndQuery).toBe(200);
  return response.json();
}

beforeAll(async () => {
  sim = await startSimulator({
    seed: 5,
    token: TOKEN,
    projects: 2,
    scale: { assessmentsPerProject: 3, attacksPerAssessment: 2, trialsPerAttack: 3, evaluationJobs: 30 },
  });
  served.push({ what: 'config', schema: ConfigResponseSchema, body: await get(apiPaths.config()) });
  served.push({
    what: 'evaluation page',
    schema: EvaluationJobListSchema,
    body: await get(`${apiPaths.evaluations(sim.org, sim.workspace)}?page=1&page_size=100`),
  });
  for (const key of sim.projectKeys) {
    const summary = await get(apiPaths.summary(sim.org, sim.workspace, key));
    served.push({ what: `summary ${key}`, schema: ProjectSummarySchema, body: summary });
    for (const id of sim.truth.assessmentIds(key)) {
      const trials = await get(`${apiPaths.trials(sim.org, sim.workspace, id)}?limit=5000`);
      served.push({ what: `trials ${id}`, schema: TrialListSchema, body: trials });
    }
    const finding = sim.truth.findingIds(key)[0]!;
    served.push({
      what: `finding ${finding}`,
      schema: FindingDetailSchema,
      body: await get(apiPaths.finding(sim.org, sim.workspace, finding), {
        method: 'PATCH',
        body: JSON.stringify({ notes: 'checked' }),
      }),
    });
  }
});

afterAll(async () => {
  await sim.close();
});

// ---------------------------------------------------------------------------------------------
// Mutations: one change at a random place of a real body.
// ---------------------------------------------------------------------------------------------
const ODD_VALUES: unknown[] = [
  null,
  undefined,
  '',
  'text',
  '2026-01-05T10:00:00Z',
  '2026-13-45T99:00:00Z',
  '3f2b8c1e-6a4d-4e8b-9c1f-2d3e4f5a6b7c',
  '3f2b8c1e-6a4d-4e8b-9c1f-2d3e4f5a6b7',
  'completed',
  'COMPLETED',
  0,
  -0,
  1,
  1.5,
  -3,
  2 ** 53,
  2 ** 53 - 1,
  -(2 ** 53),
  1e300,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  false,
  [],
  [1, 'a'],
  {},
  { nested: { deeper: 1 } },
];
const ODD_KEYS = ['x_new', 'constructor', 'toString', '__proto__', 'odd key', '0', 'hasOwnProperty'];

/** The zod kind of a schema, for a message. */
const kindOf = (schema: z.ZodType): string => schema._zod.def.type;

/** A value for a message (inspect copes with null prototypes and symbols, String does not). */
const show = (value: unknown): string => inspect(value, { depth: 1, breakLength: Infinity });

type Container = Record<string, unknown> | unknown[];

function containers(data: unknown, out: Container[] = []): Container[] {
  if (Array.isArray(data)) {
    out.push(data);
    for (const item of data) containers(item, out);
  } else if (typeof data === 'object' && data !== null) {
    out.push(data as Record<string, unknown>);
    for (const value of Object.values(data)) containers(value, out);
  }
  return out;
}

/** Changes `data` in one place (in place); returns a short description. */
function mutate(data: unknown, rng: Rng): string {
  const all = containers(data);
  const target = all[rng.int(0, all.length - 1)]!;
  // A copy: a later change must not reach the shared list (or put an array inside itself).
  const odd: unknown = structuredClone(ODD_VALUES[rng.int(0, ODD_VALUES.length - 1)]);
  if (Array.isArray(target)) {
    if (target.length > 0 && rng.chance(0.7)) {
      const index = rng.int(0, target.length - 1);
      target[index] = odd;
      return `[${index}] = ${show(odd)}`;
    }
    target.push(odd);
    return `push ${show(odd)}`;
  }
  const keys = Object.keys(target);
  const roll = rng.next();
  if (keys.length > 0 && roll < 0.55) {
    const key = keys[rng.int(0, keys.length - 1)]!;
    target[key] = odd;
    return `.${key} = ${show(odd)}`;
  }
  if (keys.length > 0 && roll < 0.8) {
    const key = keys[rng.int(0, keys.length - 1)]!;
    delete target[key];
    return `delete .${key}`;
  }
  const key = ODD_KEYS[rng.int(0, ODD_KEYS.length - 1)]!;
  Object.defineProperty(target, key, { value: odd, enumerable: true, writable: true, configurable: true });
  return `add .${key} = ${show(odd)}`;
}

describe('acceptsFor agrees with zod', () => {
  it('on the bodies as served, and on each assessment and trial inside them', () => {
    let accepted = 0;
    for (const { what, schema, body } of served) {
      if (agree(schema, body, what)) accepted++;
      sameReport(schema, body, what);
    }
    for (const { what, body } of served.filter((s) => s.schema === ProjectSummarySchema)) {
      for (const assessment of (body as { assessments: unknown[] }).assessments)
        agree(AssessmentDetailSchema, assessment, `${what} assessment`);
    }
    for (const { what, body } of served.filter((s) => s.schema === TrialListSchema)) {
      for (const trial of body as unknown[]) agree(TrialResultSchema, trial, `${what} trial`);
    }
    // The comparison is not only of rejections: the simulator's bodies fit the contract.
    expect(accepted).toBe(served.length);
  });

  it('on thousands of mutated copies, with the same issues and unknown keys as parseTolerant', () => {
    const rng = new Rng(20261125);
    let rejected = 0;
    let accepted = 0;
    for (let round = 0; round < 3000; round++) {
      const { what, schema, body } = served[rng.int(0, served.length - 1)]!;
      const copy: unknown = structuredClone(body);
      const changes = Array.from({ length: rng.int(1, 3) }, () => mutate(copy, rng));
      const label = `${what}: ${changes.join(', ')}`;
      if (agree(schema, copy, label)) accepted++;
      else rejected++;
      if (round % 10 === 0) sameReport(schema, copy, label);
    }
    // Both outcomes occur often enough for the agreement to mean something.
    expect(rejected).toBeGreaterThan(500);
    expect(accepted).toBeGreaterThan(300);
  });

  it('on edge values of every leaf kind and of every schema the API module exports', () => {
    const leaves: z.ZodType[] = [
      z.string(),
      z.number(),
      z.int(),
      z.boolean(),
      z.unknown(),
      z.guid(),
      z.iso.datetime({ offset: true, local: true }),
      schemas.RunStatusSchema,
      z.record(z.string(), z.int()),
      z.array(z.string()).nullable().optional(),
      z.string().default('x'),
      z.union([z.string(), z.int()]),
    ];
    const exported = (Object.values(schemas) as unknown[]).filter(
      (value): value is z.ZodType => value instanceof z.ZodType,
    );
    expect(exported.length).toBeGreaterThan(40);
    const withSymbol = { a: 1, [Symbol('s')]: 2 };
    const nullPrototype = Object.assign(Object.create(null) as object, { a: 1 });
    for (const schema of [...leaves, ...exported, AcceptanceFileSchema]) {
      for (const value of [...ODD_VALUES, withSymbol, nullPrototype, { __proto__: 1 }]) {
        agree(schema, value, `${kindOf(schema)} ${show(value)}`);
      }
    }
  });

  it('on schema kinds it leaves to zod: refinements, pipes, strict objects, exact optionals, xor', () => {
    const cases: [z.ZodType, unknown[]][] = [
      [z.string().min(3), ['ab', 'abc', 3]],
      [z.number().max(2), [1, 3, 'x']],
      [z.array(z.int()).min(1), [[], [1], [1.5]]],
      [z.object({ a: z.int() }).refine((o) => o.a > 0), [{ a: 1 }, { a: -1 }, {}]],
      [z.string().transform((s) => s.length), ['abc', 1]],
      [z.strictObject({ a: z.int().optional() }), [{}, { a: 1 }, { b: 1 }, { a: 1, __proto__: 2 }]],
      [UpdateFindingRequestSchema, [{}, { notes: 'n' }, { notes: 'n', extra: 1 }, { severity: 'x' }]],
      [z.object({ a: z.exactOptional(z.string()) }), [{}, { a: 'x' }, { a: undefined }]],
      [z.xor([z.string(), z.string().min(2)]), ['a', 'ab', 1]],
      [
        z.discriminatedUnion('kind', [
          z.object({ kind: z.literal('a'), n: z.int() }),
          z.object({ kind: z.literal('b') }),
        ]),
        [{ kind: 'a', n: 1 }, { kind: 'a' }, { kind: 'b' }, { kind: 'c' }],
      ],
      [z.literal(['x', 1]), ['x', 1, 'y']],
      [z.record(z.enum(['a', 'b']), z.int()), [{ a: 1, b: 2 }, { a: 1 }, { a: 1, b: 2, c: 3 }]],
      [z.object({ a: z.string().optional().default('d') }), [{}, { a: 1 }, { a: 'x' }]],
      [z.object({ a: z.unknown() }), [{}, { a: undefined }, { a: 1 }]],
      [z.looseObject({ a: z.string().prefault('p') }), [{}, { a: 1 }]],
    ];
    for (const [schema, values] of cases) {
      for (const value of values) agree(schema, value, `${kindOf(schema)} ${show(value)}`);
    }
  });
});
