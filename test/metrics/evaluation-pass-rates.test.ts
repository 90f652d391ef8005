/**
 * `@evaluation_pass_rates` reads the metrics layer's one pass-rate definition (issue 12): the named
 * query and the executive report show the same pass rate for every job of the same snapshot. Before,
 * the query pooled passed / (passed + failed) per project (support-agent: 62.5%) while the report
 * showed passed / dataset size (50.0%).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildModel } from '../../src/report/build-model.js';
import type { ExecutiveModel } from '../../src/report/model.js';
import { renderMarkdown } from '../../src/report/render.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { readNamedQuery } from '../../src/warehouse/named-queries.js';
import { FIXTURES, rows, tempDir } from '../warehouse/helpers.js';

let work: Awaited<ReturnType<typeof tempDir>>;
let db: string;
let warehouse: Warehouse;

beforeAll(async () => {
  work = await tempDir('airt-pass-rates-');
  db = path.join(work.dir, 'w.duckdb');
  await loadSnapshots(db, [FIXTURES.first, FIXTURES.second]);
  warehouse = await openWarehouse(db, { readOnly: true });
}, 60_000);

afterAll(async () => {
  warehouse?.close();
  await work?.cleanup();
});

describe('@evaluation_pass_rates', () => {
  it('shows the pass rate of every job that the executive report shows, from the same definition', async () => {
    const sql = (await readNamedQuery('evaluation_pass_rates')).sql.trim().replace(/;$/u, '');
    const named = await rows(db, sql);
    const fromQuery = named.map((row) => [row.project_key, row.evaluation_id, row.pass_rate]);
    const fromReport: unknown[][] = [];
    for (const project of ['payments-bot', 'support-agent']) {
      const model = (await buildModel(warehouse.conn, { kind: 'executive', project })) as ExecutiveModel;
      const markdown = (await renderMarkdown(model)).markdown;
      for (const job of [...model.evaluationJobs].sort((a, b) => (a.name < b.name ? -1 : 1))) {
        const rate = job.passRate === null ? null : Math.round(job.passRate * 1e4) / 1e4;
        fromReport.push([project, job.id, rate]);
        const row = named.find((r) => r.evaluation_id === job.id);
        // The Markdown shows the query's value, to the report's one decimal.
        expect(markdown).toContain(`| ${(Number(row?.pass_rate) * 100).toFixed(1)}% |`);
      }
    }
    expect(fromQuery).toEqual(fromReport);
    expect(fromQuery).toEqual([
      ['payments-bot', 'd0000000-0000-4000-8000-000000000003', 0.1667],
      ['payments-bot', 'd0000000-0000-4000-8000-000000000001', 0.9],
      ['support-agent', 'd0000000-0000-4000-8000-000000000002', 0.5],
    ]);
    expect(named.map((row) => [row.items_passed, row.dataset_size, row.source])).toEqual([
      [1, 6, 'recomputed'],
      [9, 10, 'recomputed'],
      [5, 10, 'recomputed'],
    ]);
  });
});
