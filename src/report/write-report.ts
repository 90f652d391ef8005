/**
 * Writing a rendered report to disk: `report.md` + `charts/` for Markdown, one file for HTML and PDF.
 * Each file goes through the shared output-file helper (temp, fsync, rename; FIFOs, devices, links and
 * system paths refused), so a reader never sees half a report. The Markdown directory and its charts/
 * are created (one level each); a missing parent is refused. The target is checked before rendering,
 * so a bad --out fails before a PDF is printed.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import {
  checkOutputDirectory,
  checkOutputFile,
  ensureOutputDirectory,
  writeOutputFile,
} from '../output-file.js';
import { reportDataAsOf, type ReportModel } from './model.js';
import { renderReportJson } from './json-report.js';
import { printPdf, resolveChromiumPath } from './pdf.js';
import { chartPath, renderHtml, renderMarkdown, type RenderOptions } from './render.js';

/** The formats writeReport writes. */
export const REPORT_FORMATS = ['md', 'html', 'pdf', 'json'] as const;
/** One of REPORT_FORMATS. */
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** How writeReport writes: format, target file or directory, Chromium for PDF, abort signal. */
export interface WriteReportOptions extends RenderOptions {
  format: ReportFormat;
  /** A file, or a directory (existing, or ending in a slash) to hold `report.<ext>`. */
  out: string;
  /** Chromium for PDF output (see pdf.ts resolveChromiumPath). */
  chromiumPath?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** The files writeReport wrote: the report first, then its charts. */
export interface WrittenReport {
  /** The report file. */
  report: string;
  /** Every file written, the report first, then charts in report order. */
  files: string[];
  redactedCount: number;
}

async function isDirectory(target: string): Promise<boolean> {
  try {
    return (await stat(target)).isDirectory();
  } catch {
    return false;
  }
}

/** Where the report file goes for `out`. */
async function reportFile(out: string, format: ReportFormat): Promise<string> {
  const extension = `.${format}`;
  if (/[\\/]$/u.test(out) || (await isDirectory(out))) return path.join(out, `report${extension}`);
  if (format === 'md' && path.extname(out) !== '.md') return path.join(out, 'report.md');
  return out;
}

/** `report.pdf` → `report-appendix.pdf`, beside it. */
export function appendixFile(report: string): string {
  return path.join(path.dirname(report), `${path.basename(report, '.pdf')}-appendix.pdf`);
}

/** Renders a model in the requested format and writes it (with chart files for Markdown). */
export async function writeReport(model: ReportModel, options: WriteReportOptions): Promise<WrittenReport> {
  const report = await reportFile(options.out, options.format);
  const write = (file: string, content: string | Uint8Array): Promise<void> =>
    writeOutputFile(file, content, { signal: options.signal });
  if (options.format === 'json') {
    await write(report, renderReportJson(model));
    return { report, files: [report], redactedCount: 0 };
  }
  if (options.format === 'md') {
    const directory = path.dirname(report);
    await checkOutputDirectory(directory);
    const rendered = await renderMarkdown(model, options);
    await ensureOutputDirectory(directory);
    if (rendered.charts.length > 0)
      await ensureOutputDirectory(path.dirname(path.join(directory, chartPath('x', 'svg'))));
    const files = [report];
    for (const chart of rendered.charts) {
      const outputs: [string, string | Uint8Array][] = [
        [chartPath(chart.name, 'vl.json'), chart.specJson],
        [chartPath(chart.name, 'svg'), chart.svg],
      ];
      if (chart.png) outputs.push([chartPath(chart.name, 'png'), chart.png]);
      for (const [relative, content] of outputs) {
        const file = path.join(directory, relative);
        await write(file, content);
        files.push(file);
      }
    }
    await write(report, rendered.markdown);
    return { report, files, redactedCount: rendered.redactedCount };
  }
  await checkOutputFile(report);
  const rendered = await renderHtml(model, options);
  if (options.format === 'html') {
    await write(report, rendered.html);
  } else {
    const print = (bodyClass?: 'print-appendix') =>
      printPdf(rendered.html, {
        executablePath: options.chromiumPath ?? resolveChromiumPath({}),
        signal: options.signal,
        documentDate: reportDataAsOf(model),
        bodyClass,
      });
    await write(report, await print());
    // The executive PDF stays short; its appendix (every finding, every job) prints beside it.
    if (model.kind === 'executive') {
      const appendix = appendixFile(report);
      await write(appendix, await print('print-appendix'));
      return { report, files: [report, appendix], redactedCount: rendered.redactedCount };
    }
  }
  return { report, files: [report], redactedCount: rendered.redactedCount };
}
