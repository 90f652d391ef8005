import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { STATE_COLORS } from '../../src/report/charts/chart.js';
import { complianceCoverageChart } from '../../src/report/charts/compliance-coverage.js';
import { renderChartPng, renderChartSvg } from '../../src/report/charts/render-svg.js';
import { reportChartSpecs } from '../../src/report/render.js';
import {
  complianceFixture,
  executiveFixture,
  HOSTILE,
  PWNED_FLAG,
  portfolioFixture,
} from './fixture-model.js';

// The package's exports map hides its schema file; read it from node_modules as installed.
const schemaFile = new URL('../../node_modules/vega-lite/build/vega-lite-schema.json', import.meta.url);
const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as object;
const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);

const models = [executiveFixture(), complianceFixture(), portfolioFixture()];
const specs = models.flatMap((model) =>
  reportChartSpecs(model).map((chart) => ({ kind: model.kind, chart })),
);

describe('chart specs', () => {
  it('cover every chart of each report kind', () => {
    expect(specs.map(({ kind, chart }) => `${kind}:${chart.name}`)).toEqual([
      'executive:risk-trend',
      'executive:severity-distribution',
      'executive:asr-by-category',
      'executive:attack-effectiveness',
      'executive:transform-lift',
      'executive:compliance-coverage',
      'executive:risk-by-domain',
      'compliance:compliance-coverage',
      'compliance:compliance-states',
      'compliance:compliance-heatmap-1-owasp-llm',
      'compliance:compliance-heatmap-2-nist',
      'portfolio:portfolio-risk',
      'portfolio:portfolio-findings',
      'portfolio:portfolio-coverage',
      'portfolio:portfolio-asr-trend',
    ]);
  });

  it.each(specs.map(({ kind, chart }) => [`${kind}:${chart.name}`, chart.spec] as const))(
    '%s validates against the vega-lite JSON schema and embeds its data',
    (_name, spec) => {
      const valid = validate(spec);
      expect(validate.errors ?? []).toEqual([]);
      expect(valid).toBe(true);
      const json = JSON.stringify(spec);
      expect(json).not.toMatch(/"url"\s*:/u);
      expect(Array.isArray((spec as { data?: { values?: unknown } }).data?.values)).toBe(true);
    },
  );

  it('never draws unknown values as zero: the excluded assessment is drawn as excluded, with no ASR', () => {
    const chart = reportChartSpecs(complianceFixture()).find(
      (entry) => entry.name === 'compliance-heatmap-1-owasp-llm',
    );
    const values = (chart?.spec as { data: { values: HeatmapValue[] } }).data.values;
    const legacy = values.filter((value) => value.assessment.startsWith('Legacy run'));
    expect(legacy.length).toBeGreaterThan(0);
    expect(legacy.every((v) => v.asr === null && v.state === 'excluded (analytics warning)')).toBe(true);
    expect(values.every((v) => (typeof v.asr === 'number') === (v.state === 'tested'))).toBe(true);
  });

  it('tells an untested heatmap cell from a tested one at 0%: its own fill and a "not tested" legend entry', async () => {
    const chart = reportChartSpecs(complianceFixture()).find(
      (entry) => entry.name === 'compliance-heatmap-1-owasp-llm',
    )!;
    const values = (chart.spec as { data: { values: HeatmapValue[] } }).data.values;
    expect(values.some((v) => v.state === 'tested' && v.asr === 0)).toBe(true);
    expect(values.some((v) => v.state === 'not tested')).toBe(true);
    const { svg } = await renderChartSvg(chart.spec, chart.name);
    // Each drawn cell carries an aria-label naming its data; collect the fills by what the cell is.
    const fillsOf = (label: RegExp) =>
      new Set(
        [...svg.matchAll(/<path aria-label="([^"]*)"[^>]*?fill="([^"]+)"/gu)]
          .filter((m) => label.test(m[1]!))
          .map((m) => m[2]),
      );
    const untested = fillsOf(/state: not tested$/u);
    const testedAtZero = fillsOf(/asr: 0%$/u);
    expect(untested.size).toBe(1);
    expect(testedAtZero.size).toBe(1);
    expect([...untested][0]).not.toBe([...testedAtZero][0]);
    expect(svg).toContain('>not tested<');
    expect(svg).toContain('>ASR (tested)<');
  });
});

describe('compliance coverage colours by state', () => {
  it('draws a framework whose tested categories all fail as red, with the untested rest grey and named', async () => {
    const chart = complianceCoverageChart(
      [
        {
          framework: 'owasp_llm',
          title: 'OWASP LLM Top 10',
          coveragePct: 0.8,
          testedCategories: 8,
          totalCategories: 10,
          failing: 8,
          passing: 0,
          insufficientEvidence: 0,
          untested: 2,
        },
      ],
      (raw) => raw,
    );
    expect(validate(chart.spec)).toBe(true);
    const { svg, warnings } = await renderChartSvg(chart.spec, chart.name);
    expect(warnings).toEqual([]);
    const barFills = new Set(
      [...svg.matchAll(/<path aria-label="([^"]*)"[^>]*?fill="([^"]+)"/gu)]
        .filter((m) => m[1]!.includes('share'))
        .map((m) => `${/state: ([^;"]+)/u.exec(m[1]!)?.[1]}=${m[2]}`),
    );
    expect([...barFills].sort()).toEqual([
      `failing=${STATE_COLORS.failing}`,
      `not tested=${STATE_COLORS.not_tested}`,
    ]);
    expect(svg).toContain('>not tested<');
    expect(svg).toContain('>80%<');
  });
});

interface HeatmapValue {
  assessment: string;
  category: string;
  asr: number | null;
  state: string;
}

describe('SVG rendering', () => {
  it('is deterministic, compiles without warnings and has no ids, scripts or external references', async () => {
    for (const { chart } of specs) {
      const first = await renderChartSvg(chart.spec, chart.name);
      const second = await renderChartSvg(chart.spec, chart.name);
      expect(second.svg).toBe(first.svg);
      expect(first.warnings).toEqual([]);
      expect(first.svg.startsWith('<svg')).toBe(true);
      // Markup only: text nodes (escaped data such as `&lt;a href="…`) are harmless and stripped here.
      const markup = first.svg.replace(/>[^<]*</gu, '><');
      expect(markup).not.toMatch(/<script|<foreignObject|<image|<a[\s>]|\son[a-z]+="|href="/iu);
      for (const [, id] of first.svg.matchAll(/\sid="([^"]+)"/gu))
        expect(id).toMatch(new RegExp(`^${chart.name}-\\d+$`, 'u'));
      for (const [, target] of first.svg.matchAll(/url\(([^)]*)\)/gu))
        expect(target).toMatch(new RegExp(`^#${chart.name}-\\d+$`, 'u'));
    }
  });

  it('escapes hostile labels inside SVG text', async () => {
    const spec = {
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
      data: { values: Object.values(HOSTILE).map((label, index) => ({ label, value: index + 1 })) },
      mark: 'bar',
      encoding: { y: { field: 'label', type: 'nominal' }, x: { field: 'value', type: 'quantitative' } },
    } as const;
    const { svg } = await renderChartSvg(spec);
    expect(svg).toContain('&lt;script&gt;');
    expect(svg).not.toContain('<script');
    expect(svg).not.toContain('<img');
    expect(svg).not.toMatch(/<svg[^>]*onload/iu);
    expect(svg).not.toContain(`window.${PWNED_FLAG}=1"`);
  });

  it('rasterizes to PNG', async () => {
    const { svg } = await renderChartSvg(specs[0]!.chart.spec);
    const png = renderChartPng(svg);
    expect(Buffer.from(png.subarray(0, 8)).toString('hex')).toBe('89504e470d0a1a0a');
  });
});
