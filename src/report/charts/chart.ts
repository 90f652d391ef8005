/**
 * What every chart builder produces, and the look they share. Builders are pure: model data in,
 * a Vega-Lite spec out, with the data embedded inline (`data.values`), never a URL.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { Config } from 'vega-lite';
import { SEVERITY_LEVELS } from '../model.js';

export interface ChartDefinition {
  /** File-safe name: `charts/<name>.vl.json`, `.svg`, `.png`. Ours, never from the data. */
  name: string;
  /** Caption shown with the chart (ours, or a label already shaped by the caller). */
  title: string;
  spec: TopLevelSpec;
}

/** Turns a raw name from the data into a short axis/legend label (sanitized, truncated). */
export type Labeler = (raw: string) => string;

export const VEGA_LITE_SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
/** Plot width in px: fits an A4 page with margins. */
export const CHART_WIDTH = 560;
/** Longest axis/legend label, in code points. */
export const CHART_LABEL_MAX = 40;

export const SEVERITY_COLORS: Record<(typeof SEVERITY_LEVELS)[number], string> = {
  critical: '#8b1a1a',
  high: '#d9480f',
  medium: '#e8a317',
  low: '#3b6fb6',
  info: '#9aa5b1',
};

export const STATE_COLORS = {
  failing: '#c92a2a',
  insufficient_evidence: '#e8a317',
  not_tested: '#adb5bd',
  passing: '#2b8a3e',
} as const;

export const ACCENT = '#1f3a5f';

/** Shared Vega-Lite config: quiet axes, one font stack, white background, no view border. */
export const CHART_CONFIG: Config = {
  background: '#ffffff',
  font: 'Helvetica, Arial, sans-serif',
  padding: 8,
  view: { stroke: null },
  axis: {
    labelColor: '#3d4852',
    titleColor: '#3d4852',
    labelFontSize: 11,
    titleFontSize: 11,
    titleFontWeight: 'normal',
    gridColor: '#e6e9ee',
    domainColor: '#a0a8b3',
    tickColor: '#a0a8b3',
    labelLimit: 260,
  },
  legend: {
    labelColor: '#3d4852',
    titleColor: '#3d4852',
    labelFontSize: 11,
    titleFontSize: 11,
    orient: 'bottom',
  },
  bar: { color: ACCENT },
  line: { color: ACCENT },
  point: { color: ACCENT },
};

/** The fields every spec starts with. */
export function baseSpec(): { $schema: string; config: Config; width: number } {
  return { $schema: VEGA_LITE_SCHEMA, config: CHART_CONFIG, width: CHART_WIDTH };
}

/** The severity scale used by every severity-coloured chart, in worst-first order. */
export function severityScale(): { domain: string[]; range: string[] } {
  return { domain: [...SEVERITY_LEVELS], range: SEVERITY_LEVELS.map((level) => SEVERITY_COLORS[level]) };
}

/**
 * Labels made distinct (a nominal scale would merge equal labels): a repeated label gets " (2)",
 * " (3)", … in order of appearance.
 */
export function distinctLabels(labels: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return labels.map((label) => {
    const count = (seen.get(label) ?? 0) + 1;
    seen.set(label, count);
    return count === 1 ? label : `${label} (${count})`;
  });
}
