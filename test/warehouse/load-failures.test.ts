import { existsSync } from 'node:fs';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { loadKilledAt } from './killed-load.js';
import { copyDatabase, copyFixture, FIXTURES, reseal, rows, tableCounts, tempDir } from './helpers.js';

const TRIAL_FILE = 'trials/a0000000-0000-4000-8000-000000000001.json';

describe('snapshots the loader refuses or cannot read', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;
  beforeEach(async () => {
    work = await tempDir();
    db = path.join(work.dir, 'airt.duckdb');
  });
  afterEach(() => work.cleanup());

  it('refuses a snapshot whose file changed, naming the file; --force loads it marked unverified', async () => {
    const dir = await copyFixture(FIXTURES.first, work.dir);
    await appendFile(path.join(dir, TRIAL_FILE), ' ');
    await expect(loadSnapshots(db, [dir])).rejects.toThrow(
      new RegExp(`failed verification[\\s\\S]*${TRIAL_FILE}.*sha256`),
    );
    await expect(loadSnapshots(db, [dir])).rejects.toThrow(/load it anyway with options\.force/);

    const forced = await loadSnapshots(db, [dir], { force: true });
    expect(forced.snapshots[0]).toMatchObject({ outcome: 'loaded', verified: false });
    expect(await rows(db, `SELECT verified, forced FROM snapshots`)).toEqual([
      { verified: false, forced: true },
    ]);
    const warnings = await rows(db, `SELECT code, file FROM load_warnings WHERE code = 'verify_failed'`);
    expect(warnings).toEqual([{ code: 'verify_failed', file: TRIAL_FILE }]);
    // The unverified trial file took the strict path and still loaded every trial.
    expect(
      await rows(
        db,
        `SELECT count(*) AS n FROM trials WHERE assessment_id = 'a0000000-0000-4000-8000-000000000001'`,
      ),
    ).toEqual([{ n: 7 }]);
  });

  it('refuses a different snapshot under an id that is already loaded', async () => {
    await loadSnapshots(db, [FIXTURES.first]);
    const dir = await copyFixture(FIXTURES.first, work.dir);
    const file = path.join(dir, 'config.json');
    await writeFile(file, (await readFile(file, 'utf8')).replace('2026.3.1', '2026.3.2'));
    await reseal(dir);
    const before = await tableCounts(db);
    await expect(loadSnapshots(db, [dir])).rejects.toThrow(
      /already loaded with root hash .* two different snapshots share one id/,
    );
    expect(await tableCounts(db)).toEqual(before);
  });

  it('names the file, line and column of malformed JSON in a summary', async () => {
    const dir = await copyFixture(FIXTURES.first, work.dir);
    const file = path.join(dir, 'projects/support-agent/summary.json');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('"assessments_by_status": {', '"assessments_by_status": {,'));
    await reseal(dir);
    const error = await loadSnapshots(db, [dir]).then(
      () => new Error('loaded'),
      (e: unknown) => e as Error,
    );
    expect(error.message).toMatch(
      /Malformed JSON in .*projects\/support-agent\/summary\.json at line \d+, column \d+ \(offset \d+\)/,
    );
    const line = text.split('\n').findIndex((l) => l.includes('"assessments_by_status": {')) + 1;
    expect(error.message).toContain(`line ${line},`);
  });

  it('names the file and position of malformed JSON in a trial file', async () => {
    const dir = await copyFixture(FIXTURES.first, work.dir);
    const file = path.join(dir, TRIAL_FILE);
    await writeFile(
      file,
      (await readFile(file, 'utf8')).replace(
        '"trial_status": "finished"',
        '"trial_status": "finished" "x": 1',
      ),
    );
    await reseal(dir);
    await expect(loadSnapshots(db, [dir])).rejects.toThrow(
      new RegExp(`Malformed JSON in .*${TRIAL_FILE} at line \\d+, column \\d+`),
    );
  });

  it('fails the load when the manifest records a different number of items', async () => {
    const dir = await copyFixture(FIXTURES.first, work.dir);
    await reseal(dir, (manifest) => {
      const entry = manifest.files.find((f) => f.path === TRIAL_FILE);
      if (entry) entry.records = 8;
    });
    await expect(loadSnapshots(db, [dir])).rejects.toThrow(/records 8 items but 7 were loaded/);
    // A database the failed load created is removed again; one that existed keeps no trials.
    if (existsSync(db)) expect((await tableCounts(db)).trials).toBe(0);
  });

  it('names the file and field when a counted array has the wrong type (schema drift)', async () => {
    const dir = await copyFixture(FIXTURES.first, work.dir);
    const file = path.join(dir, 'projects/payments-bot/summary.json');
    const body = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    body.assessments = { count: 2 };
    await writeFile(file, JSON.stringify(body));
    await reseal(dir);
    await expect(loadSnapshots(db, [dir])).rejects.toThrow(
      /projects\/payments-bot\/summary\.json: field "assessments" is an object, not the array the API defines \(schema drift\)/,
    );
  });

  it('validates a journal before committing anything: a bad journal loads no snapshot', async () => {
    const journal = path.join(work.dir, 'bad.jsonl');
    await writeFile(journal, '{"journal":"airt-triage/1"}\n{oops\n{"journal":"airt-triage/1"}\n');
    await expect(loadSnapshots(db, [FIXTURES.first], { journal })).rejects.toThrow(/bad\.jsonl:2/);
    if (existsSync(db)) expect((await tableCounts(db)).snapshots).toBe(0);
    await loadSnapshots(db, [FIXTURES.second]);
    await expect(loadSnapshots(db, [FIXTURES.first], { journal })).rejects.toThrow(/bad\.jsonl:2/);
    expect(await rows(db, 'SELECT snapshot_id FROM snapshots')).toEqual([
      { snapshot_id: path.basename(FIXTURES.second) },
    ]);
  });

  it('keeps a value of the wrong type (never coerced) in extra, with a warning', async () => {
    const dir = await copyFixture(FIXTURES.first, work.dir);
    const file = path.join(dir, TRIAL_FILE);
    const trials = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>[];
    Object.assign(trials[0] ?? {}, { score: '0.2', trial_index: 1.5, is_jailbreak: 'no' });
    await writeFile(file, JSON.stringify(trials));
    await reseal(dir, (manifest) => {
      const entry = manifest.files.find((f) => f.path === TRIAL_FILE);
      if (entry)
        Object.assign(entry, {
          issues: [{ path: '$[0].score', message: 'expected number', code: 'invalid_type' }],
          issues_total: 1,
        });
    });
    await loadSnapshots(db, [dir]);
    const [trial] = await rows(
      db,
      `SELECT score, trial_index, is_jailbreak, extra FROM trials WHERE trial_ordinal = 0 AND assessment_id = 'a0000000-0000-4000-8000-000000000001'`,
    );
    expect(trial).toMatchObject({ score: null, trial_index: null, is_jailbreak: null });
    expect(JSON.parse(String(trial?.extra))).toEqual({ score: '0.2', trial_index: 1.5, is_jailbreak: 'no' });
    expect(await rows(db, `SELECT code FROM load_warnings WHERE code = 'trial_extra'`)).toEqual([
      { code: 'trial_extra' },
    ]);
  });
});

describe('a load that fails midway', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;
  /** FIXTURES.first loaded once; each test starts from a copy of its own. */
  let loaded: Awaited<ReturnType<typeof tempDir>>;
  beforeAll(async () => {
    loaded = await tempDir();
    await loadSnapshots(path.join(loaded.dir, 'first.duckdb'), [FIXTURES.first]);
  });
  afterAll(() => loaded.cleanup());
  beforeEach(async () => {
    work = await tempDir();
    db = await copyDatabase(path.join(loaded.dir, 'first.duckdb'), path.join(work.dir, 'airt.duckdb'));
  });
  afterEach(() => work.cleanup());

  it('leaves the database as it was when an error strikes after some tables are written', async () => {
    const before = await tableCounts(db);
    const failing = loadSnapshots(db, [FIXTURES.second], {
      onProgress: (event) => {
        if (event.type === 'table' && event.table === 'trials')
          throw new Error('injected failure after trials');
      },
    });
    await expect(failing).rejects.toThrow('injected failure after trials');
    expect(await tableCounts(db)).toEqual(before);
    const retry = await loadSnapshots(db, [FIXTURES.second]);
    expect(retry.snapshots[0]?.outcome).toBe('loaded');
  });

  it('leaves the database as it was when the process is killed mid-load', async () => {
    const before = await tableCounts(db);
    const signal = await loadKilledAt(
      work.dir,
      db,
      [FIXTURES.second],
      1,
      "e.type === 'table' && e.table === 'message_parts'",
    );
    expect(signal).toBe('SIGKILL');
    expect(await tableCounts(db)).toEqual(before);
  });
});
