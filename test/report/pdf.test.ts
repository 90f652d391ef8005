/**
 * PDF output is byte-deterministic in real headless Chromium: the same report printed twice gives the
 * same bytes, dated with the report's data time instead of the print time, and the cross-reference
 * table still points at every object. Without Chromium these tests skip, unless
 * AIRT_REQUIRE_BROWSER=1 (CI), where they fail.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { reportDataAsOf } from '../../src/report/model.js';
import { printPdf, resolveChromiumPath } from '../../src/report/pdf.js';
import { verifyCrossReference } from '../../src/report/pdf-syntax.js';
import { renderHtml } from '../../src/report/render.js';
import { executiveFixture } from './fixture-model.js';

const chromiumPath = resolveChromiumPath(process.env);
const available = existsSync(chromiumPath);
const required = process.env.AIRT_REQUIRE_BROWSER === '1';

/** Every date entry in the file, e.g. `/CreationDate (D:…)`, in file order. */
function dateEntries(pdf: Uint8Array): string[] {
  return (
    Buffer.from(pdf)
      .toString('latin1')
      .match(/\/(?:CreationDate|ModDate)[\0\t\n\f\r ]*\([^)]*\)/gu) ?? []
  );
}

describe('PDF prerequisites', () => {
  it.runIf(required)(`finds Chromium at ${chromiumPath} (AIRT_REQUIRE_BROWSER=1)`, () => {
    expect(available, `install Debian's chromium package or set AIRT_CHROMIUM`).toBe(true);
  });
});

describe.runIf(available)('PDF output in headless Chromium', () => {
  it('prints the same report to the same bytes, dated with the data time', async () => {
    const model = executiveFixture();
    const { html } = await renderHtml(model);
    const documentDate = reportDataAsOf(model);
    expect(documentDate).toBe('2026-01-05T12:00:00Z');
    const first = await printPdf(html, { executablePath: chromiumPath, documentDate });
    const second = await printPdf(html, { executablePath: chromiumPath, documentDate });
    expect(Buffer.compare(Buffer.from(first), Buffer.from(second))).toBe(0);
    expect(Buffer.from(first.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    expect(verifyCrossReference(first)).toEqual([]);
    // Chromium's own dates are the print time; both must now be the snapshot's fetch time.
    expect(dateEntries(first)).toEqual([
      "/CreationDate (D:20260105120000+00'00')",
      "/ModDate (D:20260105120000+00'00')",
    ]);
  });

  it('leaves the dates out when the data time is unknown', async () => {
    const { html } = await renderHtml(executiveFixture());
    const pdf = await printPdf(html, { executablePath: chromiumPath, documentDate: null });
    expect(dateEntries(pdf)).toEqual([]);
    expect(verifyCrossReference(pdf)).toEqual([]);
  });
});
