/**
 * The page shell every viewer page shares: the reports' stylesheet (templates/html/partials/styles.hbs,
 * read once; it holds no template expression), a navigation bar and the same Content-Security-Policy
 * as the reports, which the server also sends as a header. Forms may submit to this server only
 * (`form-action 'self'`), the one difference from a report, which has no form.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { escapeHtml } from '../report/escape.js';
import { BUILTIN_TEMPLATES_DIR } from '../report/templates.js';
import { truncateCodePoints } from '../report/untrusted-text.js';
import { VERSION } from '../version.js';
import { Html, markup } from './html.js';

/** No script, no request but to this server's own pages; styles inline as in the reports. */
export const VIEWER_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src 'none'; base-uri 'none'; " +
  "form-action 'self'; frame-ancestors 'none'";

let styles: Promise<string> | undefined;

/** The reports' stylesheet and the viewer's additions (templates/viewer/styles.html), read once. */
function stylesheet(): Promise<string> {
  styles ??= Promise.all([
    readFile(path.join(BUILTIN_TEMPLATES_DIR, 'html', 'partials', 'styles.hbs'), 'utf8'),
    readFile(path.join(BUILTIN_TEMPLATES_DIR, 'viewer', 'styles.html'), 'utf8'),
  ]).then((parts) => parts.join(''));
  return styles;
}

const NAV: readonly (readonly [string, string])[] = [
  ['/', 'Projects'],
  ['/findings', 'Findings'],
  ['/compare', 'Compare snapshots'],
  ['/query', 'Query'],
];

/**
 * The title shortened so its escaped form stays within 55 characters: with the suffix, under the 70
 * that search results and html-validate's long-title rule allow (entities count as written).
 */
function shortTitle(title: string): string {
  let max = 55;
  let short = truncateCodePoints(title, max);
  while (escapeHtml(short).length > 55 && max > 1) {
    max -= 1;
    short = truncateCodePoints(title, max);
  }
  return short;
}

/** A whole page: title (already plain text) and body. */
export async function layout(title: string, body: Html): Promise<string> {
  const css = await stylesheet();
  return markup`<!DOCTYPE html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="${VIEWER_CSP}">
        <meta name="referrer" content="no-referrer">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="airt-report ${VERSION}">
        <title>${shortTitle(title)} (airt-report)</title>
        ${new Html(css)}
      </head>
      <body>
        <nav class="viewer" aria-label="Viewer">
          ${NAV.map(([target, label]) => markup`<a href="${target}">${label}</a>`)}
        </nav>
        <main>
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>
`.value.replace(/[ \t]+$/gmu, '');
}
