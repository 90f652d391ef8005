/**
 * Rendering a report model to Markdown (+ chart files) or one self-contained HTML document.
 *
 *   model ─▶ chart specs (charts/catalog) ─▶ SVG (vega, in Node) [+ PNG (resvg)]
 *     │                                            │
 *     └──▶ view (shaped + escaped text) ◀──────────┘ ─▶ Handlebars template ─▶ bytes
 *
 * Pure apart from reading templates: no clock, no randomness, so the same model and options give
 * the same bytes. PDF output prints this HTML with Chromium (pdf.ts).
 */
import { CHART_LABEL_MAX, type ChartDefinition } from './charts/chart.js';
import { chartHasData, chartsForModel } from './charts/catalog.js';
import { renderChartPng, renderChartSvg } from './charts/render-svg.js';
import type { ReportModel } from './model.js';
import { Escaped, outputContext, type TemplateFormat } from './output-context.js';
import { loadTemplate, runTemplate } from './templates.js';
import { DEFAULT_MAX_TEXT, TextShaper } from './untrusted-text.js';
import { figuresSourceStamp, insertFiguresSource } from './figures-source.js';
import { insertUnverifiedBanner, unverifiedBanner } from './unverified-banner.js';
import { buildView } from './view.js';
import { ViewText, type ChartView } from './view-text.js';

/** Rendering choices shared by every format: templates, text length, redaction, PNG charts. */
export interface RenderOptions {
  /** A directory laid out like `templates/` (md/, html/, partials/); default: the built-in templates. */
  templatesDir?: string | undefined;
  /** Longest data text shown, in code points (default 280). */
  maxText?: number | undefined;
  /** Replace excerpts (candidates, responses, goals, notes) by a hash. */
  redact?: boolean | undefined;
  /** Also rasterize charts to PNG (Markdown output only: HTML inlines SVG). */
  png?: boolean | undefined;
}

/** A chart as written beside a Markdown report. */
export interface ChartFiles {
  name: string;
  /** `charts/<name>.vl.json`: the Vega-Lite spec, pretty-printed with a final newline. */
  specJson: string;
  svg: string;
  png: Uint8Array | null;
}

/** A report rendered as Markdown, with its chart files. */
export interface RenderedMarkdown {
  markdown: string;
  charts: ChartFiles[];
  redactedCount: number;
}

/** A report rendered as a self-contained HTML page, with its chart files. */
export interface RenderedHtml {
  html: string;
  /** Names of the charts inlined, in order. */
  charts: string[];
  redactedCount: number;
}

/** Path of a chart file relative to the Markdown report. */
export function chartPath(name: string, extension: 'svg' | 'vl.json' | 'png'): string {
  return `charts/${name}.${extension}`;
}

interface RenderedChart {
  definition: ChartDefinition;
  svg: string;
}

/** The charts a model's report shows (those with data), labels shaped by `shaper`. */
function chartsWithData(model: ReportModel, shaper: TextShaper): ChartDefinition[] {
  return chartsForModel(model, (raw) => shaper.label(raw, CHART_LABEL_MAX)).filter(chartHasData);
}

async function renderCharts(model: ReportModel, shaper: TextShaper): Promise<RenderedChart[]> {
  const rendered: RenderedChart[] = [];
  for (const definition of chartsWithData(model, shaper)) {
    const { svg } = await renderChartSvg(definition.spec, `airt-${definition.name}`);
    rendered.push({ definition, svg });
  }
  return rendered;
}

function shaperFor(options: RenderOptions): TextShaper {
  return new TextShaper({ maxText: options.maxText ?? DEFAULT_MAX_TEXT, redact: options.redact ?? false });
}

async function renderTemplate(
  model: ReportModel,
  format: TemplateFormat,
  options: RenderOptions,
  charts: RenderedChart[],
  shaper: TextShaper,
  withPng: boolean,
): Promise<string> {
  const text = new ViewText(outputContext(format), shaper);
  const chartViews: Record<string, ChartView> = {};
  for (const { definition, svg } of charts) {
    chartViews[definition.name] = {
      name: definition.name,
      title: text.label(definition.title),
      svg: format === 'html' ? new Escaped(svg) : null,
      svgFile: chartPath(definition.name, 'svg'),
      specFile: chartPath(definition.name, 'vl.json'),
      pngFile: withPng ? chartPath(definition.name, 'png') : null,
    };
  }
  const view = buildView(model, text, { charts: chartViews });
  const template = await loadTemplate(model.kind, format, options.templatesDir);
  const document = runTemplate(template, view, `${format}/${model.kind}.hbs`);
  // Added here, not by the template: no template can leave out which snapshots the figures come
  // from, nor that the data failed verification.
  const banner = unverifiedBanner(model.provenance.snapshots, text);
  const warned = banner === null ? document : insertUnverifiedBanner(document, banner, format);
  return insertFiguresSource(warned, figuresSourceStamp(model.provenance.snapshots), format);
}

/** Renders a model to GitHub-flavoured Markdown plus its chart files (spec, SVG, PNG with `png`). */
export async function renderMarkdown(
  model: ReportModel,
  options: RenderOptions = {},
): Promise<RenderedMarkdown> {
  const shaper = shaperFor(options);
  const charts = await renderCharts(model, shaper);
  const markdown = await renderTemplate(model, 'md', options, charts, shaper, options.png ?? false);
  return {
    markdown,
    charts: charts.map(({ definition, svg }) => ({
      name: definition.name,
      specJson: `${JSON.stringify(definition.spec, null, 2)}\n`,
      svg,
      png: options.png ? renderChartPng(svg) : null,
    })),
    redactedCount: shaper.redactedCount,
  };
}

/** Renders a model to one self-contained HTML document (inline CSS and SVG, no script, strict CSP). */
export async function renderHtml(model: ReportModel, options: RenderOptions = {}): Promise<RenderedHtml> {
  const shaper = shaperFor(options);
  const charts = await renderCharts(model, shaper);
  const html = await renderTemplate(model, 'html', options, charts, shaper, false);
  return {
    html,
    charts: charts.map(({ definition }) => definition.name),
    redactedCount: shaper.redactedCount,
  };
}

/** The Vega-Lite specs a model's report emits (with data), for schema checks and tooling. */
export function reportChartSpecs(
  model: ReportModel,
  options: Pick<RenderOptions, 'maxText'> = {},
): ChartDefinition[] {
  return chartsWithData(model, shaperFor(options));
}
