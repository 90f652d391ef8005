/**
 * Regenerates docs/viewer-findings.png, the README's picture of the viewer's findings page: runs the
 * demo into a temporary directory, serves its warehouse with `startViewer`, opens the findings page
 * filtered to critical and high findings in Debian's Chromium at a fixed viewport and device scale,
 * and screenshots it (no script runs: the page has none).
 *
 *   npx tsx bench/viewer-screenshot.ts [out.png]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { runDemo } from '../src/demo/run-demo.js';
import { CHROMIUM_ARGS, resolveChromiumPath } from '../src/report/pdf.js';
import { startViewer } from '../src/viewer/server.js';

const out = path.resolve(process.argv[2] ?? 'docs/viewer-findings.png');
const dir = await mkdtemp(path.join(tmpdir(), 'airt-viewer-screenshot-'));
try {
  const result = await runDemo(
    { out: path.join(dir, 'demo') },
    { stdout: () => {}, stderr: () => {}, env: process.env },
  );
  const database = result.runs.at(-1)?.summary.paths.database;
  if (database === undefined) throw new Error('the demo wrote no warehouse');
  const viewer = await startViewer({ db: path.resolve(path.join(dir, 'demo'), database) });
  const browser = await chromium.launch({
    executablePath: resolveChromiumPath(process.env),
    args: [...CHROMIUM_ARGS],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 }, deviceScaleFactor: 1 });
    await page.goto(`${viewer.url}findings?severity=critical`, { waitUntil: 'load' });
    await page.screenshot({ path: out, animations: 'disabled', fullPage: false });
  } finally {
    await browser.close();
    await viewer.close();
  }
  console.log(`wrote ${out}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
