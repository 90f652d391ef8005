/**
 * Local validation of a credit auto-refill change. All four fields are required by the spec and the
 * numbers have bounds (AUTO_REFILL_BOUNDS, shared with the simulator); they are checked here with a
 * message per field, so the operator fixes everything in one go and nothing out of range is sent.
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

/**
 * Returns the request body, or throws a UsageError (exit 2) listing every problem. Sends nothing.
 * Problems name the library's options (`options.monthlyCap`); the CLI spells them as its flags.
 */
export function validateAutoRefill(input: AutoRefillInput): ConfigureAutoRefillRequest {
  const problems: Problem[] = [];
  if (input.enabled === undefined)
    problems.push((name) =>
      wordsFlags(name) ? 'pass --enabled or --no-enabled' : `${name('enabled')} is required (true or false)`,
    );
  const threshold = readBounded(input.threshold, 'threshold', 'threshold', problems);
  const quantity = readBounded(input.quantity, 'quantity', 'quantity', problems);
  const monthlyCap = readBounded(input.monthlyCap, 'monthly_cap', 'monthlyCap', problems);
  if (
    input.enabled === undefined ||
    threshold === undefined ||
    quantity === undefined ||
    monthlyCap === undefined
  ) {
    throw new UsageError(
      (name) =>
        `Auto-refill settings not sent: ${problems.length} problem(s):\n${problems.map((problem) => `  ${problem(name)}`).join('\n')}`,
    );
  }
  return { enabled: input.enabled, monthly_cap: monthlyCap, quantity, threshold };
}

/** One problem, worded with the caller's spelling of option names. */
type Problem = (name: (option: string) => string) => string;

/** One bounded integer; records a problem and returns undefined when it is missing or out of range. */
function readBounded(
  raw: string | number | undefined,
  field: keyof typeof AUTO_REFILL_BOUNDS,
  option: string,
  problems: Problem[],
): number | undefined {
  const { min, max } = AUTO_REFILL_BOUNDS[field];
  const range = `an integer from ${min} to ${max}`;
  if (raw === undefined || raw === '') {
    problems.push((name) => `${name(option)} is required (${range})`);
    return undefined;
  }
  const text = String(raw).trim();
  const value = /^[+-]?\d+$/u.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value)) {
    const shown = JSON.stringify(terminalSafe(String(raw), 40));
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
