/**
 * Renders a query result as table, csv, json, ndjson or markdown. The data is adversarial (jailbreak
 * prompts, model output), so each format escapes for where it will be read:
 * - csv: RFC 4180 (fields with , " CR or LF quoted); cells starting with = + - @ (or tab / carriage
 *   return) get a leading ' so spreadsheets do not run them as formulas (OWASP CSV injection), numbers
 *   (negative ones too) stay numbers; `raw` turns the guard off, never the quoting.
 * - markdown: | and \ * _ ` [ ] < > & and autolink triggers (the : of ://, www., @) are escaped,
 *   newlines become <br>, control and bidi characters are shown as \u escapes — no cell can break the
 *   table, inject HTML or become a link. No rows: "(0 rows)" below.
 * - table (terminal): control and bidi characters shown as \u escapes (no terminal escape sequences),
 *   long cells cut.
 * - json / ndjson: exact values; JSON columns embedded as JSON. DEL, C1, bidi and invisible characters
 *   are written as `\uXXXX` (C0 ones JSON escapes itself): the same values to a parser, nothing that
 *   acts on a terminal or reorders text when the file is shown.
 * - csv to a terminal (FormatOptions.terminal): control, bidi and invisible characters shown as \u{…}.
 *
 * Every format is written row batch by row batch (`writeResult`), so a million rows take the memory
 * of one batch. Streamed, the table format sizes its columns from the first batches holding at least
 * TABLE_SAMPLE_ROWS rows; a later, wider cell widens its own line rather than being cut further
 * (smaller results, and formatResult's in-memory ones, are aligned exactly).
 */
import { csvText, neutralizeCsvFormula } from '../csv-text.js';
import { escapeMarkdownCell, neutralizeControls, terminalSafeJson } from '../text-safety.js';
import type { QueryColumn, QueryResult, QueryStream } from './query.js';

// The Markdown cell rule is shared with the diff; re-exported for existing importers.
export { escapeMarkdownCell };

/** The formats `query` writes. */
export const OUTPUT_FORMATS = ['table', 'csv', 'json', 'ndjson', 'markdown'] as const;
/** One of OUTPUT_FORMATS. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** How a result is written. */
export interface FormatOptions {
  /** CSV: do not neutralize formula-like cells. */
  raw?: boolean;
  /** Table: longest cell shown, in characters (default 60). */
  maxCellWidth?: number;
  /**
   * The output is a terminal: CSV cells show control, bidi and invisible characters as `\u{…}` (an
   * ESC from the data would otherwise reach the terminal as an escape sequence). Files keep the data.
   */
  terminal?: boolean;
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

/** Rows the table format reads before it fixes its column widths. */
export const TABLE_SAMPLE_ROWS = 1000;

/** Rows as JSON objects: JSON columns embedded as JSON. */
function toObjects(columns: readonly QueryColumn[], rows: readonly unknown[][]): Record<string, unknown>[] {
  return rows.map((row) => {
    const object: Record<string, unknown> = {};
    columns.forEach((column, i) => {
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

/**
 * One format as three steps over a stream: `rows` turns a batch into text (it may hold rows back, as
 * the table does until its widths are known), `end` writes what is left and the footer.
 */
interface FormatWriter {
  rows(batch: readonly unknown[][]): string;
  end(): string;
}

function csvWriter(columns: readonly QueryColumn[], options: FormatOptions): FormatWriter {
  const shown = (text: string): string => (options.terminal ? neutralizeControls(text) : text);
  const neutralize = (text: string): string => shown(options.raw ? text : neutralizeCsvCell(text));
  let header: string | null = csvText([columns.map((c) => neutralize(c.name))]);
  const take = (): string => {
    const text = header ?? '';
    header = null;
    return text;
  };
  return {
    rows: (batch) =>
      take() +
      // Numbers are data, not text: a negative number is not a formula. RFC 4180 quoting (a lone CR
      // is quoted too, so no reader splits the row).
      csvText(
        batch.map((row) => row.map((v) => (typeof v === 'number' ? String(v) : neutralize(cellText(v))))),
      ),
    end: take,
  };
}

function jsonWriter(columns: readonly QueryColumn[]): FormatWriter {
  let count = 0;
  return {
    // The layout JSON.stringify(rows, null, 2) gives, one object at a time.
    rows: (batch) =>
      toObjects(columns, batch)
        .map((object) => {
          const item = terminalSafeJson(object, 2).replace(/\n/gu, '\n  ');
          count += 1;
          return `${count === 1 ? '[\n' : ',\n'}  ${item}`;
        })
        .join(''),
    end: () => (count === 0 ? '[]\n' : '\n]\n'),
  };
}

function ndjsonWriter(columns: readonly QueryColumn[]): FormatWriter {
  return {
    rows: (batch) =>
      toObjects(columns, batch)
        .map((object) => `${terminalSafeJson(object, 0)}\n`)
        .join(''),
    end: () => '',
  };
}

function markdownWriter(columns: readonly QueryColumn[]): FormatWriter {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |\n`;
  let head: string | null =
    line(columns.map((c) => escapeMarkdownCell(c.name))) + line(columns.map(() => '---'));
  let count = 0;
  const take = (): string => {
    const text = head ?? '';
    head = null;
    return text;
  };
  return {
    rows: (batch) => {
      count += batch.length;
      return take() + batch.map((row) => line(row.map((v) => escapeMarkdownCell(cellText(v))))).join('');
    },
    // A bare header reads like cut-off output, so say "(0 rows)" as the table format does — after a
    // blank line, which ends the table: a line straight below it would be rendered as one more row.
    end: () => take() + (count === 0 ? '\n(0 rows)\n' : ''),
  };
}

function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}

function tableWriter(
  columns: readonly QueryColumn[],
  options: FormatOptions,
  sampleRows: number,
): FormatWriter {
  const max = options.maxCellWidth ?? 60;
  const show = (v: unknown): string =>
    v === null || v === undefined
      ? 'NULL'
      : truncate(neutralizeControls(cellText(v)).replace(/\n/g, '\\n').replace(/\t/g, '\\t'), max);
  const header = columns.map((c) => show(c.name));
  // Rows held back until the widths are fixed (the first TABLE_SAMPLE_ROWS), then none.
  let sample: string[][] | null = [];
  let widths: number[] = [];
  let count = 0;
  const pad = (text: string, i: number): string =>
    text + ' '.repeat(Math.max(0, (widths[i] ?? 0) - [...text].length));
  const line = (row: string[]): string => `${row.map(pad).join('  ').trimEnd()}\n`;
  const fixWidths = (): string => {
    const held = sample ?? [];
    sample = null;
    // A loop, not Math.max(...column): spreading many cells as arguments overflows the call stack.
    widths = header.map((h) => [...h].length);
    for (const row of held) {
      row.forEach((cell, i) => {
        widths[i] = Math.max(widths[i] ?? 0, [...cell].length);
      });
    }
    return line(header) + `${widths.map((w) => '-'.repeat(w)).join('  ')}\n` + held.map(line).join('');
  };
  return {
    rows: (batch) => {
      count += batch.length;
      const cells = batch.map((row) => row.map(show));
      if (sample === null) return cells.map(line).join('');
      for (const row of cells) sample.push(row);
      return sample.length >= sampleRows ? fixWidths() : '';
    },
    end: () => `${sample === null ? '' : fixWidths()}(${count} row${count === 1 ? '' : 's'})\n`,
  };
}

function writerFor(
  format: OutputFormat,
  columns: readonly QueryColumn[],
  options: FormatOptions,
  tableSampleRows = TABLE_SAMPLE_ROWS,
): FormatWriter {
  switch (format) {
    case 'csv':
      return csvWriter(columns, options);
    case 'json':
      return jsonWriter(columns);
    case 'ndjson':
      return ndjsonWriter(columns);
    case 'markdown':
      return markdownWriter(columns);
    case 'table':
      return tableWriter(columns, options, tableSampleRows);
  }
}

/** A whole in-memory result as text in `format` (see writeResult to stream a large one). */
export function formatResult(result: QueryResult, format: OutputFormat, options: FormatOptions = {}): string {
  // All rows are at hand, so the table is sized from all of them.
  const writer = writerFor(format, result.columns, options, Number.POSITIVE_INFINITY);
  return writer.rows(result.rows) + writer.end();
}

/**
 * Writes a streamed result in `format`, batch by batch, through `write` (awaited, so a slow pipe or
 * file holds the query back instead of filling memory). Resolves with the number of rows written.
 */
export async function writeResult(
  stream: QueryStream,
  format: OutputFormat,
  write: (text: string) => Promise<void> | void,
  options: FormatOptions = {},
): Promise<number> {
  const writer = writerFor(format, stream.columns, options);
  let count = 0;
  for await (const batch of stream.batches) {
    count += batch.length;
    const text = writer.rows(batch);
    if (text !== '') await write(text);
  }
  await write(writer.end());
  return count;
}
