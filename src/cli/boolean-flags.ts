/**
 * Yes/no (boolean) options take no value or exactly `true` or `false` (lower case), once. yargs reads
 * any other value as false without a word (`--dry-run=yes` sent a triage apply's requests,
 * `--enabled=1` turned auto-refill off) and lets the last of a repeated one win (`--enabled
 * --no-enabled`), while a repeated number is refused. Checked once for every command, on the raw argv
 * against the boolean options the command's parser declares (the global `--debug`, `--help` and
 * `--version` included), before yargs validates and before any command runs.
 */
import type { MiddlewareFunction } from 'yargs';
import { UsageError } from '../errors.js';
import { terminalSafeJson } from '../text-safety.js';

/** The values a yes/no option takes after `=`; case-sensitive, as yargs reads `--x false` only in lower case. */
const EXPLICIT_VALUES: ReadonlySet<string> = new Set(['true', 'false']);

/**
 * Throws a UsageError for the first misused yes/no option in `argv` (up to a `--` that ends the
 * options): `--x=VALUE` with a value other than `true` or `false`, `--no-x=VALUE` with any value, or
 * one option given more than once in any of its forms (`--x`, `--x=false`, `--no-x`, `--camelCase`).
 * `booleans` are the declared option names; other options are left to yargs.
 */
export function refuseMisusedBooleans(argv: readonly string[], booleans: Iterable<string>): void {
  const declared = new Set([...booleans].map(kebabCase));
  const given = new Map<string, string[]>();
  const end = argv.indexOf('--');
  for (const arg of end === -1 ? argv : argv.slice(0, end)) {
    const match = /^--([^=]+)(?:=(.*))?$/su.exec(arg);
    if (!match?.[1]) continue;
    const typed = kebabCase(match[1]);
    const value = match[2];
    const negated = !declared.has(typed) && typed.startsWith('no-') && declared.has(typed.slice(3));
    const option = negated ? typed.slice(3) : typed;
    if (!declared.has(option)) continue;
    if (value !== undefined && (negated || !EXPLICIT_VALUES.has(value))) {
      const takes = negated ? `--no-${option} takes no value` : `--${option} takes true or false`;
      throw new UsageError(`${takes}, not ${terminalSafeJson(value)} (${meanings(option)}).`);
    }
    given.set(option, [
      ...(given.get(option) ?? []),
      negated ? `--no-${option}` : `--${option}${value === undefined ? '' : `=${value}`}`,
    ]);
  }
  for (const [option, forms] of given) {
    if (forms.length > 1) {
      throw new UsageError(
        `--${option} was given ${forms.length} times (${forms.join(', ')}); give it once.`,
      );
    }
  }
}

/**
 * The check as yargs middleware, to run before validation (`.middleware(m, true)`): yargs calls it
 * with the parser of the command being run, so it sees that command's options and the global ones.
 */
export function misusedBooleansMiddleware(argv: readonly string[]): MiddlewareFunction {
  const check = (_args: unknown, parser: DeclaredOptions): void => {
    refuseMisusedBooleans(argv, parser.getOptions().boolean);
  };
  // yargs passes the parser as the second argument (applyMiddleware); its type declarations omit it.
  return check as unknown as MiddlewareFunction;
}

interface DeclaredOptions {
  getOptions(): { boolean: string[] };
}

function meanings(option: string): string {
  return `--${option} and --${option}=true mean true; --no-${option} and --${option}=false mean false`;
}

/** `dryRun` → `dry-run`: yargs accepts both spellings of a kebab-case option. */
function kebabCase(name: string): string {
  return name.replace(/[A-Z]/gu, (c) => `-${c.toLowerCase()}`);
}
