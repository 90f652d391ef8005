/**
 * CSV text as RFC 4180 says, written by us rather than by a library option set: a field holding a
 * comma, a double quote, a carriage return or a line feed is quoted (quotes doubled); records end in
 * `\n`, which every RFC 4180 reader accepts. A lone CR is quoted too: spreadsheets and Python's csv module
 * both end a record at a bare CR, so an unquoted one splits a row in two (it did, with
 * csv-stringify's `record_delimiter: '\n'`).
 *
 * The formula guard (OWASP CSV injection) is separate, because only exports meant for spreadsheets
 * want it: a file we read back ourselves (triage's remaining rows) must keep the values exact.
 */

const NEEDS_QUOTES = /[",\r\n]/u;

/** A cell a spreadsheet would run as a formula: it starts with = + - @, a tab or a carriage return. */
const FORMULA_START = /^[=+\-@\t\r]/u;

/** One field, quoted only when RFC 4180 requires it. */
export function csvField(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/gu, '""')}"` : text;
}

/** Records (arrays of already-textual cells) as CSV text, one `\n`-terminated line per record. */
export function csvText(records: readonly (readonly string[])[]): string {
  return records.map((record) => `${record.map(csvField).join(',')}\n`).join('');
}

/**
 * OWASP: a cell that starts with a formula trigger gets a leading `'`, which spreadsheets show as text
 * and do not evaluate. Numbers are never passed here (a negative number is data, not a formula).
 */
export function neutralizeCsvFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}
