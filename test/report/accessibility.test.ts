/**
 * Every HTML report kind over the hostile fixture: axe-core (WCAG 2 A and AA) finds no violation in
 * Chromium and html-validate's recommended rules find no error. The demo's reports get the same
 * checks in test/demo/demo.test.ts. Without Chromium the axe part skips, unless
 * AIRT_REQUIRE_BROWSER=1 (CI), where it fails.
 */
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, resolveChromiumPath } from '../../src/report/pdf.js';
import { renderHtml } from '../../src/report/render.js';
import { axeViolations, htmlErrors } from './a11y.js';
import { complianceFixture, executiveFixture, portfolioFixture } from './fixture-model.js';

const chromiumPath = resolveChromiumPath(process.env);
const available = existsSync(chromiumPath) || process.env.AIRT_REQUIRE_BROWSER === '1';
const fixtures = [executiveFixture(), complianceFixture(), portfolioFixture()].map(
  (model) => [model.kind, model] as const,
);

describe('HTML validity (html-validate, recommended rules)', () => {
  it.each(fixtures)('%s report over the hostile fixture has no error', async (_kind, model) => {
    expect(await htmlErrors((await renderHtml(model)).html)).toEqual([]);
  });
});

describe.runIf(available)('accessibility (axe-core, WCAG 2 A and AA)', () => {
  let browser: Browser;
  beforeAll(async () => {
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: chromiumPath, args: [...CHROMIUM_ARGS] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it.each(fixtures)(
    '%s report over the hostile fixture has no violation',
    async (_kind, model) => {
      expect(await axeViolations(browser, (await renderHtml(model)).html)).toEqual([]);
    },
    60_000,
  );
});
