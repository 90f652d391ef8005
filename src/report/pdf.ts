/**
 * PDF output: Debian's Chromium, driven by playwright-core, prints the self-contained HTML report.
 * The browser runs headless with a fresh, throw-away profile, background networking off, and every
 * request the page might make aborted (the HTML needs none: CSS and SVG are inline).
 * Chromium stamps the print time into the PDF; pdf-determinism.ts replaces it with the report's data
 * time, so the same report prints to the same bytes. HTML carrying the unverified-data banner (a forced
 * load's report) prints to a PDF whose /Subject says so (unverified-banner.ts), for `verify BUNDLE.zip`.
 */
import { access, constants, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, BrowserType } from 'playwright-core';
import { CliError, EXIT } from '../errors.js';
import { chromiumLaunchFailureMessage } from './browser-launch-error.js';
import { makePdfDeterministic } from './pdf-determinism.js';
import { reportMarkedUnverified, UNVERIFIED_PDF_SUBJECT } from './unverified-banner.js';

/** Where Debian's `chromium` package installs the browser. */
export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/** Flags for a quiet, offline, reproducible headless Chromium. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
] as const;

/** The browser to use: an explicit path, else AIRT_CHROMIUM from the environment, else Debian's. */
export function resolveChromiumPath(
  env: Readonly<Record<string, string | undefined>>,
  explicit?: string,
): string {
  return explicit ?? (env.AIRT_CHROMIUM || DEFAULT_CHROMIUM_PATH);
}

/** Throws a CliError naming the package to install when no Chromium is at `executablePath`. */
export async function assertChromium(executablePath: string): Promise<void> {
  try {
    await access(executablePath, constants.X_OK);
  } catch {
    throw new CliError(
      `PDF output needs Chromium, but none was found at ${executablePath}. Install Debian's package ` +
        `"chromium" (apt-get install chromium), or set AIRT_CHROMIUM to a Chromium executable.`,
    );
  }
}

export interface PdfOptions {
  executablePath: string;
  /** Aborts printing (e.g. on SIGINT). */
  signal?: AbortSignal | undefined;
  /**
   * The PDF's /CreationDate and /ModDate: when the report's data is from (ISO 8601, see
   * model.ts reportDataAsOf). Null or absent: unknown, and the PDF carries no dates, rather
   * than the print time that would make every run's bytes differ.
   */
  documentDate?: string | null | undefined;
  /**
   * A class set on <body> before printing: the stylesheet prints the executive report's appendix
   * (`print-appendix`) or its one-page summary alone (`print-brief`) by it.
   */
  bodyClass?: 'print-appendix' | 'print-brief' | undefined;
}

/**
 * Starts Chromium; a browser that exists but fails to start (missing libraries, a broken wrapper)
 * becomes one paragraph naming it, instead of playwright's launch log with colour codes.
 */
async function launch(profile: string, options: PdfOptions, chromium: BrowserType): Promise<BrowserContext> {
  try {
    return await chromium.launchPersistentContext(profile, {
      executablePath: options.executablePath,
      headless: true,
      args: [...CHROMIUM_ARGS],
      offline: true,
    });
  } catch (error) {
    options.signal?.throwIfAborted();
    throw new CliError(chromiumLaunchFailureMessage(options.executablePath, error), EXIT.failure, {
      cause: error,
    });
  }
}

/**
 * Prints HTML to an A4 PDF with backgrounds and page numbers in the footer. The same HTML and
 * documentDate give the same bytes (with the same Chromium build, whose version is in /Creator).
 * HTML holding the unverified-data banner gives a PDF marked by its /Subject (UNVERIFIED_PDF_SUBJECT):
 * render.ts inserts the banner after the template ran, so the mark does not depend on the template.
 */
export async function printPdf(html: string, options: PdfOptions): Promise<Uint8Array> {
  await assertChromium(options.executablePath);
  const { chromium } = await import('playwright-core');
  const profile = await mkdtemp(path.join(tmpdir(), 'airt-report-chromium-'));
  try {
    const context = await launch(profile, options, chromium);
    const onAbort = (): void => void context.close();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      options.signal?.throwIfAborted();
      await context.route('**/*', (route) => route.abort());
      const page = context.pages()[0] ?? (await context.newPage());
      await page.setContent(html, { waitUntil: 'load' });
      await page.emulateMedia({ media: 'print' });
      const { bodyClass } = options;
      // A string expression: the project compiles without DOM types; bodyClass is one of ours.
      if (bodyClass !== undefined)
        await page.evaluate(`document.body.classList.add(${JSON.stringify(bodyClass)})`);
      const pdf = await page.pdf({
        format: 'A4',
        printBackground: true,
        preferCSSPageSize: true,
        displayHeaderFooter: true,
        headerTemplate: '<span></span>',
        footerTemplate:
          '<div style="width:100%;font-size:8px;color:#5b6673;text-align:center;font-family:Helvetica,Arial,sans-serif">' +
          'Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>',
      });
      return makePdfDeterministic(new Uint8Array(pdf), {
        documentDate: options.documentDate ?? null,
        subject: reportMarkedUnverified(html, 'html') ? UNVERIFIED_PDF_SUBJECT : null,
      });
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      await context.close();
    }
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
}
