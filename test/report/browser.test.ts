/**
 * The HTML report in real headless Chromium: it must open with no console error and no network
 * request, draw its charts, and never run hostile fixture text. Also prints a PDF.
 * Without Chromium these tests skip, unless AIRT_REQUIRE_BROWSER=1 (CI), where they fail.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, printPdf, resolveChromiumPath } from '../../src/report/pdf.js';
import { renderHtml } from '../../src/report/render.js';
import {
  complianceFixture,
  executiveFixture,
  HOSTILE,
  PWNED_FLAG,
  portfolioFixture,
} from './fixture-model.js';

const chromiumPath = resolveChromiumPath(process.env);
const available = existsSync(chromiumPath);
const required = process.env.AIRT_REQUIRE_BROWSER === '1';
const ARTIFACTS = path.resolve('test-artifacts');

interface PageFacts {
  pwned: boolean;
  drawnCharts: number;
  svgCount: number;
  javascriptLinks: number;
  anchors: number;
  scripts: number;
  images: number;
  handlers: number;
  text: string;
}

describe('browser prerequisites', () => {
  it.runIf(required)(`finds Chromium at ${chromiumPath} (AIRT_REQUIRE_BROWSER=1)`, () => {
    expect(available, `install Debian's chromium package or set AIRT_CHROMIUM`).toBe(true);
  });
});

describe.runIf(available)('HTML report in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: chromiumPath, args: [...CHROMIUM_ARGS] });
    await mkdir(ARTIFACTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it.each(
    [executiveFixture(), complianceFixture(), portfolioFixture()].map(
      (model) => [model.kind, model] as const,
    ),
  )('%s: no console error, no request, every chart drawn, no hostile text executed', async (kind, model) => {
    const { html, charts } = await renderHtml(model);
    // JavaScript stays enabled on purpose: a payload that slipped through would run and set the flag.
    const context = await browser.newContext({ viewport: { width: 1100, height: 1400 } });
    const page = await context.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    await context.route('**/*', async (route) => {
      requests.push(route.request().url());
      await route.abort();
    });
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    try {
      await page.setContent(html, { waitUntil: 'load' });
      await page.waitForTimeout(100);
      // A string expression: the test project has no DOM typings, and this runs in the page.
      const result = await page.evaluate<PageFacts>(`(() => {
          const svgs = [...document.querySelectorAll('figure.chart > svg')];
          return {
            pwned: window[${JSON.stringify(PWNED_FLAG)}] !== undefined,
            drawnCharts: svgs.filter((svg) => svg.querySelectorAll('g.role-mark > *').length > 0).length,
            svgCount: svgs.length,
            javascriptLinks: document.querySelectorAll('a[href^="javascript" i]').length,
            // Our remediation links to the frameworks' own sites are the only anchors allowed.
            anchors: [...document.querySelectorAll('a')].filter((a) =>
              !/^https:\\/\\/(genai\\.owasp\\.org|atlas\\.mitre\\.org|www\\.nist\\.gov|saif\\.google)\\//.test(a.getAttribute('href') ?? '')).length,
            scripts: document.querySelectorAll('script').length,
            images: document.querySelectorAll('img, image, iframe, object, embed').length,
            handlers: [...document.querySelectorAll('*')].filter((element) =>
              [...element.attributes].some((attribute) => attribute.name.startsWith('on'))).length,
            text: document.body.innerText,
          };
        })()`);
      await page.screenshot({ path: path.join(ARTIFACTS, `report-${kind}.png`), fullPage: true });
      expect(problems).toEqual([]);
      expect(requests).toEqual([]);
      expect(result.pwned).toBe(false);
      expect(result.svgCount).toBe(charts.length);
      expect(result.drawnCharts).toBe(charts.length);
      expect({ ...result, text: undefined }).toMatchObject({
        javascriptLinks: 0,
        anchors: 0,
        scripts: 0,
        images: 0,
        handlers: 0,
      });
      // The hostile text is shown to the reader as text, not interpreted.
      expect(result.text).toContain(
        kind === 'portfolio' ? 'RAG search [click me](javascript:' : HOSTILE.script,
      );
    } finally {
      await context.close();
    }
  });

  it('prints the executive report to a PDF', async () => {
    const { html } = await renderHtml(executiveFixture());
    const pdf = await printPdf(html, { executablePath: chromiumPath });
    expect(Buffer.from(pdf.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    expect(pdf.length).toBeGreaterThan(10_000);
    await writeFile(path.join(ARTIFACTS, 'report-executive.pdf'), pdf);
  });
});
