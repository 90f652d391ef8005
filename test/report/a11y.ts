/**
 * Accessibility and validity checks shared by the tests: axe-core (WCAG 2 A and AA rules) run inside
 * Chromium on a report's HTML, and html-validate's recommended rules. Both return what they found,
 * one line per problem, so a failing test names the rule and the element.
 */
import { createRequire } from 'node:module';
import { HtmlValidate } from 'html-validate';
import type { Browser } from 'playwright-core';

const require = createRequire(import.meta.url);
const AXE_PATH = require.resolve('axe-core/axe.min.js');

interface AxeResult {
  violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[];
}

/** axe-core's WCAG 2 A/AA violations as "rule: selector" lines (one per element). */
export async function axeViolations(browser: Browser, html: string): Promise<string[]> {
  // The report's Content-Security-Policy forbids every script; the test injects axe past it.
  const context = await browser.newContext({ bypassCSP: true, offline: true });
  try {
    await context.route('**/*', (route) => route.abort());
    const page = await context.newPage();
    await page.setContent(html, { waitUntil: 'load' });
    await page.addScriptTag({ path: AXE_PATH });
    const result = await page.evaluate<AxeResult>(
      `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] }, resultTypes: ['violations'] })`,
    );
    return result.violations.flatMap((violation) =>
      violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')}`),
    );
  } finally {
    await context.close();
  }
}

const validator = new HtmlValidate({ extends: ['html-validate:recommended'] });

/** html-validate's errors (recommended rules) as "rule line:column message" lines. */
export async function htmlErrors(html: string): Promise<string[]> {
  const report = await validator.validateString(html);
  return report.results.flatMap((result) =>
    result.messages
      .filter((message) => message.severity === 2)
      .map((message) => `${message.ruleId} ${message.line}:${message.column} ${message.message}`),
  );
}
