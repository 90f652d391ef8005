/**
 * The executive report's evaluation-jobs table says how many items of each job ended as infra_error or
 * timed_out, or were cancelled, beside passed, failed and errored: a job's pass rate alone does not
 * say whether its items failed the check or never got a verdict. Expected from the snapshot's raw
 * evaluation pages (item_counts, api-spec EvaluationControlPlaneSummary), for a simulator world with
 * jobs in every state: separate columns in Markdown, one "Errored or not run" list in HTML (a PDF
 * page has no room for three more number columns).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildModel } from '../../src/report/build-model.js';
import { formatCount } from '../../src/report/format.js';
import type { ExecutiveModel } from '../../src/report/model.js';
import { renderHtml, renderMarkdown } from '../../src/report/render.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { htmlRows, mdHeader, mdTable } from '../metrics/report-text.js';
import { rawEvaluationJobs } from '../helpers/raw-evaluation-jobs.js';
import { loadedSimulatorWorld } from '../helpers/simulator-snapshot.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { briefOf } from './golden-set.js';

const STATES = ['errored', 'infra_error', 'timed_out', 'cancelled'] as const;

let warehouse: Warehouse;
let project: string;
/** Item counts per job id, from the raw JSON. */
let counts: Map<string, Record<string, number>>;

beforeAll(async () => {
  const dir = await makeTempDir('airt-evaluation-outcomes-');
  const world = await loadedSimulatorWorld(
    {
      seed: 4,
      projects: 1,
      scale: { assessmentsPerProject: 1, attacksPerAssessment: 2, trialsPerAttack: 2, evaluationJobs: 40 },
    },
    dir,
  );
  project = world.projects[0] ?? '';
  counts = new Map(
    (await rawEvaluationJobs(world.snapshotDir)).map((job) => [
      String(job.id),
      job.item_counts as Record<string, number>,
    ]),
  );
  warehouse = await openWarehouse(world.db, { readOnly: true });
}, 120_000);
afterAll(() => warehouse?.close());

describe('evaluation jobs: items that ended as infra_error or timed_out, or were cancelled', () => {
  it('the world has jobs with each of them', () => {
    for (const state of STATES)
      expect(
        [...counts.values()].some((items) => (items[state] ?? 0) > 0),
        state,
      ).toBe(true);
  });

  it('are columns of the Markdown table, per job as the snapshot has them', async () => {
    const model = (await buildModel(warehouse.conn, { kind: 'executive', project })) as ExecutiveModel;
    expect(model.evaluationJobs.length).toBe(counts.size);
    const { markdown } = await renderMarkdown(model);
    const header = mdHeader(markdown, '| Job | Status |');
    expect(header).toEqual([
      'Job',
      'Status',
      'Model',
      'Queued',
      'Completed',
      'Items',
      'Passed',
      'Failed',
      'Errored',
      'Infra error',
      'Timed out',
      'Cancelled',
      'Pass rate',
      'Error',
    ]);
    const rows = mdTable(markdown, '| Job | Status |');
    expect(rows).toHaveLength(model.evaluationJobs.length);
    model.evaluationJobs.forEach((job, index) => {
      const items = counts.get(job.id) ?? {};
      const cell = (name: string): string | undefined => rows[index]?.[header.indexOf(name)];
      expect([cell('Errored'), cell('Infra error'), cell('Timed out'), cell('Cancelled')], job.id).toEqual(
        STATES.map((state) => formatCount(items[state])),
      );
    });
  });

  it('are listed per job in the HTML table, with errored', async () => {
    const model = (await buildModel(warehouse.conn, { kind: 'executive', project })) as ExecutiveModel;
    const { html } = await renderHtml(model);
    const section = briefOf(html, '<section class="report-section" id="evaluation-jobs"', '</section>');
    const headers = [...section.matchAll(/<th[^>]*>(.*?)<\/th>/gsu)].map((match) => match[1]);
    const column = headers.indexOf('Errored or not run');
    expect(column).toBeGreaterThan(0);
    const rows = htmlRows(section);
    expect(rows).toHaveLength(model.evaluationJobs.length);
    model.evaluationJobs.forEach((job, index) => {
      const items = counts.get(job.id) ?? {};
      expect(rows[index]?.[column], job.id).toBe(
        `errored ${formatCount(items.errored)} infra error ${formatCount(items.infra_error)} ` +
          `timed out ${formatCount(items.timed_out)} cancelled ${formatCount(items.cancelled)}`,
      );
    });
  });
});
