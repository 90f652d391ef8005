/**
 * The mark of a PDF printed from a forced load's report (its /Subject) on small synthetic PDFs, without
 * Chromium: makePdfDeterministic writes it into the information dictionary with every offset kept
 * exact, deterministically, and pdfMarkedUnverified (what `verify BUNDLE.zip` uses) reads it back in
 * the string forms PDF allows, and refuses structure it cannot read rather than saying "not marked".
 * bundle-refuses-unverified-pdf.test.ts covers real Chromium output.
 */
import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/errors.js';
import { makePdfDeterministic } from '../../src/report/pdf-determinism.js';
import {
  decodeTextString,
  encodeTextString,
  PdfSyntaxError,
  verifyCrossReference,
} from '../../src/report/pdf-syntax.js';
import { pdfMarkedUnverified, UNVERIFIED_PDF_SUBJECT } from '../../src/report/unverified-banner.js';

/** A classic PDF 1.4 file, objects numbered from 1, cross-reference table computed here (the oracle). */
function buildPdfText(objects: readonly string[], trailerExtra = '/Info 1 0 R'): string {
  let text = '%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n';
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(text.length);
    text += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = text.length;
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) text += `${String(offset).padStart(10, '0')} 00000 n \n`;
  text += `trailer\n<</Size ${objects.length + 1}\n/Root 2 0 R\n${trailerExtra}>>\n`;
  return `${text}startxref\n${xref}\n%%EOF`;
}

const bytes = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'latin1'));
const latin1 = (pdf: Uint8Array): string => Buffer.from(pdf).toString('latin1');

/** Chromium's layout: the information dictionary first, then catalog, pages and binary content. */
function objects(info: string): string[] {
  return [
    info,
    '<</Type /Catalog\n/Pages 3 0 R>>',
    '<</Type /Pages\n/Count 1\n/Kids [4 0 R]>>',
    '<</Type /Page\n/Parent 3 0 R\n/MediaBox [0 0 595 842]\n/Contents 5 0 R>>',
    '<</Length 8>> stream\n\u00ff\u0000\u0080)((\u00fe\u0001\nendstream',
  ];
}

const PRINTED =
  "<</Title <FEFF0052>\n/Producer (Skia/PDF m156)\n/CreationDate (D:20261122112338+00'00')\n" +
  "/ModDate (D:20261122112338+00'00')>>";
const DATED =
  "<</Title <FEFF0052>\n/Producer (Skia/PDF m156)\n/CreationDate (D:20260105120000+00'00')\n" +
  "/ModDate (D:20260105120000+00'00')";
const SUBJECT_OBJECT = `/Subject ${encodeTextString(UNVERIFIED_PDF_SUBJECT)}`;
const DATA_TIME = '2026-01-05T12:00:00Z';

describe('makePdfDeterministic with a subject', () => {
  it('adds /Subject as the last entry of /Info, dates rewritten, every offset exact', () => {
    const marked = makePdfDeterministic(bytes(buildPdfText(objects(PRINTED))), {
      documentDate: DATA_TIME,
      subject: UNVERIFIED_PDF_SUBJECT,
    });
    expect(latin1(marked)).toBe(buildPdfText(objects(`${DATED}\n${SUBJECT_OBJECT}>>`)));
    expect(verifyCrossReference(marked)).toEqual([]);
    expect(pdfMarkedUnverified(latin1(marked))).toBe(true);
    // Plain ASCII, so the raw bytes say it too.
    expect(latin1(marked)).toContain('/Subject (WARNING: UNVERIFIED DATA. Made from a snapshot');
  });

  it('adds it with the dates removed (no data time) and to a PDF with no dates at all', () => {
    const undated = makePdfDeterministic(bytes(buildPdfText(objects(PRINTED))), {
      documentDate: null,
      subject: UNVERIFIED_PDF_SUBJECT,
    });
    expect(verifyCrossReference(undated)).toEqual([]);
    expect(latin1(undated)).not.toContain('Date');
    expect(pdfMarkedUnverified(latin1(undated))).toBe(true);
    // Nothing run-specific: without a subject it is returned untouched, with one it is still marked.
    const plain = bytes(buildPdfText(objects('<</Title (R)>>')));
    expect(makePdfDeterministic(plain, { documentDate: null })).toBe(plain);
    const marked = makePdfDeterministic(plain, { documentDate: null, subject: UNVERIFIED_PDF_SUBJECT });
    expect(latin1(marked)).toBe(buildPdfText(objects(`<</Title (R)\n${SUBJECT_OBJECT}>>`)));
  });

  it('replaces a /Subject already there, is idempotent, and gives the same bytes twice', () => {
    const withSubject = bytes(
      buildPdfText(objects("<</Subject (Quarterly \\(draft\\))\n/ModDate (D:20261122112338+00'00')>>")),
    );
    const options = { documentDate: DATA_TIME, subject: UNVERIFIED_PDF_SUBJECT };
    const once = makePdfDeterministic(withSubject, options);
    expect(latin1(once)).toBe(
      buildPdfText(objects(`<<${SUBJECT_OBJECT}\n/ModDate (D:20260105120000+00'00')>>`)),
    );
    expect(makePdfDeterministic(once, options)).toEqual(once);
    expect(makePdfDeterministic(withSubject, options)).toEqual(once);
  });

  it('refuses a PDF with no information dictionary to carry the mark', () => {
    const noInfo = bytes(buildPdfText(objects('<</Title (R)>>'), ''));
    expect(makePdfDeterministic(noInfo, { documentDate: null })).toBe(noInfo);
    expect(() =>
      makePdfDeterministic(noInfo, { documentDate: null, subject: UNVERIFIED_PDF_SUBJECT }),
    ).toThrow(CliError);
    expect(() =>
      makePdfDeterministic(noInfo, { documentDate: null, subject: UNVERIFIED_PDF_SUBJECT }),
    ).toThrow(/no information dictionary \(\/Info\) to mark/u);
  });
});

describe('pdfMarkedUnverified', () => {
  const marked = (info: string): boolean => pdfMarkedUnverified(buildPdfText(objects(info)));
  const utf16 = (text: string): string =>
    `<FEFF${Buffer.from(text, 'utf16le').swap16().toString('hex').toUpperCase()}>`;

  it('reads the mark as a literal string, in UTF-16BE hex (as Chromium writes /Title), or UTF-8', () => {
    expect(marked(`<</Subject (WARNING: UNVERIFIED DATA. x)>>`)).toBe(true);
    expect(marked(`<</Subject ${utf16('WARNING: UNVERIFIED DATA. é')}>>`)).toBe(true);
    const utf8 = `<EFBBBF${Buffer.from('WARNING: UNVERIFIED DATA. é', 'utf8').toString('hex')}>`;
    expect(marked(`<</Subject ${utf8}>>`)).toBe(true);
  });

  it('is false without one: no /Subject, another subject, the words elsewhere, no /Info', () => {
    expect(marked("<</Title (R)\n/ModDate (D:20260105120000+00'00')>>")).toBe(false);
    expect(marked('<</Subject (Quarterly report)>>')).toBe(false);
    expect(marked('<</Title (WARNING: UNVERIFIED DATA.)\n/Keywords (WARNING: UNVERIFIED DATA.)>>')).toBe(
      false,
    );
    expect(marked('<</Subject (Note: WARNING: UNVERIFIED DATA.)>>')).toBe(false);
    expect(pdfMarkedUnverified(buildPdfText(objects('<</Title (R)>>'), ''))).toBe(false);
  });

  it('throws PdfSyntaxError for structure it cannot read, rather than answering "not marked"', () => {
    const updated = buildPdfText(objects('<</Title (R)>>'), '/Info 1 0 R\n/Prev 9');
    expect(() => pdfMarkedUnverified(updated)).toThrow(PdfSyntaxError);
    expect(() => pdfMarkedUnverified('not a pdf')).toThrow(PdfSyntaxError);
    expect(() => marked('<</Subject /WARNING>>')).toThrow(PdfSyntaxError);
  });
});

describe('text strings', () => {
  const decode = (object: string): string => decodeTextString(object, { start: 0, end: object.length });

  it('decodes literal strings with their escapes and line ends', () => {
    expect(decode('(a \\(b\\) c\\\\d)')).toBe('a (b) c\\d');
    expect(decode('(tab\\there\\nnew\\101\\60\\0053)')).toBe('tab\there\nnewA0\u00053');
    expect(decode('(one \\\r\ntwo\r\nthree\rfour)')).toBe('one two\nthree\nfour');
    expect(decode('(unknown \\q escape)')).toBe('unknown q escape');
  });

  it('decodes hex strings, odd digits padded with 0, whitespace ignored', () => {
    expect(decode('<48 65 6C6C 6F>')).toBe('Hello');
    expect(decode('<414>')).toBe('A@');
    expect(decode('<FEFF 0057 00E9>')).toBe('Wé');
  });

  it('encodes ASCII as a readable literal string and anything else as UTF-16BE hex, round trip', () => {
    expect(encodeTextString('a (b) \\ c')).toBe('(a \\(b\\) \\\\ c)');
    expect(encodeTextString('é')).toBe('<FEFF00E9>');
    for (const text of ['', 'plain', 'WARNING: (forced) \\', 'Ünïcödé ✓ 𝄞', 'line\nbreak']) {
      const object = encodeTextString(text);
      expect(decode(object)).toBe(text);
    }
  });
});
