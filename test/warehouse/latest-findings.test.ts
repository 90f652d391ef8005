/**
 * `latest_findings` is one row per finding with its current triage status (issue 12): the `findings`
 * table holds a finding once per origin (project top finding, assessment top finding, FindingDetail),
 * so the view built on it counted a finding twice and showed a false positive as open.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/snapshot/manifest.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { readNamedQuery } from '../../src/warehouse/named-queries.js';
import { copyFixture, FIXTURES, reseal, rows, tempDir } from './helpers.js';

/** The README's example, copied as it stands there (the test also checks the README still holds it). */
const README_EXAMPLE = `SELECT org, workspace, project_key, attack_name, goal_category, best_score, finding_status
FROM latest_findings WHERE severity = 'critical' AND is_open AND counted
ORDER BY best_score DESC`;

/** Project top finding, assessment top finding and a FindingDetail triaged false_positive. */
const FALSE_POSITIVE = 'f0000000-0000-4000-8000-000000001001';
/** Project and assessment top finding; the test adds a FindingDetail raising it to critical, open. */
const RAISED = 'f0000000-0000-4000-8000-000000004002';
/** A top finding of an assessment whose top_findings slice the test flags with an analytics warning. */
const WARNED = 'f0000000-0000-4000-8000-000000002001';
const WARNED_ASSESSMENT = 'a0000000-0000-4000-8000-000000000002';

type Json = Record<string, unknown>;

let work: Awaited<ReturnType<typeof tempDir>>;
let db: string;

beforeAll(async () => {
  work = await tempDir('airt-latest-findings-');
  const dir = await copyFixture(FIXTURES.second, work.dir);
  // A FindingDetail for RAISED: triaged to critical, still open (a third origin for that finding).
  const source = path.join(dir, `findings/${FALSE_POSITIVE}.json`);
  const detail = JSON.parse(await readFile(source, 'utf8')) as Json;
  const raised = {
    ...detail,
    id: RAISED,
    assessment_id: 'a0000000-0000-4000-8000-000000000004',
    attack_name: 'rainbow_attack',
    severity: 'critical',
    finding_status: 'open',
    notes: 'raised after review',
    review_events: [],
  };
  await writeFile(path.join(dir, `findings/${RAISED}.json`), JSON.stringify(raised, null, 2));
  const payments = path.join(dir, 'projects/payments-bot/summary.json');
  const summary = JSON.parse(await readFile(payments, 'utf8')) as { assessments: Json[] };
  const flagged = summary.assessments.find((a) => a.id === WARNED_ASSESSMENT)!;
  flagged.analytics_warnings = [{ field: 'top_findings', reason: 'test: erroneous top_findings' }];
  await writeFile(payments, JSON.stringify(summary, null, 2));
  // The new file gets a manifest entry like its sibling's; reseal() then hashes every listed file.
  const manifestFile = path.join(dir, 'manifest.json');
  const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as Manifest;
  const entry = manifest.files.find((f) => f.path === `findings/${FALSE_POSITIVE}.json`)!;
  manifest.files.push({
    ...entry,
    path: `findings/${RAISED}.json`,
    finding_id: RAISED,
    request: entry.request && { ...entry.request, path: entry.request.path.replace(FALSE_POSITIVE, RAISED) },
  });
  await writeFile(manifestFile, JSON.stringify(manifest, null, 2));
  await reseal(dir);
  db = path.join(work.dir, 'w.duckdb');
  await loadSnapshots(db, [FIXTURES.first, dir]);
}, 60_000);

afterAll(async () => {
  await work?.cleanup();
});

describe('latest_findings', () => {
  it('gives a finding present in three origins once, with its triage status: a false positive is not open', async () => {
    expect(
      await rows(
        db,
        `SELECT origin FROM latest_finding_rows WHERE attack_run_id = '${FALSE_POSITIVE}' ORDER BY 1`,
      ),
    ).toEqual([
      { origin: 'assessment_top_finding' },
      { origin: 'finding_detail' },
      { origin: 'project_top_finding' },
    ]);
    expect(
      await rows(
        db,
        `SELECT severity, finding_status, is_open, counted, top_finding_rank, judge_reasoning IS NOT NULL AS has_reasoning
         FROM latest_findings WHERE attack_run_id = '${FALSE_POSITIVE}'`,
      ),
    ).toEqual([
      {
        severity: 'critical',
        finding_status: 'false_positive',
        is_open: false,
        counted: true,
        top_finding_rank: 1,
        has_reasoning: true,
      },
    ]);
  });

  it('holds one row per finding of the newest snapshot', async () => {
    expect(
      await rows(
        db,
        `SELECT count(*) AS n, count(DISTINCT attack_run_id) AS findings, count(DISTINCT snapshot_id) AS snapshots
         FROM latest_findings`,
      ),
    ).toEqual([{ n: 9, findings: 9, snapshots: 1 }]);
  });

  it("answers the README's critical-open-findings example with one row per finding", async () => {
    const readme = await readFile(
      path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../README.md'),
      'utf8',
    );
    expect(readme).toContain(README_EXAMPLE);
    const found = await rows(db, README_EXAMPLE);
    expect(found).toEqual([
      {
        org: 'acme',
        workspace: 'main',
        project_key: 'payments-bot',
        attack_name: 'rainbow_attack',
        goal_category: 'jailbreak_general',
        best_score: 0.81,
        finding_status: 'open',
      },
    ]);
  });

  it('marks a finding of an assessment whose top_findings slice is flagged and takes no text from that slice', async () => {
    const [row] = await rows(
      db,
      `SELECT warned_slices, from_warned_slice, counted, candidate, top_finding_rank
       FROM latest_findings WHERE attack_run_id = '${WARNED}'`,
    );
    expect(row).toEqual({
      warned_slices: ['top_findings'],
      from_warned_slice: true,
      counted: true,
      candidate: null,
      top_finding_rank: null,
    });
  });

  it('@top_open_findings lists each open finding once, with the same count as the open-findings figure', async () => {
    const sql = (await readNamedQuery('top_open_findings')).sql.trim().replace(/;$/u, '');
    const open = await rows(db, sql);
    const ids = open.map((f) => f.attack_run_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).not.toContain(FALSE_POSITIVE);
    expect(open[0]).toMatchObject({ attack_run_id: RAISED, severity: 'critical', finding_status: 'open' });
    const figure = await rows(
      db,
      `SELECT sum(value) AS n FROM latest_metric_project_figures WHERE figure = 'findings_open'`,
    );
    expect(figure).toEqual([{ n: ids.length }]);
  });
});
