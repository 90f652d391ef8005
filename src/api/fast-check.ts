/**
 * A quick yes/no to "would zod accept this value?", derived once per schema from the zod schema
 * itself, so the schemas in schemas.ts stay the one definition of the contract.
 *
 * Why: a snapshot validates every body it stores, and almost every body fits. zod answers with a
 * parsed copy and issue objects for every value it walks, which on a cold process costs ~150 ms for
 * the first 1.4 MB project summary; this check walks the same value once and allocates nothing. When
 * it says no, the caller asks zod, which names the problems (see `inspectTolerant` in parse.ts).
 *
 * It must never say yes where zod says no. Each kind of schema below mirrors zod's own rule for it
 * (zod 4 core: object keys present or optional, `in` for presence, records' own enumerable keys,
 * unions' any-option, optional/nullable/default); anything else — checks, refinements, pipes,
 * transforms, coercion, formats not listed here — is answered by zod itself for that value, so an
 * unfamiliar schema costs speed, never correctness. test/api/fast-check.test.ts compares the two on
 * valid bodies, on the drift cases and on thousands of mutated ones.
 */
import type { z } from 'zod';

/** True when zod's safeParse of the value would succeed. */
export type Accepts = (value: unknown) => boolean;

interface Internals {
  def: Def;
  traits: Set<string>;
  optin?: 'optional' | 'defaulted' | undefined;
  optout?: 'optional' | undefined;
  values?: Set<unknown> | undefined;
}

interface Def {
  type: string;
  checks?: unknown[];
  coerce?: boolean;
  format?: string;
  pattern?: RegExp;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  innerType?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  mode?: string;
}

function internals(schema: z.ZodType): Internals {
  return (schema as unknown as { _zod: Internals })._zod;
}

const compiled = new WeakMap<z.ZodType, Accepts>();

/** The quick check for `schema` (built on first use, then cached with the schema). */
export function acceptsFor(schema: z.ZodType): Accepts {
  let accepts = compiled.get(schema);
  if (!accepts) {
    accepts = compile(schema);
    compiled.set(schema, accepts);
  }
  return accepts;
}

const always: Accepts = () => true;
const isString: Accepts = (value) => typeof value === 'string';
const isBoolean: Accepts = (value) => typeof value === 'boolean';
/** zod's number: a number that is neither NaN nor infinite. */
const isFiniteNumber: Accepts = (value) => typeof value === 'number' && Number.isFinite(value);
/** zod's int (format safeint): an integer within ±(2^53 − 1). */
const isSafeInteger: Accepts = (value) => Number.isSafeInteger(value);

/** zod's isObject: any object but null and arrays. */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** zod's isPlainObject (util.js), which records require, rule for rule. */
function isPlainObject(value: unknown): value is Record<PropertyKey, unknown> {
  if (!isObject(value)) return false;
  const ctor: unknown = value.constructor;
  if (ctor === undefined || typeof ctor !== 'function') return true;
  const prototype: unknown = (ctor as { prototype?: unknown }).prototype;
  return isObject(prototype) && Object.prototype.hasOwnProperty.call(prototype, 'isPrototypeOf');
}

/**
 * The zod core classes (`$Zod…` traits) of each kind this module mirrors, exactly: a subclass with
 * its own rules (an exact optional, a discriminated or exclusive union, a URL format…) has other
 * traits, and is left to zod.
 */
const KNOWN_KINDS: Record<string, string> = {
  [traitKey(['$ZodString'])]: 'string',
  [traitKey(['$ZodGUID', '$ZodStringFormat', '$ZodCheckStringFormat', '$ZodCheck', '$ZodString'])]: 'pattern',
  [traitKey(['$ZodISODateTime', '$ZodStringFormat', '$ZodCheckStringFormat', '$ZodCheck', '$ZodString'])]:
    'pattern',
  [traitKey(['$ZodNumber'])]: 'number',
  [traitKey(['$ZodNumberFormat', '$ZodCheckNumberFormat', '$ZodCheck', '$ZodNumber'])]: 'number-format',
  [traitKey(['$ZodBoolean'])]: 'boolean',
  [traitKey(['$ZodUnknown'])]: 'anything',
  [traitKey(['$ZodAny'])]: 'anything',
  [traitKey(['$ZodEnum'])]: 'enum',
  [traitKey(['$ZodOptional'])]: 'optional',
  [traitKey(['$ZodNullable'])]: 'nullable',
  [traitKey(['$ZodDefault'])]: 'default',
  [traitKey(['$ZodArray'])]: 'array',
  [traitKey(['$ZodUnion'])]: 'union',
  [traitKey(['$ZodRecord'])]: 'record',
  [traitKey(['$ZodObject'])]: 'object',
  [traitKey(['$ZodObjectJIT', '$ZodObject'])]: 'object',
};

function traitKey(traits: Iterable<string>): string {
  return [...new Set(['$ZodType', ...traits])]
    .filter((trait) => trait.startsWith('$Zod'))
    .sort()
    .join(',');
}

function compile(schema: z.ZodType): Accepts {
  const zod = internals(schema);
  const def = zod.def;
  // zod itself, for this value only: exact by definition, and the object/array walk around it stays quick.
  const byZod: Accepts = (value) => schema.safeParse(value).success;
  if ((def.checks?.length ?? 0) > 0 || def.coerce === true) return byZod;
  switch (KNOWN_KINDS[traitKey(zod.traits)]) {
    case 'string':
      return isString;
    case 'pattern':
      return pattern(def) ?? byZod;
    case 'number':
      return isFiniteNumber;
    case 'number-format':
      return def.format === 'safeint' ? isSafeInteger : byZod;
    case 'boolean':
      return isBoolean;
    case 'anything':
      return always;
    case 'enum': {
      const values = zod.values;
      return values ? (value) => values.has(value) : byZod;
    }
    case 'optional':
      return def.innerType ? optional(def.innerType) : byZod;
    case 'nullable': {
      if (!def.innerType) return byZod;
      const inner = acceptsFor(def.innerType);
      return (value) => value === null || inner(value);
    }
    case 'default': {
      if (!def.innerType) return byZod;
      const inner = acceptsFor(def.innerType);
      return (value) => value === undefined || inner(value);
    }
    case 'array': {
      if (!def.element) return byZod;
      const element = acceptsFor(def.element);
      return (value) => {
        if (!Array.isArray(value)) return false;
        for (let i = 0; i < value.length; i++) if (!element(value[i])) return false;
        return true;
      };
    }
    case 'union': {
      if (!def.options || def.options.length === 0) return byZod;
      const options = def.options.map(acceptsFor);
      return (value) => {
        for (const option of options) if (option(value)) return true;
        return false;
      };
    }
    case 'record':
      return record(def) ?? byZod;
    case 'object':
      return object(def) ?? byZod;
    default:
      return byZod;
  }
}

/** A guid or ISO date-time: a string its pattern matches, as zod's string format check tests it. */
function pattern(def: Def): Accepts | undefined {
  const regex = def.pattern;
  if (!(regex instanceof RegExp)) return undefined;
  return (value) => {
    if (typeof value !== 'string') return false;
    regex.lastIndex = 0;
    return regex.test(value);
  };
}

/** zod's optional: undefined passes, unless the inner schema fills in for it (then the inner decides). */
function optional(innerType: z.ZodType): Accepts {
  const inner = acceptsFor(innerType);
  const innerDecidesUndefined = internals(innerType).optin === 'defaulted';
  return (value) => (value === undefined ? !innerDecidesUndefined || inner(value) : inner(value));
}

/**
 * A record with plain string keys: every own enumerable key but `__proto__` (which zod skips) has a
 * value the value schema accepts; a symbol key fails a string key schema unless the record is loose.
 */
function record(def: Def): Accepts | undefined {
  if (!def.keyType || !def.valueType) return undefined;
  const key = internals(def.keyType);
  const plainString = KNOWN_KINDS[traitKey(key.traits)] === 'string';
  if (!plainString || (key.def.checks?.length ?? 0) > 0 || key.def.coerce === true || key.values)
    return undefined;
  const valueAccepts = acceptsFor(def.valueType);
  const loose = def.mode === 'loose';
  return (value) => {
    if (!isPlainObject(value)) return false;
    for (const name of Reflect.ownKeys(value)) {
      if (name === '__proto__' || !Object.prototype.propertyIsEnumerable.call(value, name)) continue;
      if (typeof name === 'symbol') {
        if (loose) continue;
        return false;
      }
      if (!valueAccepts(value[name])) return false;
    }
    return true;
  };
}

/**
 * One declared key of an object, judged by its schema's optin/optout as zod's handlePropertyResult
 * does, presence read with `in` as zod reads it: optional in and out — an absent key passes whatever
 * the schema says of undefined; not optional in — the key must be present and its value accepted;
 * optional in only (a default) — the schema's verdict on the value, undefined when absent.
 */
function field(key: string, child: z.ZodType): (object: Record<string, unknown>) => boolean {
  const accepts = acceptsFor(child);
  const { optin, optout } = internals(child);
  if (optin !== undefined && optout === 'optional')
    return (object) => !(key in object) || accepts(object[key]);
  if (optin === undefined) return (object) => key in object && accepts(object[key]);
  return (object) => accepts(object[key]);
}

/** An object: every declared key, then the others by the catchall (none or unknown: any; never: none). */
function object(def: Def): Accepts | undefined {
  const shape = def.shape;
  if (!shape || Object.getOwnPropertySymbols(shape).length > 0) return undefined;
  const keys = Object.keys(shape);
  if (keys.includes('__proto__')) return undefined;
  let strict = false;
  if (def.catchall) {
    const catchall = internals(def.catchall);
    const kind = KNOWN_KINDS[traitKey(catchall.traits)];
    if ((catchall.def.checks?.length ?? 0) > 0) return undefined;
    if (traitKey(catchall.traits) === traitKey(['$ZodNever'])) strict = true;
    else if (kind !== 'anything') return undefined;
  }
  const fields = keys.map((key) => field(key, shape[key]!));
  const declared = new Set(keys);
  return (value) => {
    if (!isObject(value)) return false;
    for (const accepts of fields) if (!accepts(value)) return false;
    if (strict) for (const key in value) if (!declared.has(key)) return false;
    return true;
  };
}
