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
  return files;
}

export function goldenPath(name: string): string {
  return path.join(GOLDEN_DIR, name);
}
