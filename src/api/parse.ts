/**
 * Two ways to read a body against the API schemas:
 *
 * - `parseStrict` throws on any problem. It checks our own simulator against the contract.
 * - `parseTolerant` never throws. Real services drift: it returns the parsed value when the body fits,
 *   and in every case the list of problems (with JSON paths) and the keys the spec does not know, so
 *   the caller can record them rather than lose them.
 */
import type { z } from 'zod';
import { acceptsFor } from './fast-check.js';

/** One problem found in a body, located by a JSON path such as `$.assessments[3].status`. */
export interface SchemaIssue {
  path: string;
  message: string;
  code: string;
}

/** The outcome of parseTolerant: the parsed value or the issues, with unknown keys either way. */
export type TolerantParse<T> =
  | { ok: true; value: T; issues: []; unknownKeys: string[] }
  | { ok: false; value: undefined; issues: SchemaIssue[]; unknownKeys: string[] };

/** Thrown by `parseStrict`; carries every issue, not just the first. */
export class SchemaValidationError extends Error {
  override readonly name = 'SchemaValidationError';
  constructor(
    readonly what: string,
    readonly issues: SchemaIssue[],
  ) {
    super(`${what} does not match the API schema: ${formatIssues(issues)}`);
  }
}

/** `$`, `$.a`, `$.a[2].b`, `$["odd key"]` */
export function jsonPath(segments: readonly PropertyKey[]): string {
  let out = '$';
  for (const seg of segments) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (typeof seg === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(seg)) out += `.${seg}`;
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out;
}

export function formatIssues(issues: readonly SchemaIssue[], max = 5): string {
  const shown = issues.slice(0, max).map((i) => `${i.path}: ${i.message}`);
  if (issues.length > max) shown.push(`… and ${issues.length - max} more`);
  return shown.join('; ');
}

function toIssues(error: z.ZodError): SchemaIssue[] {
  return error.issues.map((issue) => ({
    path: jsonPath(issue.path),
    message: issue.message,
    code: issue.code,
  }));
}

/**
 * Validates `data` against `schema`; throws SchemaValidationError naming every issue (`what` names the data
 * in the message).
 */
export function parseStrict<S extends z.ZodType>(schema: S, data: unknown, what = 'response'): z.output<S> {
  const result = schema.safeParse(data);
  if (!result.success) throw new SchemaValidationError(what, toIssues(result.error));
  return result.data;
}

/**
 * Validates `data` against `schema` without throwing: the value, or the issues, plus the keys the schema
 * does not know.
 */
export function parseTolerant<S extends z.ZodType>(schema: S, data: unknown): TolerantParse<z.output<S>> {
  const unknownKeys = findUnknownKeys(schema, data);
  const result = schema.safeParse(data);
  if (result.success) return { ok: true, value: result.data, issues: [], unknownKeys };
  return { ok: false, value: undefined, issues: toIssues(result.error), unknownKeys };
}

/**
 * What parseTolerant reports (issues and unknown keys) without the parsed value, for callers that only
 * record problems. Most bodies fit: the quick check derived from the schema (fast-check.ts) says so
 * without zod building a parsed copy; for a body that does not, zod names the problems, so the issues
 * are exactly parseTolerant's.
 */
export function inspectTolerant(
  schema: z.ZodType,
  data: unknown,
): { issues: SchemaIssue[]; unknownKeys: string[] } {
  const unknownKeys = findUnknownKeys(schema, data);
  if (acceptsFor(schema)(data)) return { issues: [], unknownKeys };
  const result = schema.safeParse(data);
  return { issues: result.success ? [] : toIssues(result.error), unknownKeys };
}

// ---------------------------------------------------------------------------------------------
// Schema drift: keys present in the data that the schema does not declare.
// ---------------------------------------------------------------------------------------------

interface SchemaDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  in?: z.ZodType;
}

function defOf(schema: z.ZodType): SchemaDef {
  return (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
}

/**
 * Lists the paths of keys the schema does not know, with array indices folded to `[*]` so that a
 * new field on 10,000 trials is reported once. Sorted, de-duplicated.
 */
export function findUnknownKeys(schema: z.ZodType, data: unknown): string[] {
  const found = new Set<string>();
  let plan = rootPlans.get(schema);
  if (plan === undefined) {
    plan = planFor(schema, '$');
    rootPlans.set(schema, plan);
  }
  plan?.visit(data, found);
  return [...found].sort();
}

/** Wrapper types whose inner schema describes the same value. */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'catch', 'readonly']);

/** The schema under wrappers and pipes: what the value itself must be. */
function unwrap(schema: z.ZodType): SchemaDef {
  let def = defOf(schema);
  for (let depth = 0; depth < 32; depth++) {
    const inner = WRAPPERS.has(def.type) ? def.innerType : def.type === 'pipe' ? def.in : undefined;
    if (!inner) break;
    def = defOf(inner);
  }
  return def;
}

/** `path` extended by one key, as jsonPath writes it. */
function childPath(path: string, key: string): string {
  return path + jsonPath([key]).slice(1);
}

/**
 * How to look for unknown keys in a value of one schema at one (folded) path. A plan is built once
 * per schema position and reused for every value there: the walk runs over every key of every object
 * of a body (summaries hold hundreds of thousands), so each key costs one Map lookup, and a path
 * string is built only once per key and position, not once per occurrence.
 */
interface WalkPlan {
  visit(data: unknown, found: Set<string>): void;
}

/** Root plans (path `$`) by schema; null when nothing below the schema can hold keys. */
const rootPlans = new WeakMap<z.ZodType, WalkPlan | null>();

/** The plan for values of `schema` at `path`; null for scalars and our unions (of scalars). */
function planFor(schema: z.ZodType, path: string): WalkPlan | null {
  const def = unwrap(schema);
  switch (def.type) {
    case 'array':
      return def.element ? elementsPlan(def.element, `${path}[*]`, Array.isArray) : null;
    case 'record':
      return def.valueType ? elementsPlan(def.valueType, `${path}.*`, isPlainObject) : null;
    case 'object':
      return def.shape ? objectPlan(def.shape, path) : null;
    default:
      return null;
  }
}

/** Every element of an array (or value of a record) against `element`, built on first use. */
function elementsPlan(
  element: z.ZodType,
  elementPath: string,
  accepts: (data: unknown) => boolean,
): WalkPlan | null {
  let plan: WalkPlan | null | undefined;
  return {
    visit(data, found) {
      if (!accepts(data)) return;
      plan ??= planFor(element, elementPath);
      if (!plan) return;
      const values = Array.isArray(data) ? (data as unknown[]) : Object.values(data as object);
      for (const value of values) plan.visit(value, found);
    },
  };
}

/**
 * The keys of an object: a key the shape does not declare is reported (its path, a string), a
 * declared one is walked with its own plan (null: a leaf, nothing to walk).
 */
function objectPlan(shape: Record<string, z.ZodType>, path: string): WalkPlan {
  const byKey = new Map<string, WalkPlan | string | null>();
  return {
    visit(data, found) {
      if (!isPlainObject(data)) return;
      for (const key of Object.keys(data)) {
        let next = byKey.get(key);
        if (next === undefined) {
          // Own keys only: a body key like "constructor" must not find Object.prototype's.
          const child = Object.hasOwn(shape, key) ? shape[key] : undefined;
          next = child ? planFor(child, childPath(path, key)) : childPath(path, key);
          byKey.set(key, next);
        }
        if (typeof next === 'string') found.add(next);
        else if (next) next.visit(data[key], found);
      }
    },
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
