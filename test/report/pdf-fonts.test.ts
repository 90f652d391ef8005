/**
 * An emoji in an assessment name prints as a glyph, not a tofu box: Chromium must find an emoji font
 * (Debian's fonts-noto-color-emoji, installed by .ci/run) and embed it in the PDF, as poppler's
 * pdffonts sees it. Without Chromium this skips, unless AIRT_REQUIRE_BROWSER=1 (CI), where it fails.
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
const dir = await mkdtemp(path.join(tmpdir(), 'airt-fonts-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe.runIf(available)('PDF fonts', () => {
  it("finds Debian's colour emoji font (fonts-noto-color-emoji, installed by .ci/run)", () => {
    expect(execFileSync('fc-list', { encoding: 'utf8' })).toMatch(/Noto Color Emoji/);
  });

  it('embeds the emoji glyph for an emoji in an assessment name', async () => {
    const print = async (name: string, assessment: string): Promise<string> => {
      const model = executiveFixture();
      const [first] = model.topFindings;
      if (first === undefined) throw new Error('fixture has no top finding');
      first.assessmentName = assessment;
      const { html } = await renderHtml(model);
      const file = path.join(dir, name);
      await writeFile(file, await printPdf(html, { executablePath: chromiumPath, bodyClass: 'print-brief' }));
      return file;
    };
    const fonts = (file: string): string => execFileSync('pdffonts', [file], { encoding: 'utf8' });
    const plain = await print('plain.pdf', 'Weekly sweep rocket');
    const emoji = await print('emoji.pdf', 'Weekly sweep 🚀 rocket');
    // Chromium embeds colour emoji as bitmap glyphs in a Type 3 font; a missing font leaves only
    // the text fonts and a box. The same page without the emoji has no Type 3 font.
    expect(fonts(plain)).not.toMatch(/Type 3/);
    expect(fonts(emoji)).toMatch(/Type 3\s+Custom\s+yes/);
    expect(execFileSync('pdftotext', [emoji, '-'], { encoding: 'utf8' })).toContain('Weekly sweep');
  }, 60_000);
});
