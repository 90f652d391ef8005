import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/snapshot/manifest.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { copyFixture, FIXTURES, reseal, rows, tempDir } from './helpers.js';

type Part = { text?: unknown };
type Trial = { candidate_parts?: Part[] | null; response_parts?: Part[] | null };

/** Every part's text as the trial files hold it: [snapshot, assessment, trial, role, part, text]. */
async function partTextsInFiles(dir: string): Promise<string[]> {
  const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  const out: string[] = [];
  for (const file of manifest.files.filter((f) => f.kind === 'trials')) {
    const trials = JSON.parse(await readFile(path.join(dir, file.path), 'utf8')) as Trial[];
    const assessment = file.assessment_id ?? path.basename(file.path, '.json');
    trials.forEach((trial, ordinal) => {
      for (const role of ['candidate', 'response'] as const) {
        (trial[`${role}_parts`] ?? []).forEach((part, i) => {
          const text = typeof part.text === 'string' ? part.text : null;
          out.push(JSON.stringify([manifest.snapshot_id, assessment, ordinal, role, i, text]));
        });
      }
    });
  }
  return out;
}

async function partTextsInDb(db: string): Promise<string[]> {
  const found = await rows(
    db,
    `SELECT snapshot_id, assessment_id, trial_ordinal, role, part_ordinal, text FROM message_parts_resolved`,
  );
  return found.map((r) =>
    JSON.stringify([r.snapshot_id, r.assessment_id, r.trial_ordinal, r.role, r.part_ordinal, r.text]),
  );
}

async function run(db: string, statements: string[]): Promise<void> {
  const instance = await DuckDBInstance.create(db);
  const conn = await instance.connect();
  try {
    for (const sql of statements) await conn.run(sql);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

describe('message parts store a text once', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  const snapshots = [FIXTURES.first, FIXTURES.second, FIXTURES.partial];

  beforeAll(async () => {
    work = await tempDir();
  });
  afterAll(() => work.cleanup());

  it('keeps every part text: in message_parts, or in trials when it is the candidate/response', async () => {
    const db = path.join(work.dir, 'parts.duckdb');
    await loadSnapshots(db, snapshots);
    const expected = (await Promise.all(snapshots.map(partTextsInFiles))).flat().sort();
    expect(expected.length).toBeGreaterThan(0);
    expect((await partTextsInDb(db)).sort()).toEqual(expected);
    const [flags] = await rows(
      db,
      `SELECT count(*) FILTER (WHERE text_in_trial) AS in_trial,
              count(*) FILTER (WHERE text_in_trial AND text IS NOT NULL) AS duplicated,
              count(*) FILTER (WHERE NOT text_in_trial AND text IS NOT NULL) AS own_text
       FROM message_parts`,
    );
    expect(flags?.in_trial).toBeGreaterThan(0);
    expect(flags?.duplicated).toBe(0);
  });

  it('keeps a part text that differs from its trial text in message_parts', async () => {
    const dir = await copyFixture(FIXTURES.first, work.dir);
    const file = path.join(dir, 'trials', 'a0000000-0000-4000-8000-000000000001.json');
    const trials = JSON.parse(await readFile(file, 'utf8')) as Trial[];
    const part = trials[0]?.candidate_parts?.[0];
    if (!part) throw new Error('fixture trial 0 has no candidate part');
    part.text = 'not the candidate';
    await writeFile(file, JSON.stringify(trials));
    await reseal(dir);
    const db = path.join(work.dir, 'own-text.duckdb');
    await loadSnapshots(db, [dir]);
    expect((await partTextsInDb(db)).sort()).toEqual((await partTextsInFiles(dir)).sort());
    expect(await rows(db, `SELECT text, text_in_trial FROM message_parts WHERE text IS NOT NULL`)).toEqual([
      { text: 'not the candidate', text_in_trial: false },
    ]);
  });

  it('upgrades a schema-1 database (no text_in_trial) and resolves old and new rows alike', async () => {
    const db = path.join(work.dir, 'upgrade.duckdb');
    await loadSnapshots(db, [FIXTURES.first]);
    // Turn it into what schema 1 wrote: the column absent, each part's text in message_parts.
    await run(db, [
      `UPDATE message_parts p SET text = CASE p.role WHEN 'candidate' THEN t.candidate ELSE t.response END
       FROM trials t WHERE p.text_in_trial AND t.snapshot_id = p.snapshot_id
         AND t.assessment_id = p.assessment_id AND t.trial_ordinal = p.trial_ordinal`,
      'DROP VIEW message_parts_resolved',
      'ALTER TABLE message_parts DROP COLUMN text_in_trial',
      'DELETE FROM schema_version WHERE version > 1',
    ]);
    await loadSnapshots(db, [FIXTURES.second]);
    expect(await rows(db, 'SELECT max(version) AS v FROM schema_version')).toEqual([{ v: 2 }]);
    const expected = (await Promise.all([FIXTURES.first, FIXTURES.second].map(partTextsInFiles))).flat();
    expect((await partTextsInDb(db)).sort()).toEqual(expected.sort());
  });
});
