/**
 * Regenerates docs/executive-summary.png, the README's picture of the executive report's one-page
 * summary: runs the demo into a temporary directory, opens the second run's executive HTML in
 * Debian's Chromium at a fixed viewport and device scale, and screenshots the header and the
 * "At a glance" section. Same demo seed and Chromium build → same picture (the demo's snapshot ids
 * and dates come from the run, so they differ between runs).
 *
 *   npx tsx bench/readme-screenshot.ts [out.png]
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { runDemo } from '../src/demo/run-demo.js';
import { CHROMIUM_ARGS, resolveChromiumPath } from '../src/report/pdf.js';

const out = path.resolve(process.argv[2] ?? 'docs/executive-summary.png');
const dir = await mkdtemp(path.join(tmpdir(), 'airt-screenshot-'));
try {
  const result = await runDemo(
    { out: path.join(dir, 'demo') },
    { stdout: () => {}, stderr: () => {}, env: process.env },
  );
  const last = result.runs.at(-1);
  const html = last?.summary.outputs
    .map((output) => output.path)
    .find(
      (file) => file.endsWith('report.html') && path.basename(path.dirname(file)).startsWith('executive-'),
    );
  if (html === undefined) throw new Error(`no executive HTML report in ${(await readdir(dir)).join(', ')}`);
  const browser = await chromium.launch({
    executablePath: resolveChromiumPath(process.env),
    args: [...CHROMIUM_ARGS],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1000, height: 1200 }, deviceScaleFactor: 1 });
    await page.route('**/*', (route) => route.abort());
    await page.setContent(await readFile(html, 'utf8'), { waitUntil: 'load' });
    const header = await page.locator('header.report-header').boundingBox();
    const brief = await page.locator('#at-a-glance').boundingBox();
    if (header === null || brief === null) throw new Error('the report has no summary section');
    await page.screenshot({
      path: out,
      animations: 'disabled',
      clip: { x: 0, y: 0, width: 1000, height: Math.ceil(brief.y + brief.height + 16) },
    });
  } finally {
    await browser.close();
  }
  console.log(`wrote ${out}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
