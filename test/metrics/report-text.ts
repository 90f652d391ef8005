/**
 * Reads figures back out of rendered Markdown and HTML reports, as a reader would see them. Tolerant
 * of layout (whitespace, thousands separators, Markdown escapes) but exact to the displayed
 * precision: a percentage stays the string the report printed ("60.0%"), counts become integers, so
 * a test compares "60.0% (30 of 50)" with the figure formatted the same way and the counts exactly.
 */

/** A displayed ASR or percentage: the printed percentage and, when shown, its sample. */
export interface ShownRate {
  /** As printed without the % sign, e.g. "60.0"; null for "—" (unknown). */
  percent: string | null;
  numerator?: number;
  denominator?: number;
}

/** "1,234" → 1234; "—" → null. Anything else is a parse failure (a test should see it). */
export function shownCount(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '—') return null;
  if (!/^-?\d{1,3}(,\d{3})*$/u.test(trimmed))
    throw new Error(`not a displayed count: ${JSON.stringify(text)}`);
  return Number(trimmed.replaceAll(',', ''));
}

/** "60.0% (30 of 50)", "60.0%" or "—". */
export function shownRate(text: string): ShownRate {
  const trimmed = text.trim();
  if (trimmed === '—') return { percent: null };
  const match = /^(-?\d+\.\d)%(?:\s*\(([\d,]+) of ([\d,]+)\))?$/u.exec(trimmed);
  if (!match) throw new Error(`not a displayed rate: ${JSON.stringify(text)}`);
  return {
    percent: match[1]!,
    ...(match[2] === undefined
      ? {}
      : { numerator: shownCount(match[2])!, denominator: shownCount(match[3]!)! }),
  };
}

/** A fraction as the reports print it (format.ts: one decimal of the percentage). */
export const asPercent = (fraction: number | null | undefined): string | null =>
  typeof fraction === 'number' ? (fraction * 100).toFixed(1) : null;

/** A 0–10 risk score as printed (one decimal), or null for "—". */
export function shownRisk(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed === '—') return null;
  if (!/^\d+\.\d$/u.test(trimmed)) throw new Error(`not a displayed risk score: ${JSON.stringify(text)}`);
  return trimmed;
}

export const asRisk = (score: number | null | undefined): string | null =>
  typeof score === 'number' ? score.toFixed(1) : null;

/** Markdown backslash escapes and code spans removed: the text a reader sees. */
const mdText = (cell: string): string =>
  cell
    .trim()
    .replace(/\\(.)/gu, '$1')
    .replace(/^`(.*)`$/u, '$1');

/** The text between a heading line that starts with `from` and the next line starting with `to`. */
export function between(text: string, from: string, to: string): string {
  const start = text.indexOf(from);
  if (start === -1) throw new Error(`section ${JSON.stringify(from)} not found`);
  const end = text.indexOf(to, start + from.length);
  return text.slice(start, end === -1 ? undefined : end);
}

/** Body rows (cells, Markdown-unescaped) of the first Markdown table whose header starts with `header`. */
export function mdTable(markdown: string, header: string): string[][] {
  const lines = markdown.split('\n');
  const at = lines.findIndex((line) => line.startsWith(header));
  if (at === -1) throw new Error(`table ${JSON.stringify(header)} not found`);
  const rows: string[][] = [];
  for (const line of lines.slice(at + 2)) {
    if (!line.startsWith('|')) break;
    // Split on pipes not escaped by a backslash.
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/u)
        .map(mdText),
    );
  }
  return rows;
}

/** Header cells (Markdown-unescaped) of the first Markdown table whose header starts with `header`. */
export function mdHeader(markdown: string, header: string): string[] {
  const line = markdown.split('\n').find((candidate) => candidate.startsWith(header));
  if (line === undefined) throw new Error(`table ${JSON.stringify(header)} not found`);
  return line
    .slice(1, -1)
    .split(/(?<!\\)\|/u)
    .map(mdText);
}

/** Cells (tags stripped, entities decoded) of every `<tr>` with `<td>` cells in an HTML fragment. */
export function htmlRows(fragment: string): string[][] {
  const rows: string[][] = [];
  for (const row of fragment.matchAll(/<tr>(.*?)<\/tr>/gsu)) {
    const cells = [...row[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/gsu)].map((cell) => htmlText(cell[1]!));
    if (cells.length > 0) rows.push(cells);
  }
  return rows;
}

/** Visible text of an HTML fragment (our templates use only these entities for data text). */
export function htmlText(fragment: string): string {
  return fragment
    .replace(/<[^>]*>/gu, ' ')
    .replace(/&lt;/gu, '<')
    .replace(/&gt;/gu, '>')
    .replace(/&quot;/gu, '"')
    .replace(/&#x27;|&#39;/gu, "'")
    .replace(/&nbsp;/gu, ' ')
    .replace(/&amp;/gu, '&')
    .replace(/\s+/gu, ' ')
    .trim();
}

/** "3 findings are still open" / "1 finding is still open" → 3 / 1. */
export function shownOpen(text: string): number | null {
  const match = /([\d,—]+) (?:finding is|findings are) still open/u.exec(text);
  if (!match) throw new Error('the open-findings sentence is missing');
  return shownCount(match[1]!);
}
