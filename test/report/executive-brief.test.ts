/**
 * The executive report's one-page summary: a light per framework in words, the change counts, the
 * three things to fix first, and — printed alone by Chromium — exactly one A4 page.
 * Without Chromium the print test skips, unless AIRT_REQUIRE_BROWSER=1 (CI), where it fails.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { printPdf, resolveChromiumPath } from '../../src/report/pdf.js';
import { renderHtml, renderMarkdown } from '../../src/report/render.js';
import { frameworkLight } from '../../src/report/view-brief.js';
import { executiveFixture } from './fixture-model.js';
import { briefOf } from './golden-set.js';

const chromiumPath = resolveChromiumPath(process.env);
const available = existsSync(chromiumPath);
const required = process.env.AIRT_REQUIRE_BROWSER === '1';
const dir = await mkdtemp(path.join(tmpdir(), 'airt-brief-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Pages of a PDF by poppler's pdfinfo (a real consumer, not our own parser). */
function pdfPages(file: string): number {
  const info = execFileSync('pdfinfo', [file], { encoding: 'utf8' });
  return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1] ?? NaN);
}

describe('framework light', () => {
  const row = {
    framework: 'f',
    title: 'F',
    coveragePct: 50,
    testedCategories: 2,
    totalCategories: 4,
    untested: 2,
  };
  it('fails on one failing category, is insufficient before it passes, and never passes untested', () => {
    expect(frameworkLight({ ...row, failing: 1, passing: 1, insufficientEvidence: 1 })).toBe('fail');
    expect(frameworkLight({ ...row, failing: 0, passing: 1, insufficientEvidence: 1 })).toBe('insufficient');
    expect(frameworkLight({ ...row, failing: 0, passing: 2, insufficientEvidence: 0 })).toBe('pass');
    expect(frameworkLight({ ...row, failing: 0, passing: 0, insufficientEvidence: 0 })).toBe('not-tested');
    expect(frameworkLight({ ...row, failing: null, passing: 2, insufficientEvidence: null })).toBe(
      'not-tested',
    );
  });
});

describe('one-page summary', () => {
  it('opens the Markdown report with risk, lights in words, changes, fix first and exclusions', async () => {
    const { markdown } = await renderMarkdown(executiveFixture());
    const brief = briefOf(markdown, '## At a glance', '\n## ');
    expect(markdown.indexOf('## At a glance')).toBeLessThan(markdown.indexOf('## Summary'));
    expect(brief).toMatch(/\*\*Risk: high · 7\.4 \/ 10\.\*\* Basis: /);
    expect(brief).toContain('3 new, 2 regressed, 1 resolved');
    expect(brief).toMatch(/\| OWASP LLM Top 10 \| \*\*Fail\*\* \|/);
    expect(brief).toMatch(/\*\*Not tested\*\*/);
    expect(brief.match(/^\d\. /gm)).toHaveLength(3);
    expect(brief).toContain('What the figures exclude');
    // Long lists live in the appendix, after the detail.
    expect(markdown.indexOf('# Appendix')).toBeLessThan(markdown.indexOf('## Evaluation jobs'));
    expect(markdown.indexOf('## Data quality')).toBeLessThan(markdown.indexOf('# Appendix'));
  });

  it('says none of the ranked findings is open when triage closed them all, not that none is ranked', async () => {
    const model = executiveFixture();
    model.topFindings = model.topFindings.map((finding) => ({ ...finding, open: false }));
    const brief = briefOf((await renderMarkdown(model)).markdown, '## At a glance', '\n## ');
    expect(brief.match(/^\d\. /gm)).toBeNull();
    expect(brief).toContain("none of the service's 3 highest-ranked findings are open");
    const { html } = await renderHtml(model);
    expect(html).toContain("None of the service's 3 highest-ranked findings are open");
  });

  it.runIf(required)(`finds Chromium at ${chromiumPath} (AIRT_REQUIRE_BROWSER=1)`, () => {
    expect(available).toBe(true);
  });

  it.runIf(available)(
    'prints alone on exactly one A4 page',
    async () => {
      const { html } = await renderHtml(executiveFixture());
      const file = path.join(dir, 'brief.pdf');
      await writeFile(file, await printPdf(html, { executablePath: chromiumPath, bodyClass: 'print-brief' }));
      expect(pdfPages(file)).toBe(1);
      const text = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });
      for (const word of [
        'At a glance',
        'Fail',
        'Fix first',
        'What the figures exclude',
        'Since the last snapshot',
      ])
        expect(text).toContain(word);
      expect(text).not.toContain('Evaluation jobs');
    },
    60_000,
  );
});
