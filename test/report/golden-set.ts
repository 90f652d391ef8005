/**
 * The golden files: each fixture model rendered to Markdown and HTML with default options. Shared by
 * the golden test (compares, never writes) and update-golden.ts (writes on demand).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderHtml, renderMarkdown } from '../../src/report/render.js';
import { complianceFixture, executiveFixture, portfolioFixture } from './fixture-model.js';

export const GOLDEN_DIR = fileURLToPath(new URL('../golden/report/', import.meta.url));

/** Golden file name (relative to GOLDEN_DIR) → expected content. */
export async function renderGoldenSet(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const model of [executiveFixture(), complianceFixture(), portfolioFixture()]) {
    files.set(`${model.kind}.md`, (await renderMarkdown(model)).markdown);
    files.set(`${model.kind}.html`, (await renderHtml(model)).html);
  }
  // The executive report's one-page summary on its own, so a change to it reads as its own diff.
  files.set('executive-brief.md', briefOf(files.get('executive.md') ?? '', '## At a glance', '\n## '));
  files.set(
    'executive-brief.html',
    briefOf(files.get('executive.html') ?? '', '<section class="report-section first brief"', '</section>'),
  );
  return files;
}

/** The text from `start` up to (for HTML: including) `end`; empty when the summary is missing. */
export function briefOf(report: string, start: string, end: string): string {
  const from = report.indexOf(start);
  if (from < 0) return '';
  const to = report.indexOf(end, from + start.length);
  return report.slice(from, end === '</section>' ? to + end.length : to).trimEnd() + '\n';
}

export function goldenPath(name: string): string {
  return path.join(GOLDEN_DIR, name);
}
