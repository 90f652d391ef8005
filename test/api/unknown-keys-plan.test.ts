/**
 * findUnknownKeys walks a body with plans built once per schema position (parse.ts). This checks it
 * against the plain recursive walk it replaced, kept below as the reference: real summaries from the
 * simulator, with foreign keys planted at random depths (odd names, prototype names, keys in arrays
 * of objects, in records, on values of the wrong type), must give exactly the same sorted list, and
 * the same again on a second body (plans are reused across calls).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { findUnknownKeys, jsonPath } from '../../src/api/parse.js';
import { EvaluationJobListSchema, ProjectSummarySchema, TrialListSchema } from '../../src/api/schemas.js';
import { Rng } from '../../src/simulator/prng.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';

// ---------------------------------------------------------------------------------------------
// The reference: the walk findUnknownKeys used before plans (same rules, rebuilt on every node).
// ---------------------------------------------------------------------------------------------
interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  valueType?: z.ZodType;
  in?: z.ZodType;
}
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'catch', 'readonly']);
function unwrap(schema: z.ZodType): Def {
  let def = defOf(schema);
  for (let depth = 0; depth < 32; depth++) {
    const inner = WRAPPERS.has(def.type) ? def.innerType : def.type === 'pipe' ? def.in : undefined;
    if (!inner) break;
    def = defOf(inner);
  }
  return def;
}
const isLeaf = (schema: z.ZodType): boolean => !['object', 'array', 'record'].includes(unwrap(schema).type);
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
function referenceWalk(schema: z.ZodType, data: unknown, path: string, found: Set<string>): void {
  const def = unwrap(schema);
  if (def.type === 'array' && Array.isArray(data) && def.element && !isLeaf(def.element)) {
    for (const item of data) referenceWalk(def.element, item, `${path}[*]`, found);
  } else if (def.type === 'record' && isPlainObject(data) && def.valueType && !isLeaf(def.valueType)) {
    for (const value of Object.values(data)) referenceWalk(def.valueType, value, `${path}.*`, found);
  } else if (def.type === 'object' && isPlainObject(data) && def.shape) {
    for (const key of Object.keys(data)) {
      const child = Object.hasOwn(def.shape, key) ? def.shape[key] : undefined;
      const childPath = path + jsonPath([key]).slice(1);
      if (!child) found.add(childPath);
      else if (!isLeaf(child)) referenceWalk(child, data[key], childPath, found);
    }
  }
}
function reference(schema: z.ZodType, data: unknown): string[] {
  const found = new Set<string>();
  referenceWalk(schema, data, '$', found);
  return [...found].sort();
}

// ---------------------------------------------------------------------------------------------
// Drift: foreign keys planted at random places of a real body.
// ---------------------------------------------------------------------------------------------
const ODD_KEYS = ['x_new', 'constructor', 'toString', '__proto__', 'odd key', '0', 'é', 'hasOwnProperty'];

/** Every object and array inside `data` (itself included). */
function containers(data: unknown, out: (Record<string, unknown> | unknown[])[] = []): typeof out {
  if (Array.isArray(data)) {
    out.push(data);
    for (const item of data) containers(item, out);
  } else if (isPlainObject(data)) {
    out.push(data);
    for (const value of Object.values(data)) containers(value, out);
  }
  return out;
}

function plantDrift(data: unknown, rng: Rng, count: number): void {
  const all = containers(data);
  for (let i = 0; i < count; i++) {
    const target = all[rng.int(0, all.length - 1)]!;
    const key = ODD_KEYS[rng.int(0, ODD_KEYS.length - 1)]!;
    const value = [{ nested: { deeper: 1 } }, 'text', [{ inner: true }], null][rng.int(0, 3)];
    if (Array.isArray(target)) target.push({ [key]: value });
    else Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
    // Sometimes a known key gets a value of the wrong shape (an object where a scalar belongs, or a scalar).
    if (isPlainObject(target) && rng.next() < 0.2) {
      const known = Object.keys(target)[0];
      if (known !== undefined) target[known] = rng.next() < 0.5 ? { surprise: 1 } : 42;
    }
  }
}

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({
    seed: 11,
    projects: 2,
    scale: { assessmentsPerProject: 4, attacksPerAssessment: 2, trialsPerAttack: 3, evaluationJobs: 20 },
  });
});
afterAll(async () => {
  await sim.close();
});

describe('findUnknownKeys with walk plans', () => {
  it('finds what the plain walk finds in the bodies as served (the simulator adds its own drift)', () => {
    for (const key of sim.projectKeys) {
      const summary = sim.truth.summary(key);
      expect(findUnknownKeys(ProjectSummarySchema, summary)).toEqual(
        reference(ProjectSummarySchema, summary),
      );
    }
  });

  it('lists the same drift as the plain walk, over many planted variants and repeated calls', () => {
    const rng = new Rng(2026);
    let seen = 0;
    for (let round = 0; round < 40; round++) {
      const key = sim.projectKeys[round % sim.projectKeys.length]!;
      const summary: unknown = structuredClone(sim.truth.summary(key));
      plantDrift(summary, rng, rng.int(1, 12));
      const expected = reference(ProjectSummarySchema, summary);
      expect(findUnknownKeys(ProjectSummarySchema, summary)).toEqual(expected);
      // Plans are cached per schema position: a second call must not remember the first body.
      expect(findUnknownKeys(ProjectSummarySchema, summary)).toEqual(expected);
      seen += expected.length;
    }
    // The planted keys were found at all (the comparison is not of two empty lists).
    expect(seen).toBeGreaterThan(40);
  });

  it('agrees on trial lists and evaluation pages, including values of the wrong type', () => {
    const rng = new Rng(7);
    const bodies: [z.ZodType, unknown][] = [
      [TrialListSchema, [{ id: 'a', extra: 1, metadata: { x: [{ y: 1 }] } }, 'not an object', null]],
      [TrialListSchema, { not: 'an array' }],
      [EvaluationJobListSchema, { items: [{ id: 'j', surprise: { deep: 1 } }], total: 1, more: true }],
      [EvaluationJobListSchema, { items: 'wrong', total: 'x' }],
    ];
    for (const [schema, body] of bodies) {
      for (let i = 0; i < 5; i++) {
        const copy: unknown = structuredClone(body);
        plantDrift(copy, rng, 3);
        expect(findUnknownKeys(schema, copy)).toEqual(reference(schema, copy));
      }
    }
  });
});
