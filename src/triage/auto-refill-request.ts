/**
 * Local validation of a credit auto-refill change. All four fields are required by the spec and the
 * numbers have bounds (AUTO_REFILL_BOUNDS, shared with the simulator); they are checked here with a
 * message per field, so the operator fixes everything in one go and nothing out of range is sent.
 *
 * One definition for every caller: the CLI (through validateAutoRefill, numbers as typed) and the
 * library's configureAutoRefill (the request body as given, `monthly_cap`). Only the spelling of the
 * field names differs: each caller's messages name the fields the way that caller wrote them.
 */
import { AUTO_REFILL_BOUNDS, type ConfigureAutoRefillRequest } from '../api/schemas.js';
import { UsageError, wordsFlags } from '../errors.js';
import { terminalSafe } from './terminal-text.js';

/** Unvalidated input as given on the command line; numbers stay strings so `0x10` or `1e3` are refused. */
export interface AutoRefillInput {
  enabled?: boolean | undefined;
  threshold?: string | number | undefined;
  quantity?: string | number | undefined;
  monthlyCap?: string | number | undefined;
}

/** The request body's fields, in the order messages list them. */
export const AUTO_REFILL_FIELDS = ['enabled', 'threshold', 'quantity', 'monthly_cap'] as const;
/** One field of ConfigureAutoRefillRequest. */
export type AutoRefillField = (typeof AUTO_REFILL_FIELDS)[number];

/**
 * How a caller spells each field, as the option name its messages pass to `name`: validateAutoRefill's
 * `monthlyCap` (the CLI shows it as `--monthly-cap`), configureAutoRefill's `monthly_cap`.
 */
type Spelling = Record<AutoRefillField, string>;

const INPUT_SPELLING: Spelling = {
  enabled: 'enabled',
  threshold: 'threshold',
  quantity: 'quantity',
  monthly_cap: 'monthlyCap',
};
const BODY_SPELLING: Spelling = {
  enabled: 'enabled',
  threshold: 'threshold',
  quantity: 'quantity',
  monthly_cap: 'monthly_cap',
};

/**
 * Returns the request body, or throws a UsageError (exit 2) listing every problem. Sends nothing.
 * Problems name the library's options (`options.monthlyCap`); the CLI spells them as its flags.
 */
export function validateAutoRefill(input: AutoRefillInput): ConfigureAutoRefillRequest {
  return checkSettings(
    {
      enabled: input.enabled,
      threshold: input.threshold,
      quantity: input.quantity,
      monthly_cap: input.monthlyCap,
    },
    INPUT_SPELLING,
  );
}

/**
 * The same checks on a request body as a library caller gives it to configureAutoRefill (a JavaScript
 * caller's values are not held to the type): problems name the fields as the body spells them
 * (`options.monthly_cap`). Returns a body holding only the four fields.
 */
export function checkAutoRefillRequest(request: ConfigureAutoRefillRequest): ConfigureAutoRefillRequest {
  const given: Partial<Record<AutoRefillField, unknown>> =
    typeof request === 'object' && request !== null ? request : {};
  return checkSettings(
    {
      enabled: given.enabled,
      threshold: given.threshold,
      quantity: given.quantity,
      monthly_cap: given.monthly_cap,
    },
    BODY_SPELLING,
  );
}

function checkSettings(
  raw: Record<AutoRefillField, unknown>,
  spelling: Spelling,
): ConfigureAutoRefillRequest {
  const problems: Problem[] = [];
  const enabled = readEnabled(raw.enabled, spelling.enabled, problems);
  const threshold = readBounded(raw.threshold, 'threshold', spelling.threshold, problems);
  const quantity = readBounded(raw.quantity, 'quantity', spelling.quantity, problems);
  const monthlyCap = readBounded(raw.monthly_cap, 'monthly_cap', spelling.monthly_cap, problems);
  if (
    enabled === undefined ||
    threshold === undefined ||
    quantity === undefined ||
    monthlyCap === undefined
  ) {
    throw new UsageError(
      (name) =>
        `Auto-refill settings not sent: ${problems.length} problem(s):\n${problems.map((problem) => `  ${problem(name)}`).join('\n')}`,
    );
  }
  return { enabled, monthly_cap: monthlyCap, quantity, threshold };
}

/** One problem, worded with the caller's spelling of option names. */
type Problem = (name: (option: string) => string) => string;

/** `enabled` must be a boolean: a JavaScript caller's `"false"` would otherwise turn auto-refill on. */
function readEnabled(raw: unknown, option: string, problems: Problem[]): boolean | undefined {
  if (typeof raw === 'boolean') return raw;
  if (raw === undefined) {
    problems.push((name) =>
      wordsFlags(name) ? 'pass --enabled or --no-enabled' : `${name(option)} is required (true or false)`,
    );
  } else {
    const shown = shownValue(raw);
    problems.push((name) =>
      wordsFlags(name)
        ? `pass --enabled or --no-enabled (without a value), got ${shown}`
        : `${name(option)} must be true or false, got ${shown}`,
    );
  }
  return undefined;
}

/** One bounded integer; records a problem and returns undefined when it is missing or out of range. */
function readBounded(
  raw: unknown,
  field: keyof typeof AUTO_REFILL_BOUNDS,
  option: string,
  problems: Problem[],
): number | undefined {
  const { min, max } = AUTO_REFILL_BOUNDS[field];
  const range = `an integer from ${min} to ${max}`;
  if (raw === undefined || raw === null || raw === '') {
    problems.push((name) => `${name(option)} is required (${range})`);
    return undefined;
  }
  const text = typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim() : '';
  const value = /^[+-]?\d+$/u.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value)) {
    const shown = shownValue(raw);
    problems.push((name) => `${name(option)} must be ${range}, got ${shown}`);
  } else if (value < min) {
    problems.push((name) => `${name(option)} must be at least ${min} (${range}), got ${value}`);
  } else if (value > max) {
    problems.push((name) => `${name(option)} must be at most ${max} (${range}), got ${value}`);
  } else {
    return value;
  }
  return undefined;
}

/** A refused value as messages quote it: `"1e3"`, `"false"`, or its kind when it is not a scalar. */
function shownValue(raw: unknown): string {
  if (
    typeof raw === 'string' ||
    typeof raw === 'number' ||
    typeof raw === 'boolean' ||
    typeof raw === 'bigint'
  )
    return JSON.stringify(terminalSafe(String(raw), 40));
  return raw === null ? 'null' : Array.isArray(raw) ? 'an array' : `a value of type ${typeof raw}`;
}
