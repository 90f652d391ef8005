/**
 * The service's 422 answers carry `errors[]` items ({loc, msg, type}). The client folds them into one
 * line; operators fixing a request want them one field per line, named the way they typed them.
 */
import { isHttpError } from '../api/errors.js';
import type { ValidationErrorItem } from '../api/schemas.js';
import { EXIT, libraryOptionName, WordedError } from '../errors.js';
import { terminalSafe } from './terminal-text.js';

const MAX_ITEMS = 50;

/**
 * `["body","monthly_cap"]` → `monthly_cap`, `["query","page"]` → `query.page`: the request body is the
 * usual place, so its prefix is dropped.
 */
export function fieldOf(loc: readonly (string | number)[]): string {
  const parts = loc[0] === 'body' && loc.length > 1 ? loc.slice(1) : loc;
  return parts
    .map((part) => (typeof part === 'number' ? `[${part}]` : part))
    .join('.')
    .replace(/\.\[/gu, '[');
}

/** One line per item: `  monthly_cap: Input should be less than or equal to 50 (less_than_equal)`. */
export function formatValidationItems(
  items: readonly ValidationErrorItem[],
  optionOf?: (field: string) => string | undefined,
  name: (option: string) => string = libraryOptionName,
): string[] {
  const lines = items.slice(0, MAX_ITEMS).map((item) => {
    const field = fieldOf(item.loc);
    const option = optionOf?.(field);
    const label = terminalSafe(field, 80) + (option ? ` (${name(option)})` : '');
    return `  ${label}: ${terminalSafe(item.msg, 300)} (${terminalSafe(item.type, 60)})`;
  });
  if (items.length > MAX_ITEMS) lines.push(`  … and ${items.length - MAX_ITEMS} more`);
  return lines;
}

/**
 * Rewrites a 422 with `errors[]` as a multi-line error (exit 1) listing each field beside the option
 * that sets it (`options.monthlyCap` in the library, `--monthly-cap` at the CLI); anything else is
 * returned unchanged.
 */
export function withFieldErrors(error: unknown, optionOf?: (field: string) => string | undefined): unknown {
  if (!isHttpError(error) || error.status !== 422 || !error.errors || error.errors.length === 0) return error;
  const said = [error.type, error.detail]
    .filter((s): s is string => Boolean(s))
    .map((s) => terminalSafe(s, 300));
  const head =
    `${error.method} ${error.path} was refused with 422${said.length > 0 ? ` (${said.join(': ')})` : ''}; ` +
    'nothing was changed. The service rejected these fields:';
  const items = error.errors;
  return new WordedError(
    (name) => [head, ...formatValidationItems(items, optionOf, name)].join('\n'),
    EXIT.failure,
    {
      cause: error,
    },
  );
}
