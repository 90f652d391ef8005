import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/snapshot/manifest.js';
import { SCHEMA_VERSION } from '../../src/warehouse/ddl.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { WHOLE_FILE_MAX_BYTES } from '../../src/warehouse/trial-loader.js';
import { SHARED_TABLES } from '../../src/warehouse/row-sets.js';
import { knownViewNames } from '../../src/warehouse/views.js';
import { toVersion10Statements, toVersion10Storage } from './schema-downgrade.js';
import { copyDatabase, copyFixture, FIXTURES, reseal, rows, tempDir } from './helpers.js';

type Part = { kind?: unknown; text?: unknown; caption?: unknown };
type Trial = { candidate_parts?: Part[] | null; response_parts?: Part[] | null };

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** Every part as the trial files hold it: [snapshot, assessment, trial, role, part, kind, text, caption]. */
async function partsInFiles(dir: string): Promise<string[]> {
  const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  const out: string[] = [];
  for (const file of manifest.files.filter((f) => f.kind === 'trials')) {
    const trials = JSON.parse(await readFile(path.join(dir, file.path), 'utf8')) as Trial[];
    const assessment = file.assessment_id ?? path.basename(file.path, '.json');
    trials.forEach((trial, ordinal) => {
      for (const role of ['candidate', 'response'] as const) {
        (trial[`${role}_parts`] ?? []).forEach((part, i) => {
          const fields = [str(part.kind), str(part.text), str(part.caption)];
          out.push(JSON.stringify([manifest.snapshot_id, assessment, ordinal, role, i, ...fields]));
        });
      }
    });
  }
  return out.sort();
}

async function partsInDb(db: string): Promise<string[]> {
  const found = await rows(
    db,
    `SELECT snapshot_id, assessment_id, trial_ordinal, role, part_ordinal, kind, text, caption FROM message_parts`,
  );
  return found
    .map((r) =>
      JSON.stringify([
        r.snapshot_id,
        r.assessment_id,
        r.trial_ordinal,
        r.role,
        r.part_ordinal,
        r.kind,
        r.text,
        r.caption,
      ]),
    )
    .sort();
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

/** Trials whose implied part is also listed (it would appear twice in message_parts). */
const DUPLICATED = `SELECT count(*) AS n FROM trials
  WHERE (candidate_part_implied AND candidate_part_list IS NOT NULL)
     OR (response_part_implied AND response_part_list IS NOT NULL)`;

/** Rewrites a current database into what schemas 6 and 7 stored: a trials table (no content storage). */
const TO_VERSION_6 = [
  'CREATE TABLE v6_trials AS SELECT * FROM trials',
  ...toVersion10Storage(),
  ...knownViewNames()
    .filter((name) => !SHARED_TABLES.some((t) => t.name === name))
    .map((name) => `DROP VIEW IF EXISTS ${name}`),
  'DROP TABLE snapshot_trial_files',
  'DROP TABLE trial_content',
  'DROP TABLE trial_content_files',
  'ALTER TABLE v6_trials RENAME TO trials',
];

/**
 * Schema 6 or 7 as it was (trials a table; version 7 added snapshot_files and risk_acceptances), with
 * the views of then and a user's own view.
 */
function downgradeToTrialsTable(version: 6 | 7): string[] {
  return [
    ...TO_VERSION_6,
    ...(version === 6 ? ['DROP TABLE snapshot_files', 'DROP TABLE risk_acceptances'] : []),
    'CREATE VIEW latest_trials AS SELECT * FROM trials',
    'CREATE VIEW my_jailbreaks AS SELECT count(*) AS n FROM trials WHERE is_jailbreak',
    'DELETE FROM schema_version',
    `INSERT INTO schema_version VALUES (${version}, 'test', now(), 'test')`,
  ];
}

/**
 * Rewrites a current database into what schema `version` (1 or 2) stored: trial_tool_calls and
 * message_parts tables with every call and part (version 2: a part whose text is its trial's string
 * has text NULL and text_in_trial TRUE), trials without lists or implied flags, the views of then.
 */
function downgradeStatements(version: 1 | 2 | 6 | 7 | 10): string[] {
  if (version === 10)
    return [
      ...toVersion10Statements(),
      'CREATE VIEW my_jailbreaks AS SELECT count(*) AS n FROM trials WHERE is_jailbreak',
    ];
  if (version === 6 || version === 7) return downgradeToTrialsTable(version);
  const implied = `((p.role = 'candidate' AND t.candidate_part_implied) OR (p.role = 'response' AND t.response_part_implied))`;
  const partColumns =
    version === 2
      ? `p.* REPLACE (CASE WHEN ${implied} THEN NULL ELSE p.text END AS text), coalesce(${implied}, false) AS text_in_trial`
      : 'p.*';
  return [
    'CREATE TABLE old_tool_calls AS SELECT * FROM trial_tool_calls',
    `CREATE TABLE old_parts AS SELECT ${partColumns} FROM message_parts p JOIN trials t
       ON t.snapshot_id = p.snapshot_id AND t.assessment_id = p.assessment_id AND t.trial_ordinal = p.trial_ordinal`,
    ...TO_VERSION_6,
    `CREATE TABLE old_trials AS SELECT * EXCLUDE (candidate_part_implied, response_part_implied, tool_call_list,
       candidate_part_list, response_part_list) FROM trials`,
    'DROP TABLE trials',
    'ALTER TABLE old_trials RENAME TO trials',
    'ALTER TABLE old_tool_calls RENAME TO trial_tool_calls',
    'ALTER TABLE old_parts RENAME TO message_parts',
    ...(version === 2 ? ['CREATE VIEW message_parts_resolved AS SELECT * FROM message_parts'] : []),
    'CREATE VIEW latest_trials AS SELECT * FROM trials',
    // A view of the user's own must survive the upgrade.
    'CREATE VIEW my_jailbreaks AS SELECT count(*) AS n FROM trials WHERE is_jailbreak',
    // Versions before 4 had no altered_values table, before 7 no snapshot_files or risk_acceptances.
    'DROP TABLE altered_values',
    'DROP TABLE snapshot_files',
    'DROP TABLE risk_acceptances',
    'DELETE FROM schema_version',
    `INSERT INTO schema_version VALUES (${version}, 'test', now(), 'test')`,
  ];
}

describe('message parts', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  /** FIXTURES.first loaded once; each upgrade test downgrades a copy of its own. */
  let firstLoaded: string;
  const snapshots = [FIXTURES.first, FIXTURES.second, FIXTURES.partial];

  beforeAll(async () => {
    work = await tempDir();
    firstLoaded = path.join(work.dir, 'first.duckdb');
    await loadSnapshots(firstLoaded, [FIXTURES.first]);
  });
  afterAll(() => work.cleanup());

  it('message_parts holds every part of the files; a plain text part of its trial is stored only once', async () => {
    const db = path.join(work.dir, 'parts.duckdb');
    await loadSnapshots(db, snapshots);
    const expected = (await Promise.all(snapshots.map(partsInFiles))).flat().sort();
    expect(expected.length).toBeGreaterThan(0);
    expect(await partsInDb(db)).toEqual(expected);
    const [counts] = await rows(
      db,
      `SELECT (SELECT count(*) FROM message_parts) AS parts,
              (SELECT sum(len(candidate_part_list)) + sum(len(response_part_list)) FROM trials) AS listed,
              (SELECT count(*) FILTER (WHERE candidate_part_implied) + count(*) FILTER (WHERE response_part_implied) FROM trials) AS implied`,
    );
    expect(counts?.implied).toBeGreaterThan(0);
    expect(counts?.listed).toBeGreaterThan(0);
    expect(counts?.parts).toBe(Number(counts?.listed) + Number(counts?.implied));
    expect(await rows(db, DUPLICATED)).toEqual([{ n: 0 }]);
  });

  it('stores a part whose text differs from its trial text, with that text', async () => {
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
    expect(await partsInDb(db)).toEqual(await partsInFiles(dir));
    expect(
      await rows(
        db,
        `SELECT candidate_part_implied AS implied, candidate_part_list[1].text AS text FROM trials
         WHERE assessment_id = 'a0000000-0000-4000-8000-000000000001' AND trial_ordinal = 0`,
      ),
    ).toEqual([{ implied: false, text: 'not the candidate' }]);
  });

  it('stages a trial file too big to read whole: same rows, in file order', async () => {
    const dir = await copyFixture(FIXTURES.first, work.dir);
    const file = path.join(dir, 'trials', 'a0000000-0000-4000-8000-000000000001.json');
    const trials = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>[];
    const copies: Record<string, unknown>[] = [];
    // Numbered copies, so a trial out of place is seen; big enough to pass WHOLE_FILE_MAX_BYTES.
    const rounds = Math.ceil(WHOLE_FILE_MAX_BYTES / JSON.stringify(trials).length) + 1;
    for (let i = 0; i < rounds; i++)
      copies.push(...trials.map((t, j) => ({ ...t, trial_index: i * trials.length + j })));
    await writeFile(file, JSON.stringify(copies));
    await reseal(dir, (manifest) => {
      const entry = manifest.files.find((f) => f.path === 'trials/a0000000-0000-4000-8000-000000000001.json');
      if (entry) entry.records = copies.length;
    });
    const db = path.join(work.dir, 'staged.duckdb');
    await loadSnapshots(db, [dir]);
    const [order] = await rows(
      db,
      `SELECT count(*) AS n, count(*) FILTER (WHERE trial_index <> trial_ordinal) AS misplaced FROM trials
       WHERE assessment_id = 'a0000000-0000-4000-8000-000000000001'`,
    );
    expect(order).toEqual({ n: copies.length, misplaced: 0 });
    expect(await partsInDb(db)).toEqual(await partsInFiles(dir));
    expect(await rows(db, DUPLICATED)).toEqual([{ n: 0 }]);
  });

  it.each([1, 2, 6, 7, 10] as const)(
    'upgrades a schema-%i database in place: old and new parts alike, user views kept',
    async (version) => {
      const db = await copyDatabase(firstLoaded, path.join(work.dir, `upgrade-${version}.duckdb`));
      await run(db, downgradeStatements(version));
      await loadSnapshots(db, [FIXTURES.second]);
      expect(await rows(db, 'SELECT max(version) AS v FROM schema_version')).toEqual([{ v: SCHEMA_VERSION }]);
      expect(SCHEMA_VERSION).toBe(21);
      // Version 21's bookkeeping of what retention pruned exists, and lists nothing yet.
      expect(await rows(db, 'SELECT count(*) AS n FROM pruned_snapshots')).toEqual([{ n: 0 }]);
      // The trials loaded before the upgrade keep one content each; the second snapshot's files that
      // hold the same bytes as the first's are not shared with them (no hash was stored), but are
      // stored once for every later snapshot.
      expect(await rows(db, 'SELECT count(*) AS n FROM trials')).toEqual([{ n: 15 + 19 }]);
      expect(
        await rows(db, `SELECT count(*) AS n FROM trial_content_files WHERE read_path = 'migrated'`),
      ).toEqual([{ n: version === 10 ? 0 : 3 }]);
      expect(await rows(db, 'SELECT count(*) AS n FROM altered_values')).toEqual([{ n: 0 }]);
      const expected = (await Promise.all([FIXTURES.first, FIXTURES.second].map(partsInFiles))).flat().sort();
      expect(await partsInDb(db)).toEqual(expected);
      expect(await rows(db, DUPLICATED)).toEqual([{ n: 0 }]);
      const views = await rows(
        db,
        `SELECT view_name FROM duckdb_views() WHERE view_name IN ('message_parts_resolved', 'my_jailbreaks', 'latest_message_parts') ORDER BY 1`,
      );
      expect(views).toEqual([{ view_name: 'latest_message_parts' }, { view_name: 'my_jailbreaks' }]);
      const jailbreaks = await rows(db, 'SELECT count(*) AS n FROM trials WHERE is_jailbreak');
      expect(await rows(db, 'SELECT n FROM my_jailbreaks')).toEqual(jailbreaks);
    },
  );
});
