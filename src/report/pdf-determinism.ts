/**
 * Makes a Chromium-printed PDF byte-deterministic. Skia (Chromium's PDF backend) stamps the print time
 * into the document information dictionary as /CreationDate and /ModDate; nothing else in its output
 * depends on the run. Other writers also put a random file identifier in the trailer (/ID).
 * The same rewrite writes the report's /Subject when asked: the mark of a report made from a forced
 * load (unverified-banner.ts), which `verify BUNDLE.zip` reads since a PDF's text is compressed.
 *
 * Phases of makePdfDeterministic:
 *   1. No run-specific key anywhere in the bytes and no /Subject to write → the PDF is returned
 *      unchanged, unparsed.
 *   2. Parse the cross-reference table and trailer (pdf-syntax.ts); find the /Info dictionary.
 *   3. Dates → the report's data time (the snapshot's fetched_at the report shows as "data as of"),
 *      or removed when that is unknown: a PDF dated by its print run would differ on every run.
 *      /Subject → the one asked for (replacing one already there, else added last), derived from the
 *      input like everything else; a file with no /Info to carry it is refused.
 *   4. Every object offset in the table and `startxref` are shifted by the bytes the edits added or
 *      removed, so the table stays exact whatever the length of the new dates.
 *   5. /ID → derived from a SHA-256 of the rest of the file (the trailer comes after every object, so
 *      its length moves no offset).
 *   6. The result must pass verifyCrossReference, or nothing is returned.
 * Structure this cannot rewrite safely is an error naming what was found, never a silently damaged file.
 */
import { createHash } from 'node:crypto';
import { CliError, WordedError } from '../errors.js';
import {
  dictionaryEntry,
  encodeTextString,
  infoDictionary,
  parseCrossReference,
  PdfSyntaxError,
  verifyCrossReference,
  type CrossReference,
} from './pdf-syntax.js';

export interface DeterministicPdfOptions {
  /**
   * When the report's data is from: an ISO 8601 timestamp such as a snapshot's fetched_at (see
   * model.ts reportDataAsOf). Becomes /CreationDate and /ModDate. Null: unknown, and both dates are removed.
   */
  documentDate: string | null;
  /**
   * The information dictionary's /Subject, replacing any: the unverified-data mark (pdf.ts writes
   * unverified-banner.ts UNVERIFIED_PDF_SUBJECT when the HTML carries the banner). Null or absent: the
   * dictionary keeps what Chromium wrote (no /Subject).
   */
  subject?: string | null | undefined;
}

/** A replacement of the bytes `[start, end)` of the original file by `text`. */
interface Edit {
  start: number;
  end: number;
  text: string;
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/u;
/** A key whose value can differ between two prints of the same HTML, as a whole PDF name token. */
const RUN_SPECIFIC_KEY = /\/(?:CreationDate|ModDate|ID)(?![^\0\t\n\f\r ()<>[\]{}/%])/u;
/** 16 bytes, the customary size of a file identifier (ISO 32000-1 §14.4). */
const ID_HEX_DIGITS = 32;

const pad = (value: number, width: number): string => String(value).padStart(width, '0');

function invalidTimestamp(timestamp: string): CliError {
  return new CliError(
    `Cannot date the PDF from ${JSON.stringify(timestamp)}: expected an ISO 8601 timestamp such as ` +
      `2026-01-05T12:00:00Z. Check the snapshot's fetched_at in the database.`,
  );
}

/**
 * An ISO 8601 timestamp as a PDF date string (ISO 32000-1 §7.9.4), seconds truncated. With a zone it
 * is converted to UTC and written as `D:YYYYMMDDHHmmss+00'00'`, the exact form (and length) Chromium
 * uses; without one it is written without an offset, which PDF reads as "relation to UTC unknown".
 */
export function pdfDate(timestamp: string): string {
  const match = TIMESTAMP.exec(timestamp);
  if (!match) throw invalidTimestamp(timestamp);
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const wallClock = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  // Date.UTC rolls 2026-02-31 over to March; a changed field means the timestamp named no real time.
  if (
    wallClock.getUTCFullYear() !== year ||
    wallClock.getUTCMonth() !== month - 1 ||
    wallClock.getUTCDate() !== day ||
    wallClock.getUTCHours() !== hour ||
    wallClock.getUTCMinutes() !== minute ||
    wallClock.getUTCSeconds() !== second
  ) {
    throw invalidTimestamp(timestamp);
  }
  const fields = (date: Date): string =>
    `D:${pad(date.getUTCFullYear(), 4)}${pad(date.getUTCMonth() + 1, 2)}${pad(date.getUTCDate(), 2)}` +
    `${pad(date.getUTCHours(), 2)}${pad(date.getUTCMinutes(), 2)}${pad(date.getUTCSeconds(), 2)}`;
  const zone = match[7];
  if (zone === undefined) return fields(wallClock);
  const offsetMinutes =
    zone === 'Z'
      ? 0
      : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2)));
  const utc = new Date(wallClock.getTime() - offsetMinutes * 60_000);
  if (utc.getUTCFullYear() > 9999 || utc.getUTCFullYear() < 0) throw invalidTimestamp(timestamp);
  return `${fields(utc)}+00'00'`;
}

/** Applies non-overlapping edits given in original coordinates. */
function applyEdits(text: string, edits: readonly Edit[]): string {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  let result = '';
  let cursor = 0;
  for (const edit of sorted) {
    if (edit.start < cursor) throw new PdfSyntaxError(`overlapping rewrites at byte ${edit.start}`);
    result += text.slice(cursor, edit.start) + edit.text;
    cursor = edit.end;
  }
  return result + text.slice(cursor);
}

/** Where original byte `position` lands after `edits`; an edit must not cut through it. */
function shiftedPosition(position: number, edits: readonly Edit[]): number {
  let shifted = position;
  for (const edit of edits) {
    if (edit.start < position && position < edit.end) {
      throw new PdfSyntaxError(`a rewrite at byte ${edit.start} would cut through byte ${position}`);
    }
    if (edit.end <= position) shifted += edit.text.length - (edit.end - edit.start);
  }
  return shifted;
}

/**
 * Phase 3: rewrite (or remove) the date entries of the /Info dictionary, if the file has one, and
 * write its /Subject when `subject` is given.
 */
function infoEdits(text: string, xref: CrossReference, date: string | null, subject: string | null): Edit[] {
  const dictionary = infoDictionary(text, xref);
  if (!dictionary) {
    if (subject !== null) throw new PdfSyntaxError('the file has no information dictionary (/Info) to mark');
    return [];
  }
  const edits: Edit[] = [];
  for (const key of ['CreationDate', 'ModDate']) {
    const entry = dictionaryEntry(dictionary, key);
    if (!entry) continue;
    edits.push(
      date === null
        ? { start: entry.keyStart, end: entry.value.end, text: '' }
        : { start: entry.value.start, end: entry.value.end, text: `(${date})` },
    );
  }
  if (subject !== null) {
    const value = encodeTextString(subject);
    const existing = dictionaryEntry(dictionary, 'Subject');
    // Added just before `>>`, on its own line as Chromium writes each entry.
    const end = dictionary.span.end - '>>'.length;
    edits.push(
      existing
        ? { start: existing.value.start, end: existing.value.end, text: value }
        : { start: end, end, text: `\n/Subject ${value}` },
    );
  }
  return edits;
}

/** Phase 4: the cross-reference table and startxref rewritten for the byte shifts of `bodyEdits`. */
function offsetEdits(xref: CrossReference, bodyEdits: readonly Edit[]): Edit[] {
  if (bodyEdits.some((edit) => edit.end > xref.xrefOffset)) {
    throw new PdfSyntaxError('the information dictionary is after the cross-reference table');
  }
  const edits: Edit[] = [];
  for (const entry of xref.entries) {
    const offset = shiftedPosition(entry.offset, bodyEdits);
    if (offset === entry.offset) continue;
    edits.push({ start: entry.digitsAt, end: entry.digitsAt + 10, text: pad(offset, 10) });
  }
  const xrefOffset = shiftedPosition(xref.xrefOffset, bodyEdits);
  if (xrefOffset !== xref.xrefOffset) {
    edits.push({ ...xref.startxrefDigits, text: String(xrefOffset) });
  }
  return edits;
}

/** Phases 2–5 on the latin1 text; null when there is nothing to change. */
function rewrite(text: string, date: string | null, subject: string | null): string | null {
  const xref = parseCrossReference(text);
  const bodyEdits = infoEdits(text, xref, date, subject);
  const edits = [...bodyEdits, ...offsetEdits(xref, bodyEdits)];
  const id = dictionaryEntry(xref.trailer, 'ID');
  if (edits.length === 0 && !id) return null;
  const rewritten = applyEdits(text, edits);
  if (!id) return rewritten;
  // Phase 5: the trailer is after the table, so shiftedPosition over the body edits alone locates it.
  const idStart = shiftedPosition(id.value.start, bodyEdits);
  const idEnd = shiftedPosition(id.value.end, bodyEdits);
  const digest = createHash('sha256')
    .update(Buffer.from(rewritten.slice(0, idStart), 'latin1'))
    .update(Buffer.from(rewritten.slice(idEnd), 'latin1'))
    .digest('hex')
    .slice(0, ID_HEX_DIGITS)
    .toUpperCase();
  return applyEdits(rewritten, [{ start: idStart, end: idEnd, text: `[<${digest}> <${digest}>]` }]);
}

/**
 * Returns `pdf` with its run-specific bytes replaced by values derived from the input: the
 * information dictionary's /CreationDate and /ModDate become `documentDate` (removed when it is null),
 * and a trailer /ID becomes a hash of the file; with `subject`, the dictionary's /Subject is set to
 * it. A PDF without these entries and no subject asked for is returned unchanged. Throws a CliError
 * when the PDF needs a rewrite but has a structure this cannot rewrite safely.
 */
export function makePdfDeterministic(pdf: Uint8Array, options: DeterministicPdfOptions): Uint8Array {
  const date = options.documentDate === null ? null : pdfDate(options.documentDate);
  const subject = options.subject ?? null;
  const text = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString('latin1');
  if (subject === null && !RUN_SPECIFIC_KEY.test(text)) return pdf;
  try {
    const rewritten = rewrite(text, date, subject);
    if (rewritten === null || rewritten === text) return pdf;
    const result = new Uint8Array(Buffer.from(rewritten, 'latin1'));
    const problems = verifyCrossReference(result);
    if (problems.length > 0)
      throw new PdfSyntaxError(`the rewritten file fails its own check: ${problems.join('; ')}`);
    return result;
  } catch (error) {
    if (!(error instanceof PdfSyntaxError)) throw error;
    const reason = error.message;
    throw new WordedError(
      (name) =>
        `Could not make the PDF byte-deterministic, so no PDF was written: ${reason}. Chromium ` +
        `printed a PDF layout this tool does not recognise; use ${name('format')} html, or report this with the ` +
        `output of "chromium --version".`,
      undefined,
      { cause: error },
    );
  }
}
