import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
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

  it('never draws unknown values as zero: the excluded assessment has no heatmap cell', () => {
    const chart = reportChartSpecs(complianceFixture()).find(
      (entry) => entry.name === 'compliance-heatmap-1-owasp-llm',
    );
    const values = (chart?.spec as { data: { values: { assessment: string; asr: number }[] } }).data.values;
    expect(values.some((value) => value.assessment.startsWith('Legacy run'))).toBe(false);
    expect(values.every((value) => typeof value.asr === 'number')).toBe(true);
  });
});

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
