/**
 * HTML for the viewer's pages, escaped by default: `html\`…\`` escapes every interpolated value with
 * the reports' own escaping (src/report/escape.ts) unless it is already `Html` (a fragment this module
 * built). Data text is made presentable first with the reports' TextShaper (control and bidi
 * characters shown, length capped), so a page treats hostile text exactly as a report does.
 */
import { escapeHtml } from '../report/escape.js';
import { breakIdentifiers } from '../report/output-context.js';
import { TextShaper } from '../report/untrusted-text.js';

/** An HTML fragment that is safe to insert as it is (built here from escaped parts). */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type HtmlValue = Html | string | number | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('');
  // A space ending a line of data is written as an entity, so the page shell can strip the trailing
  // whitespace of its own template lines without touching the data (text blocks keep theirs).
  return escapeHtml(String(value)).replace(/[ \t](?=[ \t]*(?:\n|$))/gu, '&#32;');
}

/** A template literal whose values are escaped (arrays joined, Html kept). */
export function markup(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

/** Any value as text: strings as they are, lists and objects as JSON, null as ''. */
export function asText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return JSON.stringify(value);
}

/** Short text in lists (table cells): 160 code points. */
const CELL = new TextShaper({ maxText: 160, redact: false });
/** Full text on a finding's page: long, but still bounded (the simulator's hostile string is 20 KB). */
const FULL = new TextShaper({ maxText: 8000, redact: false });

/** Data text as plain, shaped text (titles), at most `max` code points; escaped where it lands. */
export function shortText(raw: unknown, max = 160): string {
  return CELL.label(asText(raw), max);
}

/** Data text for a table cell: shaped, escaped, breakable at underscores like the reports' cells. */
export function cellText(raw: unknown): Html {
  if (raw === null || raw === undefined) return new Html('<span class="muted">—</span>');
  return new Html(breakIdentifiers(escapeHtml(CELL.label(asText(raw)))));
}

/** Long data text (candidate, response, reasoning) in a preformatted block. */
export function fullText(raw: unknown): Html {
  if (raw === null || raw === undefined || raw === '') return new Html('<p class="muted">(none)</p>');
  return markup`<pre class="data-text">${FULL.label(asText(raw))}</pre>`;
}

/** A URL of this server: a path and query parameters (empty values left out), escaped by `markup`. */
export function href(
  pathname: string,
  params: Readonly<Record<string, string | number | undefined>> = {},
): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') query.set(key, String(value));
  }
  const text = query.toString();
  return text === '' ? pathname : `${pathname}?${text}`;
}
