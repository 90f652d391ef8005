/**
 * Local validation of a credit auto-refill change. All four fields are required by the spec and the
 * numbers have bounds (AUTO_REFILL_BOUNDS, shared with the simulator); they are checked here with a
 * message per field, so the operator fixes everything in one go and nothing out of range is sent.
 */
import { AUTO_REFILL_BOUNDS, type ConfigureAutoRefillRequest } from '../api/schemas.js';
import { UsageError } from '../errors.js';
import { terminalSafe } from './terminal-text.js';

/** Unvalidated input as given on the command line; numbers stay strings so `0x10` or `1e3` are refused. */
export interface AutoRefillInput {
  enabled?: boolean | undefined;
  threshold?: string | number | undefined;
  quantity?: string | number | undefined;
  monthlyCap?: string | number | undefined;
}

/** Returns the request body, or throws a UsageError (exit 2) listing every problem. Sends nothing. */
export function validateAutoRefill(input: AutoRefillInput): ConfigureAutoRefillRequest {
  const problems: string[] = [];
  if (input.enabled === undefined) problems.push('pass --enabled or --no-enabled');
  const threshold = readBounded(input.threshold, 'threshold', '--threshold', problems);
  const quantity = readBounded(input.quantity, 'quantity', '--quantity', problems);
  const monthlyCap = readBounded(input.monthlyCap, 'monthly_cap', '--monthly-cap', problems);
  if (
    input.enabled === undefined ||
    threshold === undefined ||
    quantity === undefined ||
    monthlyCap === undefined
  ) {
    throw new UsageError(
      `Auto-refill settings not sent: ${problems.length} problem(s):\n${problems.map((p) => `  ${p}`).join('\n')}`,
    );
  }
  return { enabled: input.enabled, monthly_cap: monthlyCap, quantity, threshold };
}

/** One bounded integer; records a problem and returns undefined when it is missing or out of range. */
function readBounded(
  raw: string | number | undefined,
  field: keyof typeof AUTO_REFILL_BOUNDS,
  flag: string,
  problems: string[],
): number | undefined {
  const { min, max } = AUTO_REFILL_BOUNDS[field];
  const range = `an integer from ${min} to ${max}`;
  if (raw === undefined || raw === '') {
    problems.push(`${flag} is required (${range})`);
    return undefined;
  }
  const text = String(raw).trim();
  const value = /^[+-]?\d+$/u.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value)) {
    problems.push(`${flag} must be ${range}, got ${JSON.stringify(terminalSafe(String(raw), 40))}`);
  } else if (value < min) {
    problems.push(`${flag} must be at least ${min} (${range}), got ${value}`);
  } else if (value > max) {
    problems.push(`${flag} must be at most ${max} (${range}), got ${value}`);
  } else {
    return value;
  }
  return undefined;
}
