/**
 * What a viewer page is: a function of the GET parameters and the warehouse that returns a title, a
 * body and the tables it shows (each downloadable as CSV through the `download` parameter).
 */
import { href, type Html } from '../html.js';
import type { ViewTable } from '../table.js';
import type { ViewerDatabase } from '../viewer-database.js';

export interface PageContext {
  db: ViewerDatabase;
  pathname: string;
  params: URLSearchParams;
  /** The table a CSV download asks for (`download`), so list pages can return every row, not a page. */
  download: string | null;
  /** The query page's row cap and time limit. */
  limits: QueryLimits;
}

export interface QueryLimits {
  rowCap: number;
  timeLimitMs: number;
}

export interface PageResult {
  title: string;
  body: Html;
  tables: ViewTable[];
  /** A whole HTML document served as it is, instead of `body` in the viewer's shell (the reports). */
  document?: string;
}

/** A page the request cannot have: a bad parameter (400) or nothing by that id (404). */
export class PageError extends Error {
  override readonly name = 'PageError';
  constructor(
    readonly status: 400 | 404,
    message: string,
  ) {
    super(message);
  }
}

/** This page's URL with some parameters changed (undefined or '' removes one). */
export function selfHref(context: PageContext, changes: Record<string, string | number | undefined>): string {
  const current: Record<string, string | number | undefined> = {};
  for (const [key, value] of context.params) if (key !== 'download') current[key] = value;
  return href(context.pathname, { ...current, ...changes });
}

/** The link that downloads one of this page's tables as CSV. */
export function csvHref(context: PageContext, table: ViewTable): string {
  return selfHref(context, { download: table.id });
}

/** One text parameter, trimmed; absent or empty → undefined; longer than `max` → 400. */
export function param(context: PageContext, name: string, max = 500): string | undefined {
  const value = context.params.get(name)?.trim();
  if (value === undefined || value === '') return undefined;
  if (value.length > max) throw new PageError(400, `The ${name} parameter is longer than ${max} characters.`);
  return value;
}

/** A parameter that must be one of `allowed`. */
export function choice<T extends string>(
  context: PageContext,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const value = param(context, name);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new PageError(400, `The ${name} parameter must be one of: ${allowed.join(', ')}.`);
  }
  return value as T;
}

/** A positive whole number parameter (pages), default 1, at most `max`. */
export function pageNumber(context: PageContext, name = 'page', max = 1_000_000): number {
  const value = param(context, name);
  if (value === undefined) return 1;
  if (!/^\d{1,7}$/u.test(value) || Number(value) < 1 || Number(value) > max) {
    throw new PageError(400, `The ${name} parameter must be a whole number from 1 to ${max}.`);
  }
  return Number(value);
}
