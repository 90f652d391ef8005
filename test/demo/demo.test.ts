import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { runDemo } from '../../src/demo/run-demo.js';
import { verifyBundle } from '../../src/pipeline/verify-bundle.js';
import { generateReport } from '../../src/report/generate.js';
import { CHROMIUM_ARGS, resolveChromiumPath } from '../../src/report/pdf.js';
import { axeViolations, htmlErrors } from '../report/a11y.js';

/** Pages of a PDF by poppler's pdfinfo. */
function pdfPages(file: string): number {
  const info = execFileSync('pdfinfo', [file], { encoding: 'utf8' });
  return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1] ?? NaN);
}

const root = mkdtempSync(path.join(tmpdir(), 'airt-demo-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('airt-report demo', () => {
  it('runs the pipeline twice against the simulator and leaves verifiable outputs', async () => {
    // The browser for the accessibility checks starts while the demo runs (it is closed however the
    // test ends; a failed launch fails the test where the browser is awaited).
    const { chromium } = await import('playwright-core');
    const browserLaunch = chromium.launch({
      executablePath: resolveChromiumPath(process.env),
      args: [...CHROMIUM_ARGS],
    });
    browserLaunch.catch(() => undefined);
    try {
      await demoAndChecks(browserLaunch);
    } finally {
      await browserLaunch.then((b) => b.close()).catch(() => undefined);
    }
  }, 180_000);

  it('refuses to clear a non-empty directory it did not create', async () => {
    const foreign = path.join(root, 'foreign');
    mkdirSync(foreign, { recursive: true });
    writeFileSync(path.join(foreign, 'keep.txt'), 'mine');
    await expect(runDemo({ out: foreign }, { stdout: () => {}, stderr: () => {}, env: {} })).rejects.toThrow(
      /not empty and was not made by the demo/,
    );
    expect(existsSync(path.join(foreign, 'keep.txt'))).toBe(true);
  });
});

/** The first test's body: runs the demo and checks what it wrote (`browserLaunch`: for axe-core). */
async function demoAndChecks(browserLaunch: Promise<Browser>): Promise<void> {
  const out: string[] = [];
  const err: string[] = [];
  const result = await runDemo(
    { out: path.join(root, 'demo') },
    { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), env: {} },
  );
  expect(result.runs).toHaveLength(2);
  const [first, second] = result.runs;
  expect(first?.summary.snapshot.status).toBe('complete');
  expect(path.basename(second?.summary.snapshot.since ?? '')).toBe(first?.summary.snapshot.id);
  expect(second?.summary.previous_snapshot_id).toBe(first?.summary.snapshot.id);

  const written = second?.summary.outputs.map((o) => o.path) ?? [];
  const bundle = written.find((p) => p.endsWith('.zip'));
  expect(bundle).toBeDefined();
  expect((await verifyBundle(bundle ?? '')).ok).toBe(true);
  expect(written.some((p) => p.endsWith('diff.md'))).toBe(true);
  expect(written.some((p) => p.endsWith('gate-report.md'))).toBe(true);

  const executive = written.find((p) => p.endsWith('report.html') && p.includes('executive'));
  expect(executive).toBeDefined();
  expect(readFileSync(executive ?? '', 'utf8')).toContain('Since last snapshot');
  // The executive PDF opens with its one-page summary and stays short (issue 16: 25 pages
  // before); the long lists print beside it as an appendix, so nothing is lost.
  const pdf = written.find((p) => p.endsWith('report.pdf') && p.includes('executive'));
  expect(pdf).toBeDefined();
  expect(pdfPages(pdf ?? '')).toBeLessThanOrEqual(10);
  const appendix = written.find((p) => p.endsWith('report-appendix.pdf'));
  expect(appendix).toBeDefined();
  expect(execFileSync('pdftotext', [appendix ?? '', '-'], { encoding: 'utf8' })).toContain('Evaluation jobs');
  // Tables of changes list what changed and count the rest.
  const diff = readFileSync(written.find((p) => p.endsWith('diff.md')) ?? '', 'utf8');
  expect(diff).toMatch(/\d+ other metrics? did not change\./);
  expect(diff).not.toMatch(/\| evaluation pass rate: [^|]+\| ([^|]+) \| \1 \| \+?0\.0 pp \|/);
  // Every HTML report kind over the demo data: no axe-core WCAG 2 A/AA violation (issue 16: 61
  // contrast failures before), no html-validate error.
  const htmlReports = written.filter((p) => p.endsWith('.html'));
  expect(htmlReports.length).toBeGreaterThanOrEqual(3);
  // Run #1's reports re-render byte for byte from the database both runs loaded: the triage between
  // the runs (which run #2's snapshot carries) does not reach back into run #1's figures.
  const firstId = first?.summary.snapshot.id ?? '';
  const firstReports = (first?.summary.outputs.map((o) => o.path) ?? []).filter(
    (p) => p.endsWith(`${path.sep}report.md`) && p.includes(`${path.sep}executive-`),
  );
  expect(firstReports.length).toBeGreaterThanOrEqual(2);
  mkdirSync(path.join(root, 'again'));
  // These checks only read what the demo wrote: every report's axe run (a page of its own) and
  // html-validate run, and the re-rendering, run side by side rather than one after another.
  const browser = await browserLaunch;
  const rerendered = async (): Promise<void> => {
    for (const file of firstReports) {
      const project = /executive-([^/\\]+)/u.exec(file)?.[1] ?? '';
      const again = path.join(root, 'again', project);
      await generateReport({
        db: path.join(result.out, 'airt.duckdb'),
        kind: 'executive',
        project,
        snapshot: firstId,
        format: 'md',
        out: again,
      });
      expect(readFileSync(path.join(again, 'report.md'), 'utf8'), file).toBe(readFileSync(file, 'utf8'));
    }
  };
  await Promise.all([
    ...htmlReports.map(async (file) => {
      const html = readFileSync(file, 'utf8');
      const [violations, errors] = await Promise.all([axeViolations(browser, html), htmlErrors(html)]);
      expect(violations, file).toEqual([]);
      expect(errors, file).toEqual([]);
    }),
    rerendered(),
  ]);
  // The operator's triage edit between the runs reaches the journal.
  const journal = readFileSync(path.join(result.out, 'triage', 'journal.jsonl'), 'utf8')
    .trim()
    .split('\n');
  expect(journal).toHaveLength(2);
  expect(journal.map((line) => (JSON.parse(line) as { outcome: string }).outcome)).toEqual([
    'sending',
    'applied',
  ]);
  // The paths a user opens go to stdout; progress to stderr.
  expect(out.join('')).toContain('airt.duckdb');
  expect(err.join('')).toContain('run #2');
}
