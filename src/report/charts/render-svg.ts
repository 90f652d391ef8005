/**
 * Vega-Lite → Vega → SVG in Node, without a browser: compile the spec, run a headless View
 * (`renderer: 'none'`) and serialize its scenegraph. Rendering is deterministic (no ids, no clock);
 * text is escaped by vega's SVG serializer. The View gets a loader that refuses every URL, so a spec
 * can never fetch data, images or fonts.
 */
import { Resvg } from '@resvg/resvg-js';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

const refuse = (uri: string): Promise<never> =>
  Promise.reject(new Error(`Charts embed their data; refusing to load ${JSON.stringify(uri)}`));

/** A vega loader that never loads anything. */
const REFUSING_LOADER: vega.Loader = {
  load: refuse,
  sanitize: refuse,
  http: refuse,
  file: refuse,
};

export interface RenderedChart {
  svg: string;
  /** Vega-Lite compile warnings (a spec bug if any). */
  warnings: string[];
}

/**
 * Vega numbers clip paths and gradients from process-wide counters (`clip7`, `gradient_2`), so the
 * same chart would get different ids on each render and two charts inlined in one page could clash.
 * Renames every id, in order of appearance, to `<prefix>-<n>` and rewrites its `url(#…)` references.
 */
export function normalizeSvgIds(svg: string, prefix: string): string {
  const ids = [...new Set(Array.from(svg.matchAll(/\sid="([^"]+)"/gu), (match) => match[1] ?? ''))];
  let result = svg;
  ids.forEach((id, index) => {
    const renamed = `${prefix}-${index + 1}`;
    result = result.replaceAll(`id="${id}"`, `id="${renamed}"`).replaceAll(`url(#${id})`, `url(#${renamed})`);
  });
  return result;
}

/**
 * Compiles and renders one Vega-Lite spec to an SVG document string; `idPrefix` (file-safe, unique per
 * page) makes the SVG's internal ids stable and distinct from other charts' ids.
 */
export async function renderChartSvg(spec: TopLevelSpec, idPrefix = 'chart'): Promise<RenderedChart> {
  const warnings: string[] = [];
  const logger = {
    level(): number {
      return 0;
    },
    error(...args: readonly unknown[]) {
      warnings.push(args.map(String).join(' '));
      return this;
    },
    warn(...args: readonly unknown[]) {
      warnings.push(args.map(String).join(' '));
      return this;
    },
    info() {
      return this;
    },
    debug() {
      return this;
    },
  };
  const vegaSpec = compile(spec, { logger }).spec;
  const view = new vega.View(vega.parse(vegaSpec), {
    renderer: 'none',
    loader: REFUSING_LOADER,
    logLevel: vega.Warn,
    logger,
  });
  try {
    const svg = normalizeSvgIds(await view.toSVG(), idPrefix);
    return { svg, warnings };
  } finally {
    view.finalize();
  }
}

/** Rasterizes an SVG (from renderChartSvg) to PNG at 2× for crisp slides and documents. */
export function renderChartPng(svg: string): Uint8Array {
  const resvg = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: 2 },
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' },
    background: '#ffffff',
  });
  return resvg.render().asPng();
}
