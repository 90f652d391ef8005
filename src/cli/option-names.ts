/**
 * The CLI's spelling of library option names, for the error boundary: the library says
 * `options.concurrency`, the user typed `--concurrency`. Settings that come from the environment
 * name both places (`--base-url / AIRT_BASE_URL`); the token is never a flag.
 */
import { describeError } from '../errors.js';

/** Where the CLI takes the token from, as messages about it name it. */
export const CLI_TOKEN_SOURCE = 'AIRT_TOKEN or --token-file FILE';

const SPECIAL: Record<string, string> = {
  baseUrl: '--base-url / AIRT_BASE_URL',
  token: CLI_TOKEN_SOURCE,
  projects: '--project',
  lockTimeoutMs: '--lock-timeout SECONDS',
  timeoutMs: '--timeout SECONDS',
};

/** `concurrency` → `--concurrency`, `trialsLimit` → `--trials-limit`, `baseUrl` → `--base-url / AIRT_BASE_URL`. */
export function cliOptionName(option: string): string {
  return SPECIAL[option] ?? `--${option.replace(/[A-Z]/gu, (c) => `-${c.toLowerCase()}`)}`;
}

/** The message of a library error as the CLI shows it: option names spelled as flags. */
export function cliMessage(error: Error): string {
  return describeError(error, cliOptionName);
}
