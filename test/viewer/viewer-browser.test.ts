/**
 * The viewer in Debian's Chromium (playwright-core), JavaScript enabled on purpose so a payload that
 * slipped through would run: the analyst's paths (overview → filtered findings → a finding's trials;
 * a failing framework category → its findings; a CSV download), the hostile data's pages (no dialog,
 * no script, no request outside the server), axe-core and html-validate on every page kind, and the
 * findings page's screenshot. Without Chromium these tests skip, unless AIRT_REQUIRE_BROWSER=1.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, resolveChromiumPath } from '../../src/report/pdf.js';
import { startViewer, type RunningViewer } from '../../src/viewer/server.js';
import { openWarehouse } from '../../src/warehouse/db.js';
import { pythonCsv } from '../helpers/python-csv.js';
import { axeViolations, htmlErrors } from '../report/a11y.js';
import { buildViewerWarehouse } from './viewer-warehouse.js';

const chromiumPath = resolveChromiumPath(process.env);
const available = existsSync(chromiumPath) || process.env.AIRT_REQUIRE_BROWSER === '1';
const ARTIFACTS = path.resolve('test-artifacts');

describe.runIf(available)('the viewer in headless Chromium', () => {
  let browser: Browser;
  let viewer: RunningViewer;
  let hostileFinding: string;

  beforeAll(async () => {
    const warehouse = await buildViewerWarehouse();
    const wh = await openWarehouse(warehouse.db, { readOnly: true });
    try {
      // A finding the viewer has a page for (metric_findings: runs of analyzed assessments), of the newest
      // snapshot; a run of a still-running assessment has none (the two snapshots may share a second,
      // so snapshot-id order alone could pick either).
      const reader = await wh.conn.runAndReadAll(`SELECT t.snapshot_id, r.attack_run_id FROM trials t
        JOIN attack_runs r USING (snapshot_id, assessment_id, attack_name, goal)
        JOIN latest_metric_findings f USING (snapshot_id, attack_run_id)
        WHERE (t.candidate LIKE '%<script>%' OR t.response LIKE '%<script>%' OR t.candidate LIKE '%alert(%')
        ORDER BY 1 DESC, 2 LIMIT 1`);
      const [snapshot, run] = (reader.getRowsJS()[0] ?? []) as string[];
      hostileFinding = `/finding?snapshot=${encodeURIComponent(String(snapshot))}&run=${encodeURIComponent(String(run))}`;
    } finally {
      wh.close();
    }
    viewer = await startViewer({ db: warehouse.db });
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: chromiumPath, args: [...CHROMIUM_ARGS] });
    await mkdir(ARTIFACTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await viewer?.close();
  });

  /** A context that lets requests reach the viewer only, recording every other one. */
  async function guardedContext(
    outside: string[],
    options: { acceptDownloads?: boolean } = {},
  ): Promise<BrowserContext> {
    const context = await browser.newContext({ viewport: { width: 1100, height: 1000 }, ...options });
    const origin = new URL(viewer.url).origin;
    await context.route('**/*', async (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) await route.continue();
      else {
        outside.push(url);
        await route.abort();
      }
    });
    return context;
  }

  async function withPage<T>(
    work: (page: Page) => Promise<T>,
    options: { acceptDownloads?: boolean } = {},
  ): Promise<T> {
    const outside: string[] = [];
    const context = await guardedContext(outside, options);
    try {
      const result = await work(await context.newPage());
      expect(outside).toEqual([]);
      return result;
    } finally {
      await context.close();
    }
  }

  const findingsCount = async (page: Page): Promise<number> =>
    Number(/\((\d+) findings\)/.exec((await page.locator('nav.pages').textContent()) ?? '')?.[1] ?? NaN);

  it('opens the overview: every project with its risk, ASR and framework lights', async () => {
    await withPage(async (page) => {
      await page.goto(viewer.url);
      await expect(page.locator('h1').textContent()).resolves.toBe('Projects');
      const rows = page.locator('#table-projects tbody tr');
      expect(await rows.count()).toBe(3);
      expect(await page.locator('#table-projects a.light').count()).toBeGreaterThan(0);
      expect(await page.locator('figure.chart svg').count()).toBeGreaterThan(0);
    });
  });

  it('filters findings by severity, then by framework category state', async () => {
    await withPage(async (page) => {
      await page.goto(`${viewer.url}findings`);
      const all = await findingsCount(page);
      await page.selectOption('select[name=severity]', 'high');
      await page.click('form.filters button[type=submit]');
      await page.waitForURL(/severity=high/);
      const high = await findingsCount(page);
      expect(high).toBeGreaterThan(0);
      expect(high).toBeLessThan(all);
      const pills = await page.locator('#table-findings tbody .pill').allTextContents();
      expect(new Set(pills)).toEqual(new Set(['high']));

      await page.selectOption('select[name=severity]', '');
      await page.selectOption('select[name=framework]', 'owasp_llm');
      await page.selectOption('select[name=state]', 'failing');
      await page.click('form.filters button[type=submit]');
      await page.waitForURL(/framework=owasp_llm&state=failing/);
      const failing = await findingsCount(page);
      expect(failing).toBeGreaterThan(0);
      expect(failing).toBeLessThanOrEqual(all);
    });
  });

  it('opens a finding from the list and sees its trials', async () => {
    await withPage(async (page) => {
      await page.goto(`${viewer.url}findings?severity=critical`);
      await page.locator('#table-findings tbody a').first().click();
      await page.waitForURL(/\/finding\?/);
      expect(await page.locator('#table-trials tbody tr').count()).toBeGreaterThan(0);
      expect(await page.locator('section.trial').count()).toBeGreaterThan(0);
      await expect(page.locator('section.trial h4').first().textContent()).resolves.toBe('Candidate');
    });
  });

  it('follows a failing category of a framework to the findings behind it', async () => {
    await withPage(async (page) => {
      await page.goto(viewer.url);
      await page.locator('#table-projects a.light-fail').first().click();
      await page.waitForURL(/\/framework\?/);
      const failing = page.locator('#table-categories a.state-failing').first();
      const tag = (await failing.getAttribute('href')) ?? '';
      await failing.click();
      await page.waitForURL(/\/findings\?.*state=failing/);
      expect(new URL(page.url()).searchParams.get('tag')).toBe(
        new URL(tag, viewer.url).searchParams.get('tag'),
      );
      expect(await findingsCount(page)).toBeGreaterThan(0);
    });
  });

  it('downloads the findings as CSV', async () => {
    await withPage(
      async (page) => {
        await page.goto(`${viewer.url}findings?severity=critical`);
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.locator('#table-findings p.download a').click(),
        ]);
        expect(download.suggestedFilename()).toBe('findings.csv');
        const file = await download.path();
        const text = await readFile(file, 'utf8');
        const rows = pythonCsv(text);
        expect(rows[0]?.slice(0, 3)).toEqual(['severity', 'best_score', 'project_key']);
        expect(rows.length - 1).toBe(await findingsCount(page));
      },
      { acceptDownloads: true },
    );
  });

  const pageKinds = (): string[] => [
    '',
    'findings',
    'findings?q=%3Cscript',
    hostileFinding.slice(1),
    'framework?project=payments-agent&framework=owasp_llm',
    'compare',
    'query?name=top_open_findings',
    // The reports the viewer links to are the static reports, checked by test/report/ over this data's kind.
  ];

  it('hostile data: no dialog, no script, no request outside the server on any page', async () => {
    await withPage(async (page) => {
      const dialogs: string[] = [];
      const errors: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      page.on('pageerror', (error) => errors.push(error.message));
      for (const target of pageKinds()) {
        const response = await page.goto(`${viewer.url}${target}`);
        expect(response?.status(), target).toBe(200);
        const facts = await page.evaluate<{ scripts: number; handlers: number; jsLinks: number }>(`(() => ({
          scripts: document.scripts.length,
          handlers: [...document.querySelectorAll('*')].filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).length,
          jsLinks: [...document.querySelectorAll('a[href]')].filter((a) => a.href.startsWith('javascript:')).length,
        }))()`);
        expect(facts, target).toEqual({ scripts: 0, handlers: 0, jsLinks: 0 });
      }
      expect(dialogs).toEqual([]);
      expect(errors).toEqual([]);
    });
  }, 60_000);

  it('every page kind passes axe-core (WCAG 2 A/AA) and html-validate', async () => {
    // One of each kind (the search variant of the findings list is the same page).
    for (const target of pageKinds().filter((kind) => !kind.includes('q='))) {
      const html = await (await fetch(`${viewer.url}${target}`)).text();
      expect(await htmlErrors(html), target).toEqual([]);
      expect(await axeViolations(browser, html), target).toEqual([]);
    }
  }, 90_000);

  it('refuses a POST and a foreign Host header sent through the browser context', async () => {
    const context = await browser.newContext();
    try {
      const post = await context.request.post(`${viewer.url}query`, { data: 'sql=select 1' });
      expect(post.status()).toBe(405);
      expect(post.headers().allow).toBe('GET, HEAD');
      const rebound = await context.request.get(`${viewer.url}findings`, {
        headers: { host: 'attacker.example' },
      });
      expect(rebound.status()).toBe(421);
      expect(await rebound.text()).not.toContain('<table');
    } finally {
      await context.close();
    }
  });

  it('screenshots the findings page (the README picture)', async () => {
    await withPage(async (page) => {
      await page.goto(`${viewer.url}findings?severity=critical`);
      await page.screenshot({ path: path.join(ARTIFACTS, 'viewer-findings.png'), fullPage: false });
    });
  });
});
