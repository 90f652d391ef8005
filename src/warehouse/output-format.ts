/**
 * Renders a query result as table, csv, json, ndjson or markdown. The data is adversarial (jailbreak
 * prompts, model output), so each format escapes for where it will be read:
 * - csv: RFC 4180 (fields with , " CR or LF quoted); cells starting with = + - @ (or tab / carriage
 *   return) get a leading ' so spreadsheets do not run them as formulas (OWASP CSV injection), numbers
 *   (negative ones too) stay numbers; `raw` turns the guard off, never the quoting.
 * - markdown: | and \ * _ ` [ ] < > & are escaped, newlines become <br>, control and bidi characters
 *   are shown as \u escapes — no cell can break the table or inject HTML. No rows: "(0 rows)" below.
 * - table (terminal): control and bidi characters shown as \u escapes (no terminal escape sequences),
 *   long cells cut.
 * - json / ndjson: exact values; JSON columns embedded as JSON.
 */
import { csvText, neutralizeCsvFormula } from '../csv-text.js';
import { escapeMarkdownCell, neutralizeControls } from '../text-safety.js';
import type { QueryResult } from './query.js';

// The Markdown cell rule is shared with the diff; re-exported for existing importers.
export { escapeMarkdownCell };

export const OUTPUT_FORMATS = ['table', 'csv', 'json', 'ndjson', 'markdown'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface FormatOptions {
  /** CSV: do not neutralize formula-like cells. */
  raw?: boolean;
  /** Table: longest cell shown, in characters (default 60). */
  maxCellWidth?: number;
}

/** A cell as plain text: strings as is, lists/objects as JSON, null as empty. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return JSON.stringify(value);
}

/**
 * OWASP: prefix with ' when the cell starts with a formula trigger. Number-shaped text (-5, -0.25,
 * -1e3: BIGINT and DECIMAL arrive as strings) is kept, because a spreadsheet reads it as a number and a
 * negative number is data, not a formula; `-1+1` is not number-shaped and is neutralized.
 */
export function neutralizeCsvCell(text: string): string {
  return NUMBER_SHAPED.test(text) ? text : neutralizeCsvFormula(text);
}

const NUMBER_SHAPED = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/u;

function toObjects(result: QueryResult): Record<string, unknown>[] {
  return result.rows.map((row) => {
    const object: Record<string, unknown> = {};
    result.columns.forEach((column, i) => {
      const value = row[i];
      object[column.name] = column.json && typeof value === 'string' ? parseJsonCell(value) : (value ?? null);
    });
    return object;
  });
}

function parseJsonCell(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function formatCsv(result: QueryResult, options: FormatOptions): string {
  const neutralize = (text: string): string => (options.raw ? text : neutralizeCsvCell(text));
  const records = [
    result.columns.map((c) => neutralize(c.name)),
    // Numbers are data, not text: a negative number is not a formula.
    ...result.rows.map((row) =>
      row.map((v) => (typeof v === 'number' ? String(v) : neutralize(cellText(v)))),
    ),
  ];
  // RFC 4180 quoting (a lone CR is quoted too, so no reader splits the row).
  return csvText(records);
}

function formatMarkdown(result: QueryResult): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  const header = line(result.columns.map((c) => escapeMarkdownCell(c.name)));
  const rule = line(result.columns.map(() => '---'));
  const body = result.rows.map((row) => line(row.map((v) => escapeMarkdownCell(cellText(v)))));
  // A bare header reads like cut-off output, so say "(0 rows)" as the table format does — after a blank
  // line, which ends the table: a line straight below it would be rendered as one more row.
  const empty = result.rows.length === 0 ? ['', '(0 rows)'] : [];
  return `${[header, rule, ...body, ...empty].join('\n')}\n`;
}

function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}

function formatTable(result: QueryResult, options: FormatOptions): string {
  const max = options.maxCellWidth ?? 60;
  const show = (v: unknown): string =>
    v === null || v === undefined
      ? 'NULL'
      : truncate(neutralizeControls(cellText(v)).replace(/\n/g, '\\n').replace(/\t/g, '\\t'), max);
  const header = result.columns.map((c) => show(c.name));
  const cells = result.rows.map((row) => row.map(show));
  // A loop, not Math.max(...column): spreading 150,000 cells as arguments overflows the call stack.
  const widths = header.map((h) => [...h].length);
  for (const row of cells) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, [...cell].length);
    });
  }
  const pad = (text: string, i: number): string => text + ' '.repeat((widths[i] ?? 0) - [...text].length);
  const line = (row: string[]): string => row.map(pad).join('  ').trimEnd();
  const out = [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)];
  out.push(`(${result.rows.length} row${result.rows.length === 1 ? '' : 's'})`);
  return `${out.join('\n')}\n`;
}

export function formatResult(result: QueryResult, format: OutputFormat, options: FormatOptions = {}): string {
  switch (format) {
    case 'csv':
      return formatCsv(result, options);
    case 'json':
      return `${JSON.stringify(toObjects(result), null, 2)}\n`;
    case 'ndjson':
      return toObjects(result)
        .map((o) => `${JSON.stringify(o)}\n`)
        .join('');
    case 'markdown':
      return formatMarkdown(result);
    case 'table':
      return formatTable(result, options);
  }
}
