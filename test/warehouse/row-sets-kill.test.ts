/**
 * The write paths of shared row sets under SIGKILL: a night mapped to an earlier one's rows (same
 * inputs) and a night whose findings and one project summary changed (new row sets; the other
 * summary taken from its memo, the changed one's memo written, its unchanged assessments taken from
 * their memos and the changed one's written, its evaluation jobs taken from their memos), loaded in
 * one process killed at a random progress event. Each snapshot is one transaction, so the database is
 * always one of the states between snapshots, and loading again ends exactly where an uninterrupted
 * load ends: nothing lost, no row set stored twice.
 */
import { cp, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/snapshot/manifest.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { SHARED_TABLES, storedName } from '../../src/warehouse/row-sets.js';
import { copyFixture, editAssessments, FIXTURES, reseal, rows, tempDir } from './helpers.js';
import { loadKilledAt } from './killed-load.js';

const KILLS = 6;
let work: Awaited<ReturnType<typeof tempDir>>;
let nights: string[];
/** Progress events of an uninterrupted load of `nights`: the points a kill may land on. */
let events = 0;
let base: string;

async function night(id: string, notes?: string): Promise<string> {
  const copied = await copyFixture(FIXTURES.second, path.join(work.dir, id));
  const dir = path.join(path.dirname(copied), id);
  await rename(copied, dir);
  const finding = path.join(dir, 'findings/f0000000-0000-4000-8000-000000001001.json');
  if (notes !== undefined) {
    const body = JSON.parse(await readFile(finding, 'utf8')) as Record<string, unknown>;
    await writeFile(finding, JSON.stringify({ ...body, notes }));
    await editAssessments(path.join(dir, 'projects/payments-bot/summary.json'), ([first, ...rest]) => [
      { ...first, name: notes },
      ...rest,
    ]);
  }
  const original = JSON.parse(
    await readFile(path.join(FIXTURES.second, 'manifest.json'), 'utf8'),
  ) as Manifest;
  await reseal(dir, (m) => {
    m.snapshot_id = id;
    m.finished_at = new Date(Date.parse(original.finished_at) + 86_400_000).toISOString();
  });
  return dir;
}

/** Everything the row set storage holds: each table seen and stored, the mappings, the inputs. */
async function state(db: string): Promise<string> {
  const parts = [
    ...SHARED_TABLES.map(
      (t) =>
        `SELECT '${t.name}' AS t, (SELECT count(*) FROM ${t.name}) AS n, (SELECT count(*) FROM ${storedName(t)}) AS s`,
    ),
    `SELECT 'snapshot_row_sets', count(*), count(DISTINCT row_set) FROM snapshot_row_sets`,
    `SELECT 'snapshot_inputs', count(*), count(DISTINCT inputs_key) FROM snapshot_inputs`,
    `SELECT 'summary_memos', count(*), count(DISTINCT memo_key) FROM summary_memos`,
    `SELECT 'summary_memo_row_sets', count(*), count(DISTINCT memo_key) FROM summary_memo_row_sets`,
    `SELECT 'trials', (SELECT count(*) FROM trials), (SELECT count(*) FROM trial_content)`,
    `SELECT 'snapshots', count(*), 0 FROM snapshots`,
  ];
  return JSON.stringify(await rows(db, parts.join(' UNION ALL ') + ' ORDER BY 1'), (_k, v: unknown) =>
    typeof v === 'bigint' ? Number(v) : v,
  );
}

beforeAll(async () => {
  work = await tempDir('airt-row-sets-kill-');
  nights = [await night('20260316T060000Z-same'), await night('20260317T060000Z-triaged', 'triaged')];
  base = path.join(work.dir, 'base.duckdb');
  await loadSnapshots(base, [FIXTURES.second]);
}, 60_000);
afterAll(() => work.cleanup());

describe('shared row sets when the load is killed', () => {
  it(`is a state between snapshots, and loading again ends as an uninterrupted load (${KILLS} random points)`, async () => {
    const reference = path.join(work.dir, 'reference.duckdb');
    await cp(base, reference);
    const before = await state(reference);
    await loadSnapshots(reference, nights.slice(0, 1));
    const between = await state(reference);
    await loadSnapshots(reference, nights.slice(1));
    const after = await state(reference);
    const counting = path.join(work.dir, 'counting.duckdb');
    await cp(base, counting);
    const seen: string[] = [];
    await loadSnapshots(counting, nights, { onProgress: (e) => void (events++, seen.push(e.type)) });
    expect(events).toBeGreaterThan(20);
    expect(seen).toContain('summaries_reused');
    expect(seen).toContain('assessments_reused');
    expect(seen).toContain('evaluation_jobs_reused');
    for (let i = 0; i < KILLS; i++) {
      const at = 1 + Math.floor(Math.random() * events);
      const db = path.join(work.dir, `killed-${i}.duckdb`);
      await cp(base, db);
      expect(await loadKilledAt(work.dir, db, nights, at), `kill at event ${at}`).toBe('SIGKILL');
      // The last event follows the second commit: then the kill finds the load done.
      expect([before, between, after], `kill at event ${at}`).toContain(await state(db));
      await loadSnapshots(db, nights);
      expect(await state(db), `kill at event ${at}`).toBe(after);
    }
  }, 120_000);
});
