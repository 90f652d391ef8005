/**
 * Every report lists the cross-checks of the service's totals against the recomputation, not only the
 * ones that disagree: a report whose data all agrees shows what was checked ("… checked: N agree"),
 * and a service total that disagrees (total_findings 3 where the findings count 7) is listed first and
 * marked in words in Markdown, HTML and JSON, and first in @consistency.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildModel } from '../../src/report/build-model.js';
import { renderReportJson } from '../../src/report/json-report.js';
import { renderHtml, renderMarkdown } from '../../src/report/render.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { readNamedQuery } from '../../src/warehouse/named-queries.js';
import { copyFixture, FIXTURES, reseal, tempDir } from '../warehouse/helpers.js';

type Json = Record<string, unknown>;

let work: { dir: string; cleanup: () => Promise<void> };
let clean: Warehouse;
let disagreeing: Warehouse;

async function loadCopy(name: string, edit?: (dir: string) => Promise<void>): Promise<Warehouse> {
  const dir = await copyFixture(FIXTURES.second, path.join(work.dir, name));
  if (edit !== undefined) {
    await edit(dir);
    await reseal(dir);
  }
  const db = path.join(work.dir, `${name}.duckdb`);
  await loadSnapshots(db, [dir]);
  return openWarehouse(db, { readOnly: true });
}

beforeAll(async () => {
  work = await tempDir('airt-consistency-');
  clean = await loadCopy('clean');
  // The issue's example: the service says fewer findings than its assessments hold.
  disagreeing = await loadCopy('disagreeing', async (dir) => {
    const file = path.join(dir, 'projects/payments-bot/summary.json');
    const summary = JSON.parse(await readFile(file, 'utf8')) as { executive_summary: Json };
    summary.executive_summary.total_findings = 3;
    await writeFile(file, JSON.stringify(summary, null, 2));
  });
}, 60_000);

afterAll(async () => {
  clean?.close();
  disagreeing?.close();
  await work?.cleanup();
});

async function render(warehouse: Warehouse, kind: 'executive' | 'compliance' | 'portfolio') {
  const model = await buildModel(warehouse.conn, {
    kind,
    ...(kind === 'portfolio' ? {} : { project: 'payments-bot' }),
  });
  return {
    md: (await renderMarkdown(model)).markdown,
    html: (await renderHtml(model)).html,
    json: JSON.parse(renderReportJson(model)) as Json,
  };
}

/** The report text from the consistency heading on (its section is the last before Provenance). */
const section = (text: string, heading: string): string => {
  const start = text.indexOf(heading);
  expect(start).toBeGreaterThan(-1);
  return text.slice(start, text.indexOf('Provenance', start));
};

async function consistencyRows(warehouse: Warehouse): Promise<Json[]> {
  const sql = (await readNamedQuery('consistency')).sql.trim().replace(/;$/, '');
  const reader = await warehouse.conn.runAndReadAll(sql);
  return reader.getRowObjectsJson();
}

describe('consistency checks in every report', () => {
  it('lists every check with "agrees" when all agree, in executive and compliance reports', async () => {
    for (const kind of ['executive', 'compliance'] as const) {
      const { md, html, json } = await render(clean, kind);
      const checks = json.consistency as Json[];
      expect(checks.length).toBeGreaterThan(10);
      expect(checks.every((check) => check.status === 'agrees')).toBe(true);
      const summary = `${checks.length} service totals checked: ${checks.length} agree`;
      const mdPart = section(md, '### Consistency checks');
      expect(mdPart).toContain(summary);
      expect(mdPart).toMatch(/\| `total_findings` \| 7 \| 7 \| agrees \|/);
      expect(mdPart.match(/\| agrees \|/g)).toHaveLength(checks.length);
      expect(mdPart).not.toContain('DISAGREES');
      const htmlPart = section(html, '<h3>Consistency checks</h3>');
      expect(htmlPart).toContain(summary);
      expect(htmlPart.match(/<td>agrees<\/td>/g)).toHaveLength(checks.length);
    }
  });

  it('gives the portfolio one summary line per project when all agree', async () => {
    const { md, html } = await render(clean, 'portfolio');
    const mdPart = section(md, '### Consistency checks');
    // Each project's line says all its checks agree (their number grows with the metrics layer).
    const perProject = [...mdPart.matchAll(/^- (.+): (\d+) service totals checked: (\d+) agree$/gmu)];
    expect(perProject.map((match) => match[1]!.slice(0, 12))).toEqual(['Payments Ass', 'Support Agen']);
    for (const match of perProject) expect(match[3]).toBe(match[2]);
    const total = perProject.reduce((sum, match) => sum + Number(match[2]), 0);
    expect(mdPart).toContain(`${total} service totals checked: ${total} agree.`);
    expect(mdPart).not.toContain('| Project | Check |'); // nothing needs attention
    expect(section(html, '<h3>Consistency checks</h3>')).toContain(
      `${total} service totals checked: ${total} agree`,
    );
  });

  it('lists a disagreeing total first, marked in words, in Markdown, HTML and JSON', async () => {
    for (const kind of ['executive', 'compliance', 'portfolio'] as const) {
      const { md, html, json } = await render(disagreeing, kind);
      const mdPart = section(md, '### Consistency checks');
      expect(mdPart).toContain('1 disagrees');
      const firstRow = mdPart.split('\n').find((line) => line.includes('`'));
      expect(firstRow).toMatch(/`total_findings` \| 3 \| 7 \| \*\*DISAGREES\*\* \|$/);
      const htmlPart = section(html, '<h3>Consistency checks</h3>');
      const firstHtmlRow = /<tbody>\s*(<tr[^]*?<\/tr>)/.exec(htmlPart)?.[1] ?? '';
      expect(firstHtmlRow).toContain('class="dq-disagrees"');
      expect(firstHtmlRow).toContain('<code>total_<wbr>findings</code>');
      expect(firstHtmlRow).toContain('<strong>DISAGREES</strong>');
      const project = (json.projects as Json[]).find(
        (entry) => (entry.project as Json).key === 'payments-bot',
      )!;
      expect((project.consistency as Json[])[0]).toEqual({
        check: 'total_findings',
        service_value: 3,
        recomputed_value: 7,
        status: 'disagrees',
        detail: null,
      });
      const issues = (json.data_quality as Json).consistency_issues as Json[];
      expect(issues.map((issue) => issue.check)).toEqual([expect.stringContaining('total_findings')]);
    }
  });

  it('lists every check in @consistency with its status, the disagreement first', async () => {
    const rows = await consistencyRows(disagreeing);
    expect(rows[0]).toMatchObject({
      project_key: 'payments-bot',
      check_name: 'total_findings',
      status: 'disagrees',
      service_value: 3,
      recomputed_value: 7,
    });
    expect(rows.filter((row) => row.status === 'disagrees')).toHaveLength(1);
    expect(rows.filter((row) => row.status === 'agrees').length).toBeGreaterThan(30);
    const cleanRows = await consistencyRows(clean);
    expect(cleanRows.length).toBe(rows.length);
    expect(cleanRows.every((row) => row.status === 'agrees')).toBe(true);
  });
});
