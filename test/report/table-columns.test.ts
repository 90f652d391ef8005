/**
 * Tables with fixed column roles: every column header says what its column holds (an identifier, a
 * label, free text, a date or a number), the table is laid out with fixed widths per role so a long
 * table cannot crush a column, and numbers are right-aligned. In Chromium at the printed A4 width,
 * over every report kind of the hostile fixture: no table is wider than the page, no cell overflows
 * (a name longer than its column breaks), and every column keeps a readable width. Without Chromium the layout part skips,
 * unless AIRT_REQUIRE_BROWSER=1 (CI), where it fails.
 */
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, resolveChromiumPath } from '../../src/report/pdf.js';
import { renderHtml } from '../../src/report/render.js';
import { complianceFixture, executiveFixture, portfolioFixture } from './fixture-model.js';

const ROLES = ['num', 'col-id', 'col-label', 'col-text', 'col-date'];
const chromiumPath = resolveChromiumPath(process.env);
const available = existsSync(chromiumPath) || process.env.AIRT_REQUIRE_BROWSER === '1';
const fixtures = [executiveFixture(), complianceFixture(), portfolioFixture()].map(
  (model) => [model.kind, model] as const,
);

describe('column roles', () => {
  it.each(fixtures)('%s: every column header has exactly one role', async (_kind, model) => {
    const { html } = await renderHtml(model);
    const headers = [...html.matchAll(/<th\b[^>]*>/gu)].map((match) => match[0]);
    expect(headers.length).toBeGreaterThan(0);
    const wrong = headers.filter((th) => {
      const classes = /class="([^"]*)"/u.exec(th)?.[1]?.split(/\s+/u) ?? [];
      return classes.filter((name) => ROLES.includes(name)).length !== 1;
    });
    expect(wrong).toEqual([]);
  });
});

interface TableProblem {
  table: string;
  problem: string;
}

describe.runIf(available)('table layout in print (Chromium, A4 width)', () => {
  let browser: Browser;
  beforeAll(async () => {
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: chromiumPath, args: [...CHROMIUM_ARGS] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it.each(fixtures)(
    '%s: fixed layout, nothing wider than the page, numbers right-aligned and whole',
    async (_kind, model) => {
      const { html } = await renderHtml(model);
      const context = await browser.newContext({ offline: true, viewport: { width: 688, height: 1000 } });
      try {
        const page = await context.newPage();
        await page.emulateMedia({ media: 'print' });
        await page.setContent(html, { waitUntil: 'load' });
        // The report as printed, then its appendix as printed on its own (pdf.ts sets the class).
        const problems = [
          ...(await tableProblems(page)),
          ...(await page
            .evaluate(`document.body.classList.add('print-appendix')`)
            .then(() => tableProblems(page))),
        ];
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    },
    60_000,
  );
});

/** Layout problems of every table the page shows. */
async function tableProblems(page: Page): Promise<TableProblem[]> {
  // The function runs in the page; it is written as a string so the test needs no DOM types.
  return page.evaluate<TableProblem[]>(`(() => {
          const problems = [];
          const pageWidth = document.querySelector('main').clientWidth;
          document.querySelectorAll('table').forEach((table, index) => {
            const name = (table.className || 'table') + ' #' + index;
            // Tables that do not print (the appendix prints as its own file) have no layout here.
            if (table.getClientRects().length === 0) return;
            const style = getComputedStyle(table);
            if (style.tableLayout !== 'fixed') problems.push({ table: name, problem: 'layout ' + style.tableLayout });
            if (table.getBoundingClientRect().width > pageWidth + 1)
              problems.push({ table: name, problem: 'wider than the page' });
            table.querySelectorAll('thead th').forEach((th) => {
              if (th.getBoundingClientRect().width < 36)
                problems.push({ table: name, problem: 'column "' + th.textContent + '" is crushed' });
            });
            // No cell of any role draws over its neighbour: a name longer than its column breaks.
            table.querySelectorAll('td').forEach((td) => {
              if (td.classList.contains('num') && getComputedStyle(td).textAlign !== 'right')
                problems.push({ table: name, problem: 'number not right-aligned: ' + td.textContent });
              if (td.scrollWidth > td.clientWidth + 1)
                problems.push({ table: name, problem: 'overflows its cell: ' + td.textContent });
            });
          });
          return problems;
        })()`);
}
