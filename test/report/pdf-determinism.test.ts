/**
 * The PDF post-processor on small synthetic PDFs. Each is written by buildPdf below, which lays out
 * objects and computes the cross-reference table itself, so it is an independent oracle: rewriting a
 * PDF must give exactly the bytes buildPdf writes for the expected objects.
 */
import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/errors.js';
import { reportDataAsOf } from '../../src/report/model.js';
import { makePdfDeterministic, pdfDate } from '../../src/report/pdf-determinism.js';
import { verifyCrossReference } from '../../src/report/pdf-syntax.js';
import { complianceFixture, executiveFixture, portfolioFixture } from './fixture-model.js';

interface BuildOptions {
  /** The two bytes ending each 20-byte cross-reference entry. */
  entryEnd?: ' \n' | '\r\n';
  /** Extra trailer entries, e.g. an /ID. */
  trailerExtra?: string;
}

/** A classic PDF 1.4 file: objects numbered from 1, the catalog first-referenced as 2 0 R. */
function buildPdfText(objects: readonly string[], options: BuildOptions = {}): string {
  const entryEnd = options.entryEnd ?? ' \n';
  // The second line is the customary binary comment: four bytes above 127, in latin1.
  let text = '%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n';
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(text.length);
    text += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = text.length;
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f${entryEnd}`;
  for (const offset of offsets) text += `${String(offset).padStart(10, '0')} 00000 n${entryEnd}`;
  text += `trailer\n<</Size ${objects.length + 1}\n/Root 2 0 R\n/Info 1 0 R${options.trailerExtra ?? ''}>>\n`;
  return `${text}startxref\n${xref}\n%%EOF`;
}

function buildPdf(objects: readonly string[], options: BuildOptions = {}): Uint8Array {
  return new Uint8Array(Buffer.from(buildPdfText(objects, options), 'latin1'));
}

const latin1 = (pdf: Uint8Array): string => Buffer.from(pdf).toString('latin1');

/** What Chromium prints: the information dictionary first, then a catalog, pages and binary content. */
function chromiumLikeObjects(info: string): string[] {
  return [
    info,
    '<</Type /Catalog\n/Pages 3 0 R>>',
    '<</Type /Pages\n/Count 1\n/Kids [4 0 R]>>',
    '<</Type /Page\n/Parent 3 0 R\n/MediaBox [0 0 595 842]\n/Contents 5 0 R>>',
    // Binary stream bytes, including unbalanced parentheses the dictionary scanner must never see.
    '<</Length 8>> stream\n\u00ff\u0000\u0080)((\u00fe\u0001\nendstream',
  ];
}

const PRINT_TIME = "(D:20261122112338+00'00')";
const DATA_TIME = '2026-01-05T12:00:00Z';
const DATA_TIME_PDF = "(D:20260105120000+00'00')";

const info = (dates: string): string =>
  `<</Title (Executive report)\n/Creator (HeadlessChrome \\(test\\))\n/Producer (Skia/PDF m156)${dates}>>`;

describe('pdfDate', () => {
  it.each([
    ['2026-01-05T12:00:00Z', "D:20260105120000+00'00'"],
    ['2025-12-01T12:00:41.250Z', "D:20251201120041+00'00'"],
    ['2026-01-05T12:00Z', "D:20260105120000+00'00'"],
    ['2026-01-05 14:30:00+02:00', "D:20260105123000+00'00'"],
    ['2026-01-01T01:00:00+0200', "D:20251231230000+00'00'"],
    ['2025-12-31T21:00:00-03:30', "D:20260101003000+00'00'"],
    ['2026-01-05T12:00:00', 'D:20260105120000'],
  ])('%s → %s', (timestamp, expected) => {
    expect(pdfDate(timestamp)).toBe(expected);
  });

  it.each([
    'yesterday',
    '',
    '2026-02-31T00:00:00Z',
    '2026-01-05T24:00:00Z',
    '2026-01-05T12:60:00Z',
    '20260105',
  ])('rejects %j with a CliError naming the value', (timestamp) => {
    expect(() => pdfDate(timestamp)).toThrow(CliError);
    expect(() => pdfDate(timestamp)).toThrow(`Cannot date the PDF from ${JSON.stringify(timestamp)}`);
  });
});

describe('reportDataAsOf', () => {
  it('is the newest fetched_at of the snapshots the report covers (the "data as of" it shows)', () => {
    expect(reportDataAsOf(executiveFixture())).toBe('2026-01-05T12:00:00Z');
    expect(reportDataAsOf(complianceFixture())).toBe('2026-01-05T12:00:00Z');
    expect(reportDataAsOf(portfolioFixture())).toBe('2026-01-05T12:00:00Z');
  });

  it('is null when no snapshot has a known fetch time', () => {
    const model = executiveFixture();
    model.provenance.snapshots = model.provenance.snapshots.map((snapshot) => ({
      ...snapshot,
      fetchedAt: null,
    }));
    expect(reportDataAsOf(model)).toBeNull();
  });
});

describe('makePdfDeterministic', () => {
  const dated = chromiumLikeObjects(info(`\n/CreationDate ${PRINT_TIME}\n/ModDate ${PRINT_TIME}`));

  it('replaces the print time with the data time in place: same length, every other byte kept', () => {
    const input = buildPdf(dated);
    const output = makePdfDeterministic(input, { documentDate: DATA_TIME });
    const expected = buildPdf(
      chromiumLikeObjects(info(`\n/CreationDate ${DATA_TIME_PDF}\n/ModDate ${DATA_TIME_PDF}`)),
    );
    expect(output.length).toBe(input.length);
    expect(latin1(output)).toBe(latin1(expected));
    expect(verifyCrossReference(output)).toEqual([]);
  });

  it('gives the same bytes for two prints at different times', () => {
    const later = chromiumLikeObjects(
      info(`\n/CreationDate (D:20271231235959+00'00')\n/ModDate (D:20271231235959+00'00')`),
    );
    expect(latin1(makePdfDeterministic(buildPdf(later), { documentDate: DATA_TIME }))).toBe(
      latin1(makePdfDeterministic(buildPdf(dated), { documentDate: DATA_TIME })),
    );
  });

  it.each([' \n', '\r\n'] as const)(
    'removes the dates when the data time is unknown, shifting every later offset (entries end %j)',
    (entryEnd) => {
      const output = makePdfDeterministic(buildPdf(dated, { entryEnd }), { documentDate: null });
      expect(latin1(output)).toBe(latin1(buildPdf(chromiumLikeObjects(info('\n\n')), { entryEnd })));
      expect(verifyCrossReference(output)).toEqual([]);
    },
  );

  it('recomputes offsets when the new date is longer than the one Chromium wrote', () => {
    const short = chromiumLikeObjects(
      info('\n/CreationDate (D:20261122112338Z)\n/ModDate (D:20261122112338Z)'),
    );
    const output = makePdfDeterministic(buildPdf(short), { documentDate: DATA_TIME });
    const expected = buildPdf(
      chromiumLikeObjects(info(`\n/CreationDate ${DATA_TIME_PDF}\n/ModDate ${DATA_TIME_PDF}`)),
    );
    expect(latin1(output)).toBe(latin1(expected));
    expect(verifyCrossReference(output)).toEqual([]);
  });

  it('leaves look-alike text inside other strings alone', () => {
    // A hostile page title: escaped and balanced parentheses around text that looks like a date entry.
    const title = String.raw`(Report \(draft\) /CreationDate \(D:19990101000000Z\) (nested /ModDate (x)) \\)`;
    const withTitle = (dates: string): string[] =>
      chromiumLikeObjects(`<</Title ${title}\n/Producer (Skia/PDF m156)${dates}>>`);
    const output = makePdfDeterministic(
      buildPdf(withTitle(`\n/CreationDate ${PRINT_TIME}\n/ModDate ${PRINT_TIME}`)),
      {
        documentDate: DATA_TIME,
      },
    );
    expect(latin1(output)).toBe(
      latin1(buildPdf(withTitle(`\n/CreationDate ${DATA_TIME_PDF}\n/ModDate ${DATA_TIME_PDF}`))),
    );
  });

  it('replaces a random /ID with one derived from the content', () => {
    const withId = (id: string, title = 'Executive report'): Uint8Array =>
      buildPdf(chromiumLikeObjects(`<</Title (${title})\n/CreationDate ${PRINT_TIME}>>`), {
        trailerExtra: `\n/ID [<0123456789ABCDEF0123456789ABCDEF> <${id}>]`,
      });
    const first = makePdfDeterministic(withId('F00DF00DF00DF00DF00DF00DF00DF00D'), {
      documentDate: DATA_TIME,
    });
    const second = makePdfDeterministic(withId('BEEF'), { documentDate: DATA_TIME });
    const other = makePdfDeterministic(withId('BEEF', 'Compliance report'), { documentDate: DATA_TIME });
    expect(latin1(first)).toBe(latin1(second));
    const ids = [first, other].map((pdf) => /\/ID \[<([0-9A-F]{32})> <([0-9A-F]{32})>\]/u.exec(latin1(pdf)));
    expect(ids[0]?.[1]).toBe(ids[0]?.[2]);
    expect(ids[0]?.[1]).not.toBe(ids[1]?.[1]);
    expect(verifyCrossReference(first)).toEqual([]);
  });

  it('is idempotent', () => {
    const once = makePdfDeterministic(buildPdf(dated), { documentDate: DATA_TIME });
    expect(makePdfDeterministic(once, { documentDate: DATA_TIME })).toBe(once);
  });

  it.each([
    ['no /Info at all', buildPdfText(chromiumLikeObjects('<<>>')).replace('\n/Info 1 0 R', '')],
    ['an /Info without dates', buildPdfText(chromiumLikeObjects(info('')))],
    ['not even a PDF structure', 'just some bytes /Identity-H /IDs /CreationDates'],
  ])('passes a PDF with %s through unchanged', (_, text) => {
    const input = new Uint8Array(Buffer.from(text, 'latin1'));
    expect(makePdfDeterministic(input, { documentDate: DATA_TIME })).toBe(input);
  });

  const validText = buildPdfText(dated);
  const xrefAt = validText.indexOf('\nxref\n') + 1;
  it.each([
    ['a truncated file', validText.slice(0, -20), 'no "startxref … %%EOF"'],
    [
      'a cross-reference stream',
      `${validText.slice(0, xrefAt)}6 0 obj\n<</Type /XRef>>\nendobj\nstartxref\n${xrefAt}\n%%EOF`,
      'cross-reference stream',
    ],
    ['an incremental update', validText.replace('/Root 2 0 R', '/Root 2 0 R\n/Prev 9'), '/Prev'],
    // Object 1 follows the 15-byte header; the table now says byte 9.
    ['a wrong object offset', validText.replace('65535 f \n0000000015', '65535 f \n0000000009'), 'object 1 '],
    ['an /Info pointing at no object', validText.replace('/Info 1 0 R', '/Info 7 0 R'), 'object 7 0'],
    [
      'an unterminated string in the Info dictionary',
      buildPdfText(chromiumLikeObjects(`<</Title (unbalanced ((>>\n/CreationDate ${PRINT_TIME}>>`)),
      'never ends',
    ],
  ])('refuses %s with a CliError saying what was found', (_, text, detail) => {
    const input = new Uint8Array(Buffer.from(text, 'latin1'));
    expect(() => makePdfDeterministic(input, { documentDate: DATA_TIME })).toThrow(CliError);
    expect(() => makePdfDeterministic(input, { documentDate: DATA_TIME })).toThrow(detail);
  });
});

describe('verifyCrossReference', () => {
  it('accepts a well-formed file and names each broken part of a damaged one', () => {
    const text = buildPdfText(chromiumLikeObjects(info('')));
    expect(verifyCrossReference(Buffer.from(text, 'latin1'))).toEqual([]);
    // One byte more before object 2 and one less after object 5 move objects 2–5, but not the table.
    const shifted = text.replace('endobj\n2 0 obj', 'endobj\n\n2 0 obj').replace('\nendstream', 'endstream');
    const problems = verifyCrossReference(Buffer.from(`x${shifted.slice(1)}`, 'latin1'));
    expect(problems).toContain('the file does not start with "%PDF-"');
    expect(problems.filter((problem) => /object [2-5] is at byte/u.test(problem))).toHaveLength(4);
    expect(verifyCrossReference(Buffer.from('%PDF-1.4\n', 'latin1'))).toEqual([
      'no "startxref … %%EOF" at the end of the file',
    ]);
  });
});
