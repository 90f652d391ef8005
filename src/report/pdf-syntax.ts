/**
 * Just enough PDF syntax (ISO 32000-1 §7.2–7.5) to find and rewrite the document information
 * dictionary of a PDF that Chromium (Skia) prints: a classic cross-reference table, its trailer, and
 * direct objects (strings, names, numbers, references, arrays, dictionaries); and to read and write
 * its text strings (the /Subject that marks a forced load's report, unverified-banner.ts).
 *
 * The PDF is handled as a latin1 string, so a string index is a byte offset and slicing never splits
 * or re-encodes a byte. Anything outside this subset (cross-reference streams, incremental updates,
 * malformed tokens) throws PdfSyntaxError instead of guessing: the caller refuses to write a PDF it
 * cannot rewrite safely.
 */

/** The PDF does not have the structure this module understands; the message says what was found. */
export class PdfSyntaxError extends Error {
  override readonly name = 'PdfSyntaxError';
}

/** A half-open byte range `[start, end)` of the file. */
export interface Span {
  start: number;
  end: number;
}

export interface DictionaryEntry {
  /** The key without its slash, as written (no `#xx` decoding: the keys we look up have none). */
  key: string;
  /** Where the key's slash is. */
  keyStart: number;
  value: Span;
}

export interface PdfDictionary {
  entries: DictionaryEntry[];
  /** From `<<` to just after `>>`. */
  span: Span;
}

/** One in-use entry of the cross-reference table. */
export interface XrefEntry {
  objectNumber: number;
  generation: number;
  /** Byte offset of `N G obj`, as the table says. */
  offset: number;
  /** Where the entry's ten offset digits are written, so they can be rewritten in place. */
  digitsAt: number;
}

export interface CrossReference {
  /** The value of `startxref`: where the `xref` keyword is. */
  xrefOffset: number;
  /** Where that number is written near the end of the file. */
  startxrefDigits: Span;
  /** In-use entries (free `f` entries point at no object and are left alone). */
  entries: XrefEntry[];
  trailer: PdfDictionary;
}

const WHITESPACE = new Set(['\0', '\t', '\n', '\f', '\r', ' ']);
const DELIMITERS = new Set(['(', ')', '<', '>', '[', ']', '{', '}', '/', '%']);
/** `G R` after an integer makes it an indirect reference; the lookahead ends the `R` token. */
const REFERENCE_TAIL = /[\0\t\n\f\r ]+\d+[\0\t\n\f\r ]+R(?![^\0\t\n\f\r ()<>[\]{}/%])/y;
const HEX_STRING_BODY = /^[0-9A-Fa-f\0\t\n\f\r ]*$/u;
/** How far from the end `startxref` may be; real files have it in the last few dozen bytes. */
const TAIL_WINDOW = 1024;

function isRegular(char: string | undefined): char is string {
  return char !== undefined && !WHITESPACE.has(char) && !DELIMITERS.has(char);
}

function describeAt(text: string, at: number): string {
  if (at >= text.length) return 'the end of the file';
  return `byte ${at} (${JSON.stringify(text.slice(at, at + 12))})`;
}

/** The index of the first byte at or after `at` that is neither whitespace nor inside a comment. */
export function skipWhitespace(text: string, at: number): number {
  let index = at;
  while (index < text.length) {
    const char = text[index];
    if (char !== undefined && WHITESPACE.has(char)) {
      index += 1;
    } else if (char === '%') {
      while (index < text.length && text[index] !== '\n' && text[index] !== '\r') index += 1;
    } else {
      break;
    }
  }
  return index;
}

/** `(…)`: balanced unescaped parentheses nest; a backslash escapes the next byte. */
function scanLiteralString(text: string, at: number): number {
  let depth = 0;
  for (let index = at; index < text.length; index += 1) {
    const char = text[index];
    if (char === '\\') index += 1;
    else if (char === '(') depth += 1;
    else if (char === ')' && --depth === 0) return index + 1;
  }
  throw new PdfSyntaxError(`a literal string at byte ${at} never ends`);
}

function scanHexString(text: string, at: number): number {
  const close = text.indexOf('>', at + 1);
  if (close < 0 || !HEX_STRING_BODY.test(text.slice(at + 1, close))) {
    throw new PdfSyntaxError(`malformed hex string at byte ${at}`);
  }
  return close + 1;
}

function scanName(text: string, at: number): number {
  let index = at + 1;
  while (isRegular(text[index])) index += 1;
  return index;
}

function scanArray(text: string, at: number): number {
  let index = skipWhitespace(text, at + 1);
  while (text[index] !== ']') {
    index = skipWhitespace(text, scanValue(text, index));
  }
  return index + 1;
}

/** A number, `true`/`false`/`null`, or an indirect reference `N G R` (one value of three tokens). */
function scanRegular(text: string, at: number): number {
  let index = at;
  while (isRegular(text[index])) index += 1;
  if (/^\d+$/u.test(text.slice(at, index))) {
    REFERENCE_TAIL.lastIndex = index;
    if (REFERENCE_TAIL.test(text)) return REFERENCE_TAIL.lastIndex;
  }
  return index;
}

/** The end of the direct object that starts exactly at `at`. */
function scanValue(text: string, at: number): number {
  const char = text[at];
  if (char === '(') return scanLiteralString(text, at);
  if (char === '<')
    return text[at + 1] === '<' ? parseDictionary(text, at).span.end : scanHexString(text, at);
  if (char === '[') return scanArray(text, at);
  if (char === '/') return scanName(text, at);
  if (isRegular(char)) return scanRegular(text, at);
  throw new PdfSyntaxError(`expected a value at ${describeAt(text, at)}`);
}

/** Parses the dictionary whose `<<` is at `at`, recording where each key and value is. */
export function parseDictionary(text: string, at: number): PdfDictionary {
  if (!text.startsWith('<<', at)) throw new PdfSyntaxError(`expected "<<" at ${describeAt(text, at)}`);
  const entries: DictionaryEntry[] = [];
  let index = skipWhitespace(text, at + 2);
  while (!text.startsWith('>>', index)) {
    if (text[index] !== '/')
      throw new PdfSyntaxError(`expected a dictionary key at ${describeAt(text, index)}`);
    const keyEnd = scanName(text, index);
    const valueStart = skipWhitespace(text, keyEnd);
    const valueEnd = scanValue(text, valueStart);
    entries.push({
      key: text.slice(index + 1, keyEnd),
      keyStart: index,
      value: { start: valueStart, end: valueEnd },
    });
    index = skipWhitespace(text, valueEnd);
  }
  return { entries, span: { start: at, end: index + 2 } };
}

/** The entry for `key`; when a key is repeated (invalid, but seen in the wild) the last one wins. */
export function dictionaryEntry(dictionary: PdfDictionary, key: string): DictionaryEntry | undefined {
  return dictionary.entries.findLast((entry) => entry.key === key);
}

/** `N G R` → its object and generation numbers. */
export function parseReference(text: string, value: Span): { objectNumber: number; generation: number } {
  const match = /^(\d+)[\0\t\n\f\r ]+(\d+)[\0\t\n\f\r ]+R$/u.exec(text.slice(value.start, value.end));
  if (!match) throw new PdfSyntaxError(`expected an indirect reference at ${describeAt(text, value.start)}`);
  return { objectNumber: Number(match[1]), generation: Number(match[2]) };
}

function parseXrefTable(text: string, xrefOffset: number): { entries: XrefEntry[]; trailerAt: number } {
  const subsectionHeader = /(\d+) (\d+)[ ]*(?:\r\n|\r|\n)/y;
  // Each entry is exactly 20 bytes: 10-digit offset, 5-digit generation, n/f, two-byte end of line.
  const entryPattern = /(\d{10}) (\d{5}) ([nf])(?: \r| \n|\r\n)/y;
  const entries: XrefEntry[] = [];
  let index = skipWhitespace(text, xrefOffset + 'xref'.length);
  for (;;) {
    subsectionHeader.lastIndex = index;
    const header = subsectionHeader.exec(text);
    if (!header) break;
    const first = Number(header[1]);
    const count = Number(header[2]);
    index = subsectionHeader.lastIndex;
    for (let k = 0; k < count; k += 1) {
      entryPattern.lastIndex = index;
      const entry = entryPattern.exec(text);
      if (!entry) throw new PdfSyntaxError(`malformed cross-reference entry at ${describeAt(text, index)}`);
      if (entry[3] === 'n') {
        entries.push({
          objectNumber: first + k,
          generation: Number(entry[2]),
          offset: Number(entry[1]),
          digitsAt: index,
        });
      }
      index = entryPattern.lastIndex;
    }
  }
  index = skipWhitespace(text, index);
  if (!text.startsWith('trailer', index)) {
    throw new PdfSyntaxError(
      `expected "trailer" after the cross-reference table at ${describeAt(text, index)}`,
    );
  }
  return { entries, trailerAt: skipWhitespace(text, index + 'trailer'.length) };
}

/**
 * Reads the file's only cross-reference section: `startxref` at the end, the classic `xref` table it
 * points to, and the trailer. Throws PdfSyntaxError for cross-reference streams and for incrementally
 * updated files (a `/Prev` chain), whose offsets this module does not rewrite.
 */
export function parseCrossReference(text: string): CrossReference {
  const tail = Math.max(0, text.length - TAIL_WINDOW);
  const keyword = text.lastIndexOf('startxref', text.length);
  const end =
    keyword < tail
      ? null
      : /^startxref[\0\t\n\f\r ]+(\d+)[\0\t\n\f\r ]+%%EOF[\0\t\n\f\r ]*$/u.exec(text.slice(keyword));
  if (!end || end[1] === undefined) throw new PdfSyntaxError('no "startxref … %%EOF" at the end of the file');
  const xrefOffset = Number(end[1]);
  const digitsStart = keyword + end[0].indexOf(end[1], 'startxref'.length);
  if (!text.startsWith('xref', xrefOffset)) {
    const stream = /^\d+[\0\t\n\f\r ]+\d+[\0\t\n\f\r ]+obj/u.test(text.slice(xrefOffset, xrefOffset + 40));
    throw new PdfSyntaxError(
      stream
        ? 'the file uses a cross-reference stream (PDF 1.5+), which is not supported'
        : `startxref points at ${describeAt(text, xrefOffset)}, where there is no cross-reference table`,
    );
  }
  const { entries, trailerAt } = parseXrefTable(text, xrefOffset);
  const trailer = parseDictionary(text, trailerAt);
  for (const key of ['Prev', 'XRefStm']) {
    if (dictionaryEntry(trailer, key)) {
      throw new PdfSyntaxError(`the trailer has /${key} (an updated or hybrid file), which is not supported`);
    }
  }
  return {
    xrefOffset,
    startxrefDigits: { start: digitsStart, end: digitsStart + end[1].length },
    entries,
    trailer,
  };
}

/** The position just after `N G obj` for an in-use object, checking the table points at that header. */
export function objectBodyStart(
  text: string,
  xref: CrossReference,
  objectNumber: number,
  generation: number,
): number {
  const entry = xref.entries.find((candidate) => candidate.objectNumber === objectNumber);
  if (!entry || entry.generation !== generation) {
    throw new PdfSyntaxError(`object ${objectNumber} ${generation} is not in the cross-reference table`);
  }
  const header = new RegExp(`${objectNumber}[\\0\\t\\n\\f\\r ]+${generation}[\\0\\t\\n\\f\\r ]+obj`, 'y');
  header.lastIndex = entry.offset;
  if (!header.test(text)) {
    throw new PdfSyntaxError(
      `the cross-reference table says object ${objectNumber} is at byte ${entry.offset}, but it is not`,
    );
  }
  return header.lastIndex;
}

/**
 * Checks that a PDF is intact enough to open: the `%PDF-` header, a parseable cross-reference table and
 * trailer, and every in-use entry pointing exactly at its `N G obj` header. Returns the problems found
 * (empty when none); used on every post-processed PDF and by the tests.
 */
export function verifyCrossReference(pdf: Uint8Array): string[] {
  const text = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString('latin1');
  const problems: string[] = [];
  if (!text.startsWith('%PDF-')) problems.push('the file does not start with "%PDF-"');
  let xref: CrossReference;
  try {
    xref = parseCrossReference(text);
  } catch (error) {
    if (error instanceof PdfSyntaxError) return [...problems, error.message];
    throw error;
  }
  if (xref.entries.length === 0) problems.push('the cross-reference table lists no objects');
  for (const entry of xref.entries) {
    try {
      objectBodyStart(text, xref, entry.objectNumber, entry.generation);
    } catch (error) {
      if (!(error instanceof PdfSyntaxError)) throw error;
      problems.push(error.message);
    }
  }
  return problems;
}

/** The document information dictionary the trailer's /Info points at, or null when it has none. */
export function infoDictionary(text: string, xref: CrossReference): PdfDictionary | null {
  const info = dictionaryEntry(xref.trailer, 'Info');
  if (!info) return null;
  const reference = parseReference(text, info.value);
  const bodyStart = objectBodyStart(text, xref, reference.objectNumber, reference.generation);
  return parseDictionary(text, skipWhitespace(text, bodyStart));
}

/** The byte a backslash escape in a literal string stands for (ISO 32000-1 Table 3). */
const LITERAL_ESCAPES: Readonly<Record<string, string>> = {
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
  '(': '(',
  ')': ')',
  '\\': '\\',
};

/** What the escape whose backslash is just before `body[at]` stands for, and how many bytes it spans. */
function literalEscape(body: string, at: number): { bytes: string; length: number } {
  const next = body[at] ?? '';
  if (Object.hasOwn(LITERAL_ESCAPES, next)) return { bytes: LITERAL_ESCAPES[next] ?? '', length: 1 };
  const octal = /^[0-7]{1,3}/u.exec(body.slice(at, at + 3))?.[0];
  if (octal !== undefined) {
    return { bytes: String.fromCharCode(Number.parseInt(octal, 8) & 0xff), length: octal.length };
  }
  // Before an end of line, the backslash continues the line; before anything else it is dropped.
  if (next === '\r') return { bytes: '', length: body[at + 1] === '\n' ? 2 : 1 };
  return { bytes: next === '\n' ? '' : next, length: 1 };
}

/** The bytes (latin1) of the string object at `value`: a literal `(…)` or a hex `<…>` string. */
function stringBytes(text: string, value: Span): string {
  const raw = text.slice(value.start, value.end);
  if (raw.startsWith('<') && !raw.startsWith('<<')) {
    const digits = raw.slice(1, -1).replace(/[\0\t\n\f\r ]/gu, '');
    // §7.3.4.3: an odd count of digits is read as if followed by 0.
    return Buffer.from(digits.length % 2 === 0 ? digits : `${digits}0`, 'hex').toString('latin1');
  }
  if (!raw.startsWith('(')) throw new PdfSyntaxError(`expected a string at ${describeAt(text, value.start)}`);
  const body = raw.slice(1, -1);
  let bytes = '';
  for (let index = 0; index < body.length; index += 1) {
    const char = body[index] ?? '';
    if (char === '\\') {
      const escape = literalEscape(body, index + 1);
      bytes += escape.bytes;
      index += escape.length;
    } else if (char === '\r') {
      // §7.3.4.2: an end of line in a literal string reads as one line feed.
      bytes += '\n';
      if (body[index + 1] === '\n') index += 1;
    } else {
      bytes += char;
    }
  }
  return bytes;
}

/**
 * The text of the string object at `value` (a text string, §7.9.2.2): UTF-16BE or UTF-8 after their
 * byte-order marks, else PDFDocEncoding, read here as latin1 (the two agree on printable ASCII, which
 * is what the values this tool looks for are made of).
 */
export function decodeTextString(text: string, value: Span): string {
  const bytes = stringBytes(text, value);
  if (bytes.startsWith('\u00fe\u00ff')) {
    const utf16 = Buffer.from(bytes.slice(2), 'latin1');
    return Buffer.from(utf16.subarray(0, utf16.length - (utf16.length % 2)))
      .swap16()
      .toString('utf16le');
  }
  if (bytes.startsWith('\u00ef\u00bb\u00bf')) return Buffer.from(bytes.slice(3), 'latin1').toString('utf8');
  return bytes;
}

/**
 * `value` as a text string object: a literal string when it is printable ASCII (so it reads as is in
 * the file's bytes), else UTF-16BE in hex after its byte-order mark, as Chromium writes /Title.
 */
export function encodeTextString(value: string): string {
  if (/^[\x20-\x7e]*$/u.test(value)) return `(${value.replace(/[\\()]/gu, (char) => `\\${char}`)})`;
  return `<FEFF${Buffer.from(value, 'utf16le').swap16().toString('hex').toUpperCase()}>`;
}
