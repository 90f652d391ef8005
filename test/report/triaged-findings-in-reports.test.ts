/**
 * Reports of a snapshot that carries triage (taken with the journal set, as a scheduled run takes
 * it): the first project's three highest-ranked findings are an accepted risk whose last day is still
 * to come, a false positive and a remediated finding, triaged through the CLI against the simulator.
 * The executive report's "Fix first" lists open findings only (open as the figures count them) of
 * severity low or worse, the next ones in the service's ranking; the portfolio's critical count says
 * whose count it is.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FindingSummary } from '../../src/api/schemas.js';
import { buildModel } from '../../src/report/build-model.js';
import { queryRows } from '../../src/report/model-sql/query.js';
import type { ExecutiveModel, PortfolioModel } from '../../src/report/model.js';
import { renderHtml, renderMarkdown } from '../../src/report/render.js';
import { FIX_FIRST } from '../../src/report/view-brief.js';
import { startSimulator } from '../../src/simulator/index.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { snapshotSimulator } from '../helpers/simulator-snapshot.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { triageThroughCli } from '../helpers/triaged-journal.js';
import { briefOf } from './golden-set.js';

/** How the three top findings are triaged, in rank order. */
const TRIAGE: readonly (readonly string[])[] = [
  ['--status', 'accepted_risk', '--until', '2099-12-31', '--reason', 'output filter in front'],
  ['--status', 'false_positive', '--notes', 'benign: quoted in docs'],
  ['--status', 'remediated'],
];

let warehouse: Warehouse;
let project: string;
let ranking: FindingSummary[];
let triaged: Set<string>;

beforeAll(async () => {
  const dir = await makeTempDir('airt-triaged-reports-');
  const sim = await startSimulator({
    seed: 11,
    projects: 2,
    scale: { assessmentsPerProject: 3, attacksPerAssessment: 6, trialsPerAttack: 2, evaluationJobs: 0 },
  });
  try {
    project = sim.projectKeys[0] ?? '';
    ranking = [...sim.truth.summary(project).top_findings].sort((a, b) => a.rank - b.rank);
    const top = ranking.slice(0, TRIAGE.length).map((finding) => finding.attack_run_id ?? '');
    triaged = new Set(top);
    const journal = path.join(dir, 'triage', 'journal.jsonl');
    for (const [i, args] of TRIAGE.entries()) await triageThroughCli(sim, dir, journal, top[i] ?? '', args);
    const snapshot = await snapshotSimulator(sim, {
      out: path.join(dir, 'snapshots'),
      projects: sim.projectKeys,
      trialsLimit: 5,
      journal,
    });
    const db = path.join(dir, 'w.duckdb');
    await loadSnapshots(db, [snapshot.dir]);
    warehouse = await openWarehouse(db, { readOnly: true });
  } finally {
    await sim.close();
  }
}, 120_000);
afterAll(() => warehouse?.close());

/** The numbered lines under "Fix first", Markdown escapes removed. */
function fixFirstLines(markdown: string): string[] {
  const brief = briefOf(markdown, '**Fix first:**', '**What the figures exclude:**');
  return [...brief.matchAll(/^\d\. (.*)$/gmu)].map((match) => (match[1] ?? '').replace(/\\/gu, ''));
}

describe('Fix first', () => {
  it('lists only open findings, the next ones in the service ranking when the top ones are closed', async () => {
    // The snapshot's figures hold none of the three open: accepted (valid), false positive, remediated.
    const states = await queryRows(
      warehouse.conn,
      `SELECT attack_run_id, finding_status, is_open FROM metric_findings WHERE project_key = $1`,
      [project],
    );
    const open = new Map(states.map((row) => [String(row.attack_run_id), row.is_open === true]));
    for (const id of triaged) expect([id, open.get(id)]).toEqual([id, false]);

    // Expected from the service's ranking as served: skip findings not open and info findings, one
    // per attack and goal category (the rule the summary states), at most the first three.
    const seen = new Set<string>();
    const expected: string[] = [];
    for (const finding of ranking) {
      if (open.get(finding.attack_run_id ?? '') !== true || finding.severity === 'info') continue;
      const key = JSON.stringify([finding.attack_name, finding.goal_category]);
      if (seen.has(key)) continue;
      seen.add(key);
      expected.push(
        `${finding.severity}: ${finding.attack_name} against ${finding.goal_category} ` +
          `(score ${finding.score.toFixed(2)}, ${finding.assessment_name})`,
      );
      if (expected.length === FIX_FIRST) break;
    }
    expect(expected.length).toBeGreaterThan(0);

    const model = (await buildModel(warehouse.conn, { kind: 'executive', project })) as ExecutiveModel;
    const { markdown } = await renderMarkdown(model);
    expect(fixFirstLines(markdown)).toEqual(expected);
    const { html } = await renderHtml(model);
    const items = /<ol class="fix-first">([\s\S]*?)<\/ol>/u.exec(html)?.[1] ?? '';
    expect(items.match(/<li>/gu)).toHaveLength(expected.length);
    expect(briefOf(markdown, '**Fix first:**', '**What the figures exclude:**')).toContain(
      'highest-ranked open findings of severity low or worse',
    );
  });
});

describe("the portfolio's critical count", () => {
  it('says it counts findings by current severity, false positives left out, and gives that count', async () => {
    const figures = await queryRows(
      warehouse.conn,
      `SELECT sum(value) AS tool, sum(service_value) AS service FROM metric_project_figures
       WHERE figure = 'findings_critical'`,
      [],
    );
    const tool = Number(figures[0]?.tool);
    const service = Number(figures[0]?.service);
    // The triaged false positive makes the two counts differ, so the sentence can only be right one way.
    expect(tool).not.toBe(service);

    const model = (await buildModel(warehouse.conn, { kind: 'portfolio' })) as PortfolioModel;
    const { markdown } = await renderMarkdown(model);
    const sentence = markdown.split('\n').find((line) => line.startsWith('Across projects')) ?? '';
    expect(sentence).toBe(
      `Across projects, counting findings by current severity (false positives left out), there are ${tool} critical findings.`,
    );
    expect(sentence).not.toContain("service's");
  });
});
