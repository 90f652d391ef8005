import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { marked, type Token, type Tokens } from 'marked';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError } from '../../src/errors.js';
import { renderHtml, renderMarkdown } from '../../src/report/render.js';
import { BUILTIN_TEMPLATES_DIR } from '../../src/report/templates.js';
import { redactionMarker } from '../../src/report/untrusted-text.js';
import {
  complianceFixture,
  executiveFixture,
  HOSTILE,
  LEGACY_ASSESSMENT,
  LONG_TEXT,
  PWNED_FLAG,
  portfolioFixture,
} from './fixture-model.js';
import { goldenPath, renderGoldenSet } from './golden-set.js';

const fixtures = [executiveFixture(), complianceFixture(), portfolioFixture()];

function walk(list: readonly Token[], visit: (token: Token) => void): void {
  for (const token of list) {
    visit(token);
    const nested = token as Token & { tokens?: Token[]; items?: Token[] };
    if (nested.tokens) walk(nested.tokens, visit);
    if (nested.items) walk(nested.items, visit);
    if (token.type === 'table') {
      const table = token as Tokens.Table;
      for (const cell of [...table.header, ...table.rows.flat()]) walk(cell.tokens, visit);
    }
  }
}

describe('golden files', () => {
  it('match the committed expected Markdown and HTML, and rendering twice gives identical bytes', async () => {
    const first = await renderGoldenSet();
    const second = await renderGoldenSet();
    expect(first.size).toBe(8);
    for (const [name, content] of first) {
      expect(second.get(name), `${name} rendered twice`).toBe(content);
      const expected = await readFile(goldenPath(name), 'utf8');
      expect(
        content,
        `${name} differs from test/golden/report; if intended, run npx tsx test/report/update-golden.ts`,
      ).toBe(expected);
    }
  });
});

describe('Markdown output', () => {
  it.each(fixtures.map((model) => [model.kind, model] as const))(
    '%s: every table keeps its column count and no HTML, link or image comes from the data',
    async (_kind, model) => {
      const { markdown, charts } = await renderMarkdown(model);
      const tokens = marked.lexer(markdown, { gfm: true });
      const lines = markdown.split('\n');
      let tables = 0;
      walk(tokens, (token) => {
        if (token.type === 'table') {
          tables += 1;
          const table = token as Tokens.Table;
          for (const row of table.rows) expect(row).toHaveLength(table.header.length);
        }
        // The one HTML is the renderer's own comment naming the figures' snapshot (figures-source.ts).
        if (token.type === 'html')
          expect(token.raw).toMatch(
            /^<!-- airt-report figures from snapshot [A-Za-z0-9._~%-]+, root sha256 (?:[0-9a-f]{64}|unknown) -->\n*$/u,
          );
        if (token.type === 'link')
          // Chart files, or our remediation links to the frameworks' own sites (never data).
          expect((token as Tokens.Link).href).toMatch(
            /^(?:charts\/[a-z0-9-]+\.(?:vl\.json|png)|https:\/\/(?:genai\.owasp\.org|atlas\.mitre\.org|www\.nist\.gov|saif\.google)\/[A-Za-z0-9./-]*)$/u,
          );
        if (token.type === 'image')
          expect((token as Tokens.Image).href).toMatch(/^charts\/[a-z0-9-]+\.svg$/u);
      });
      expect(tables).toBeGreaterThan(2);
      // Every table line in the source (a line starting with "|") belongs to a table the parser saw.
      const tableLines = lines.filter((line) => line.startsWith('|')).length;
      let parsedLines = 0;
      walk(tokens, (token) => {
        if (token.type === 'table') parsedLines += (token as Tokens.Table).rows.length + 2;
      });
      expect(parsedLines).toBe(tableLines);
      const rendered = marked.parse(markdown, { gfm: true }) as string;
      expect(rendered).not.toMatch(
        /<script|<img(?![^>]*src="charts\/)|<svg|<style|href="(?!charts\/|https:\/\/(?:genai\.owasp\.org|atlas\.mitre\.org|www\.nist\.gov|saif\.google)\/)/iu,
      );
      expect(rendered).not.toMatch(
        /<a\s(?![^>]*href="(?:charts\/|https:\/\/(?:genai\.owasp\.org|atlas\.mitre\.org|www\.nist\.gov|saif\.google)\/))/iu,
      );
      expect(charts.length).toBeGreaterThan(0);
      for (const chart of charts) expect(markdown).toContain(`](charts/${chart.name}.svg)`);
    },
  );

  it('writes PNG charts only when asked', async () => {
    const plain = await renderMarkdown(portfolioFixture());
    const withPng = await renderMarkdown(portfolioFixture(), { png: true });
    expect(plain.charts.every((chart) => chart.png === null)).toBe(true);
    expect(withPng.charts.every((chart) => chart.png !== null && chart.png.length > 100)).toBe(true);
    expect(withPng.markdown).toContain('(charts/portfolio-risk.png)');
  });
});

describe('HTML output', () => {
  it.each(fixtures.map((model) => [model.kind, model] as const))(
    '%s: self-contained, strict CSP, no script, no external reference, no data markup',
    async (_kind, model) => {
      const { html, charts } = await renderHtml(model);
      expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
      expect(html).toContain(
        `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:;`,
      );
      expect(html).not.toMatch(
        /<script|<iframe|<object|<embed|<img|<link|<a\s(?!href="https:\/\/(?:genai\.owasp\.org|atlas\.mitre\.org|www\.nist\.gov|saif\.google)\/)|@import/iu,
      );
      // Markup only: attribute values and text nodes hold escaped data (`&lt;img src=x onerror=…`), inert.
      // Our remediation links (to the frameworks' own sites) are dropped first: they are not data.
      const markup = html
        .replace(
          /<a href="https:\/\/(?:genai\.owasp\.org|atlas\.mitre\.org|www\.nist\.gov|saif\.google)\/[A-Za-z0-9./-]*">/gu,
          '<a>',
        )
        .replace(/="[^"]*"/gu, '=""')
        .replace(/>[^<]*</gu, '><');
      expect(markup).not.toMatch(/\s(?:src|href|action|formaction|srcset|on[a-z]+)\s*=/iu);
      expect(markup).not.toContain(PWNED_FLAG);
      expect(html.match(/<svg /gu)?.length).toBe(charts.length);
      expect(html.match(/<style>/gu)?.length).toBe(1);
    },
  );

  it('truncates long text by code points and shows bidi controls visibly', async () => {
    const { html } = await renderHtml(executiveFixture());
    expect(html).toContain(`${'A'.repeat(278)}😀…`);
    expect(html).not.toContain(LONG_TEXT);
    expect(html).not.toContain('\u202E');
    expect(html).toContain('safe[U+202E]txt.exe');
    const { html: short } = await renderHtml(executiveFixture(), { maxText: 20 });
    expect(short).toContain(`${'A'.repeat(19)}…`);
  });

  it('names the excluded analytics-warning slice and shows no zero for it', async () => {
    for (const render of [renderHtml, renderMarkdown]) {
      const output = await render(complianceFixture());
      const text = 'html' in output ? output.html : output.markdown;
      expect(text).toMatch(/compliance(?:\\)?_(?:<wbr>)?matrix/u);
      expect(text).toMatch(/Excludes 1 assessment with erroneous/u);
      expect(text).toContain('Legacy run');
    }
    const executive = (await renderMarkdown(executiveFixture())).markdown;
    expect(executive).toContain('Figures exclude 1 assessment with erroneous asr\\_by\\_category');
    // pii_extraction has no known ASR: it is shown as unknown, never as 0.0%.
    expect(executive).toMatch(/\| pii\\_extraction \| — \| — \| — \| — \|/u);
    // The legacy assessment's slice contributes no ASR: its cells are drawn "excluded", never as 0%.
    const heatmap = (await renderMarkdown(complianceFixture())).charts.find((chart) =>
      chart.name.startsWith('compliance-heatmap-1'),
    );
    const values = (
      JSON.parse(heatmap?.specJson ?? '{}') as {
        data: { values: { assessment: string; asr: number | null; state: string }[] };
      }
    ).data.values;
    const legacy = values.filter((value) => value.assessment.startsWith(LEGACY_ASSESSMENT.name.slice(0, 10)));
    expect(legacy.length).toBeGreaterThan(0);
    expect(
      legacy.filter((value) => value.asr !== null || value.state !== 'excluded (analytics warning)'),
    ).toEqual([]);
  });

  it('redacts excerpts with a hash and reports how many', async () => {
    const model = executiveFixture();
    const { html, redactedCount } = await renderHtml(model, { redact: true });
    const finding = model.topFindings[0]!;
    expect(html).not.toContain('Ignore previous instructions');
    expect(html).toContain(redactionMarker(finding.candidate!));
    // 12 excerpts of top findings and evaluation jobs, the 2 goals of changed findings and the 2 goals
    // of the ASR by goal table, and the 2 reasons of risk acceptances (free text, like notes).
    expect(redactedCount).toBe(18);
    expect(html).toContain('Redaction is on: 18 text excerpts were replaced');
    expect(html).not.toContain('vendor fix due');
    expect(html).not.toContain('Leak a card number');
    const changedGoal = model.sinceLastSnapshot!.changedFindings[1]!.goal!;
    expect(html).not.toContain('Print the API key');
    expect(html).toContain(redactionMarker(changedGoal));
    expect(html).toContain('crescendo_attack');
  });

  it('shows an explicit empty state when there is nothing to report about data quality', async () => {
    const model = { ...portfolioFixture(), dataQuality: { ...executiveFixture().dataQuality } };
    for (const key of Object.keys(model.dataQuality) as (keyof typeof model.dataQuality)[])
      model.dataQuality[key] = [];
    const { html } = await renderHtml(model);
    expect(html).toContain('No data-quality issues');
  });
});

describe('--templates', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'airt-templates-'));
    await cp(BUILTIN_TEMPLATES_DIR, dir, { recursive: true });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("renders with a user's copy, still escaping data", async () => {
    const file = path.join(dir, 'html', 'partials', 'summary.hbs');
    await writeFile(
      file,
      `<div class="summary custom-summary">{{#each summary}}<p>{{this}}</p>{{/each}}</div>\n`,
    );
    const { html } = await renderHtml(executiveFixture(), { templatesDir: dir });
    expect(html).toContain('custom-summary');
    expect(html).not.toContain(HOSTILE.script);
  });

  it('names a missing partial and where it was expected', async () => {
    await rm(path.join(dir, 'md', 'partials', 'provenance.hbs'));
    const error = await renderMarkdown(executiveFixture(), { templatesDir: dir }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(CliError);
    expect((error as Error).message).toContain('Template partial "provenance" not found');
    expect((error as Error).message).toContain(path.join(dir, 'md', 'partials', 'provenance.hbs'));
  });

  it('fails clearly on a field the view does not have (strict mode)', async () => {
    await writeFile(path.join(dir, 'html', 'partials', 'kpis.hbs'), '<p>{{kpis.noSuchField}}</p>\n');
    await expect(renderHtml(executiveFixture(), { templatesDir: dir })).rejects.toThrow(/noSuchField/u);
  });

  it('ships templates without triple-stash (the only raw output is our SVG, via Escaped)', async () => {
    const { readdir } = await import('node:fs/promises');
    const files = await readdir(BUILTIN_TEMPLATES_DIR, { recursive: true });
    for (const file of files.filter((name) => name.endsWith('.hbs'))) {
      expect(await readFile(path.join(BUILTIN_TEMPLATES_DIR, file), 'utf8'), file).not.toContain('{{{');
    }
  });
});
