/**
 * The reports' charts on a viewer page: the same chart catalog (report/charts/catalog.ts) over the
 * same model, rendered server-side to inline SVG by the same renderer (Vega in Node, no script in the
 * page). `only` picks charts by name.
 */
import { CHART_LABEL_MAX } from '../report/charts/chart.js';
import { chartHasData, chartsForModel } from '../report/charts/catalog.js';
import { renderChartSvg } from '../report/charts/render-svg.js';
import type { ReportModel } from '../report/model.js';
import { TextShaper } from '../report/untrusted-text.js';
import { Html, markup } from './html.js';

const LABELS = new TextShaper({ maxText: CHART_LABEL_MAX, redact: false });

/** The model's charts with data, as `<figure>`s of inline SVG (our renderer's output, not data). */
export async function chartFigures(model: ReportModel, only?: (name: string) => boolean): Promise<Html> {
  const figures: Html[] = [];
  const definitions = chartsForModel(model, (raw) => LABELS.label(raw)).filter(
    (chart) => chartHasData(chart) && (only === undefined || only(chart.name)),
  );
  for (const chart of definitions) {
    const { svg } = await renderChartSvg(chart.spec, `viewer-${chart.name}`);
    figures.push(
      markup`<figure class="chart" id="chart-${chart.name}">
        <figcaption>${chart.title}</figcaption>
        ${new Html(svg)}
      </figure>`,
    );
  }
  return markup`${figures}`;
}
