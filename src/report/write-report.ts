/**
 * Writing a rendered report to disk: `report.md` + `charts/` for Markdown, one file for HTML and PDF.
 * Each file is written to a temporary name and renamed, so a reader never sees half a report.
 */
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { reportDataAsOf, type ReportModel } from './model.js';
import { renderReportJson } from './json-report.js';
import { printPdf, resolveChromiumPath } from './pdf.js';
import { chartPath, renderHtml, renderMarkdown, type RenderOptions } from './render.js';

export const REPORT_FORMATS = ['md', 'html', 'pdf', 'json'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export interface WriteReportOptions extends RenderOptions {
  format: ReportFormat;
  /** A file, or a directory (existing, or ending in a slash) to hold `report.<ext>`. */
  out: string;
  /** Chromium for PDF output (see pdf.ts resolveChromiumPath). */
  chromiumPath?: string | undefined;
  signal?: AbortSignal | undefined;
}

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

/** Writes `content` to `file` via a temporary file and a rename. */
export async function writeFileAtomic(file: string, content: string | Uint8Array): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.tmp-${process.pid}`;
  const handle = await open(temporary, 'w');
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Renders a model in the requested format and writes it (with chart files for Markdown). */
export async function writeReport(model: ReportModel, options: WriteReportOptions): Promise<WrittenReport> {
  const report = await reportFile(options.out, options.format);
  if (options.format === 'json') {
    await writeFileAtomic(report, renderReportJson(model));
    return { report, files: [report], redactedCount: 0 };
  }
  if (options.format === 'md') {
    const rendered = await renderMarkdown(model, options);
    const directory = path.dirname(report);
    const files = [report];
    for (const chart of rendered.charts) {
      const outputs: [string, string | Uint8Array][] = [
        [chartPath(chart.name, 'vl.json'), chart.specJson],
        [chartPath(chart.name, 'svg'), chart.svg],
      ];
      if (chart.png) outputs.push([chartPath(chart.name, 'png'), chart.png]);
      for (const [relative, content] of outputs) {
        const file = path.join(directory, relative);
        await writeFileAtomic(file, content);
        files.push(file);
      }
    }
    await writeFileAtomic(report, rendered.markdown);
    return { report, files, redactedCount: rendered.redactedCount };
  }
  const rendered = await renderHtml(model, options);
  if (options.format === 'html') {
    await writeFileAtomic(report, rendered.html);
  } else {
    const pdf = await printPdf(rendered.html, {
      executablePath: options.chromiumPath ?? resolveChromiumPath({}),
      signal: options.signal,
      documentDate: reportDataAsOf(model),
    });
    await writeFileAtomic(report, pdf);
  }
  return { report, files: [report], redactedCount: rendered.redactedCount };
}
