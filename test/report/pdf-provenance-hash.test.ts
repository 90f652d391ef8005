/**
 * The provenance table of a printed report holds the whole root hash: a user tryout found it clipped
 * at the page edge in every PDF (its cell had no break points: a 64-character hash in a column 17%
 * wide ran over the next cells), so pdftotext read only its first 61 characters and an auditor could
 * not compare it with `verify`. It now has its own row under its snapshot's, the table's width. Read back with poppler's pdftotext, line breaks removed. Without
 * Chromium this skips, unless AIRT_REQUIRE_BROWSER=1 (CI), where it fails.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { printPdf, resolveChromiumPath } from '../../src/report/pdf.js';
import { renderHtml } from '../../src/report/render.js';
import { executiveFixture } from './fixture-model.js';

const chromiumPath = resolveChromiumPath(process.env);
const available = existsSync(chromiumPath) || process.env.AIRT_REQUIRE_BROWSER === '1';
const dir = await mkdtemp(path.join(tmpdir(), 'airt-pdf-hash-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe.runIf(available)('PDF provenance', () => {
  it('prints the whole root hash on one line, and the snapshot id', async () => {
    const model = executiveFixture();
    const snapshot = model.provenance.snapshots[0];
    if (snapshot?.rootSha256 == null) throw new Error('fixture has no root hash');
    const { html } = await renderHtml(model);
    const file = path.join(dir, 'report.pdf');
    // The provenance table prints in the appendix file (write-report.ts prints it with this class).
    await writeFile(
      file,
      await printPdf(html, { executablePath: chromiumPath, bodyClass: 'print-appendix' }),
    );
    const text = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });
    const compact = text.replace(/\s+/gu, '');
    expect(compact).toContain(snapshot.rootSha256);
    // In one piece, on one line: what an auditor copies to compare with `verify`.
    expect(text.split('\n').some((line) => line.includes(snapshot.rootSha256!))).toBe(true);
    expect(compact).toContain(snapshot.snapshotId);
  }, 60_000);
});
