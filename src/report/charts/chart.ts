/**
 * What every chart builder produces, and the look they share. Builders are pure: model data in,
 * a Vega-Lite spec out, with the data embedded inline (`data.values`), never a URL.
 */
import type { Config, TopLevelSpec } from 'vega-lite';
import { formatCount } from '../../number-format.js';
import { SEVERITY_LEVELS, type SeverityLevel } from '../model.js';

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
    // 0: no limit. A cut label ("Weekly jailbre…" three times) makes different items read alike.
    labelLimit: 0,
  },
  legend: {
    labelColor: '#3d4852',
    labelLimit: 0,
    titleColor: '#3d4852',
    labelFontSize: 11,
    titleFontSize: 11,
    orient: 'bottom',
  },
  bar: { color: ACCENT },
  line: { color: ACCENT },
  point: { color: ACCENT },
};

/**
 * For grid charts (heatmaps): a cell with no value shows a light grey plot background, so an unknown
 * value never reads as white, i.e. as 0.
 */
export const GRID_CONFIG: Config = { ...CHART_CONFIG, view: { stroke: null, fill: '#f1f3f5' } };

/** The fields every spec starts with. */
export function baseSpec(config: Config = CHART_CONFIG): { $schema: string; config: Config; width: number } {
  return { $schema: VEGA_LITE_SCHEMA, config, width: CHART_WIDTH };
}

/**
 * The severity colour scale, worst first: every severity level by default, or the levels a chart
 * shows (its legend then lists only those).
 */
export function severityScale(levels: readonly SeverityLevel[] = SEVERITY_LEVELS): {
  domain: string[];
  range: string[];
} {
  return { domain: [...levels], range: levels.map((level) => SEVERITY_COLORS[level]) };
}

/** The row axis of a horizontal bar chart: one row per label, in `sort` order (null: data order). */
export function rowAxis(field: string, sort: string[] | null = null) {
  return { field, type: 'nominal' as const, sort, axis: { title: null } };
}

/** A 0–1 value axis (ASR, rates, coverage) labelled in percent. */
export function fractionAxis(field: string, title: string) {
  return { field, type: 'quantitative' as const, scale: { domain: [0, 1] }, axis: { title, format: '.0%' } };
}

/** A risk score axis, 0–10. */
export function riskScoreAxis(field: string) {
  return {
    field,
    type: 'quantitative' as const,
    scale: { domain: [0, 10] },
    axis: { title: 'Risk score (0–10)' },
  };
}

/** The count axis of stacked bars; segments stack in the order of the `order` field (STACK_ORDER). */
export function stackedCountAxis(field: string, title: string) {
  return { field, type: 'quantitative' as const, stack: 'zero' as const, axis: { title, tickMinStep: 1 } };
}

/** Stacks bar segments by each datum's `order` (its position in our level list), not alphabetically. */
export const STACK_ORDER = { field: 'order', type: 'quantitative' as const };

/** A UTC time axis of calendar dates, as every trend chart shows them. */
export function dateAxis(field: string, times: readonly (string | null)[] = []) {
  const ticks = dayTicks(times);
  return {
    field,
    type: 'temporal' as const,
    scale: { type: 'utc' as const },
    axis: {
      title: null,
      format: '%Y-%m-%d',
      labelAngle: 0,
      // Explicit ticks at most one per calendar day: automatic ticks over a range of hours print
      // the same date several times.
      ...(ticks.length > 0 ? { values: ticks } : { tickCount: 6 }),
    },
  };
}

/**
 * One tick per UTC day the data falls on, at that day's earliest point (inside the data's domain),
 * at most `max`, evenly picked; empty without data.
 */
export function dayTicks(times: readonly (string | null)[], max = 6): number[] {
  const earliest = new Map<number, number>();
  for (const time of times) {
    const ms = time === null ? NaN : Date.parse(time);
    if (!Number.isFinite(ms)) continue;
    const day = Math.floor(ms / 86_400_000);
    earliest.set(day, Math.min(earliest.get(day) ?? ms, ms));
  }
  const days = [...earliest.values()].sort((a, b) => a - b);
  if (days.length <= max) return days;
  const step = (days.length - 1) / (max - 1);
  return [...new Set(Array.from({ length: max }, (_, i) => days[Math.round(i * step)] ?? 0))];
}

/**
 * The sample size an ASR stands on, as drawn on the chart beside the rate: "n=26", or "n unknown".
 * A rate without its sample reads the same for 1 of 2 as for 500 of 1,000.
 */
export function sampleText(n: number | null | undefined): string {
  return n === null || n === undefined ? 'n unknown' : `n=${formatCount(n)}`;
}

/** A row label with its sample size: "credential_leak · n=26" (axis labels are never cut). */
export function withSample(label: string, n: number | null | undefined): string {
  return `${label} · ${sampleText(n)}`;
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
