/**
 * Issue 14: the rows a snapshot gives every small table are stored once per distinct content (shared
 * row sets, schema version 11). A night that changed nothing adds mappings, not rows; every table keeps
 * its rows and its snapshot_id for queries; retention deletes what no snapshot maps any more; a version
 * 10 database keeps every row through the upgrade.
 */
import { createHash } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/snapshot/manifest.js';
import { verifySnapshot } from '../../src/snapshot/verify.js';
import { loadSnapshots, type LoadProgress } from '../../src/warehouse/loader.js';
import { pruneWarehouse } from '../../src/warehouse/prune.js';
import { assessmentMemoKey } from '../../src/warehouse/assessment-memo.js';
import { rowSetKey, SHARED_TABLES, storedName } from '../../src/warehouse/row-sets.js';
import {
  copyDatabase,
  copyFixture,
  editAssessments,
  editEvaluationPages,
  FIXTURES,
  reseal,
  rows,
  tableCounts,
  tempDir,
} from './helpers.js';
import { readEach } from '../helpers/warehouse-reads.js';
import { toVersion10Statements } from './schema-downgrade.js';

let work: Awaited<ReturnType<typeof tempDir>>;
/** FIXTURES.second loaded once; the tests that start from it each load their nights into a copy. */
let secondLoaded: string;

beforeAll(async () => {
  work = await tempDir('airt-row-sets-');
  secondLoaded = path.join(work.dir, 'second.duckdb');
  await loadSnapshots(secondLoaded, [FIXTURES.second]);
});
afterAll(() => work.cleanup());

/** FIXTURE's bytes as a later night's snapshot `id` (byte for byte what an unchanged service gives). */
async function nextNight(
  fixture: string,
  id: string,
  edit?: (dir: string) => Promise<void>,
): Promise<string> {
  const copied = await copyFixture(fixture, path.join(work.dir, id));
  const dir = path.join(path.dirname(copied), id);
  await rename(copied, dir);
  await edit?.(dir);
  const original = JSON.parse(await readFile(path.join(fixture, 'manifest.json'), 'utf8')) as Manifest;
  await reseal(dir, (m) => {
    m.snapshot_id = id;
    m.finished_at = new Date(Date.parse(original.finished_at) + 86_400_000).toISOString();
    // The validation facts stay those of the original files (reseal recomputes only hashes).
    m.files.forEach((f, i) => Object.assign(f, { records: original.files[i]?.records ?? f.records }));
  });
  return dir;
}

/** Runs statements on the database directly (a version 10 database is not readable by the query layer). */
async function execute(db: string, statements: readonly string[]): Promise<Record<string, unknown>[]> {
  return (await executeEach(db, statements)).at(-1) ?? [];
}

/** execute's rows of every statement, in order (one open of the database for all of them). */
async function executeEach(db: string, statements: readonly string[]): Promise<Record<string, unknown>[][]> {
  const instance = await DuckDBInstance.create(db);
  const conn = await instance.connect();
  try {
    const each: Record<string, unknown>[][] = [];
    for (const sql of statements) each.push((await conn.runAndReadAll(sql)).getRowObjectsJson());
    return each;
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** Rows of every shared table: stored (storage) and seen (through the table's view). */
async function counts(db: string): Promise<Record<string, { stored: number; seen: number }>> {
  const sql = SHARED_TABLES.map(
    (t) =>
      `SELECT '${t.name}' AS t, (SELECT count(*) FROM ${storedName(t)}) AS stored, (SELECT count(*) FROM ${t.name}) AS seen`,
  ).join(' UNION ALL ');
  const found = await rows(db, sql);
  return Object.fromEntries(
    found.map((r) => [String(r.t), { stored: Number(r.stored), seen: Number(r.seen) }]),
  );
}

/** A table's rows of one snapshot without the snapshot_id, in a stable order (JSON lines). */
async function rowsOf(db: string, table: string, snapshotId: string): Promise<string[]> {
  return readRows(await rowsOfEach(db, [table], snapshotId), table);
}

/** The rows rowsOfEach read under `key` (a key it did not read is an error, never an empty list). */
function readRows(each: ReadonlyMap<string, string[]>, key: string): string[] {
  const found = each.get(key);
  if (!found) throw new Error(`${key} was not read`);
  return found;
}

/**
 * rowsOf of each table (and snapshot id, when `snapshotIds` names several) read on one connection:
 * table → rows, or `${table} ${snapshotId}` → rows for several ids.
 */
async function rowsOfEach(
  db: string,
  tables: readonly string[],
  ...snapshotIds: string[]
): Promise<Map<string, string[]>> {
  const keys = snapshotIds.flatMap((id) =>
    tables.map((table) => ({ table, id, key: snapshotIds.length === 1 ? table : `${table} ${id}` })),
  );
  const found = await readEach(
    db,
    keys.map(({ table, id }) => `SELECT * EXCLUDE (snapshot_id) FROM ${table} WHERE snapshot_id = '${id}'`),
  );
  return new Map(
    keys.map(({ key }, i) => [
      key,
      (found[i] ?? [])
        .map((r) => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)))
        .sort(),
    ]),
  );
}

describe('shared row sets', () => {
  it('stores an unchanged night once: the second load adds mappings, no rows, and the same rows appear under its id', async () => {
    const db = await copyDatabase(secondLoaded, path.join(work.dir, 'unchanged.duckdb'));
    const day2 = await nextNight(FIXTURES.second, '20260316T060000Z-day2');
    const before = await counts(db);
    await loadSnapshots(db, [day2]);
    const after = await counts(db);
    const written = Object.entries(before).filter(([, c]) => c.seen > 0);
    expect(written.length).toBeGreaterThan(15);
    const both = await rowsOfEach(
      db,
      written.map(([table]) => table),
      '20260316T060000Z-day2',
      '20260315T060000Z-second',
    );
    for (const [table, { stored, seen }] of written) {
      // Every row the first night stored is the second night's too: stored once, seen twice.
      expect(after[table], table).toEqual({ stored, seen: seen * 2 });
      expect(readRows(both, `${table} 20260316T060000Z-day2`), table).toEqual(
        readRows(both, `${table} 20260315T060000Z-second`),
      );
    }
    // One mapping per table, project and assessment or job: the distinct values of those of the
    // columns project_id, project_key, assessment_id, evaluation_id the table has (none: one group).
    const groups = await rows(
      db,
      SHARED_TABLES.filter((t) => written.some(([name]) => name === t.name))
        .map((t) => {
          // The project's top findings are its summary's rows, an assessment's top findings that
          // assessment's (assessment-memo.ts), finding details their files': row sets apart.
          const owners = ['project_id', 'project_key', 'assessment_id', 'evaluation_id']
            .filter((name) => t.columns.some((c) => c.name === name))
            .concat(t.name === 'findings' ? ['origin'] : []);
          return owners.length > 0
            ? `SELECT count(*) AS n FROM (SELECT DISTINCT ${owners.join(', ')} FROM ${t.name} WHERE snapshot_id = '20260316T060000Z-day2')`
            : `SELECT 1 AS n`;
        })
        .join(' UNION ALL '),
    );
    expect(groups.length).toBe(written.length);
    expect(
      await rows(
        db,
        `SELECT count(*) AS n FROM snapshot_row_sets WHERE snapshot_id = '20260316T060000Z-day2'`,
      ),
    ).toEqual([{ n: groups.reduce((sum, g) => sum + Number(g.n), 0) }]);
  });

  it('does not parse a night whose files all equal a loaded one: the rows are those a full read gives', async () => {
    const db = await copyDatabase(secondLoaded, path.join(work.dir, 'twin.duckdb'));
    const day2 = await nextNight(FIXTURES.second, '20260316T060000Z-twin');
    const events: LoadProgress[] = [];
    const [loaded] = (await loadSnapshots(db, [day2], { onProgress: (e) => events.push(e) })).snapshots;
    expect(events.filter((e) => e.type === 'same_inputs')).toEqual([
      { type: 'same_inputs', snapshotId: '20260316T060000Z-twin', twin: '20260315T060000Z-second' },
    ]);
    expect(events.some((e) => e.type === 'trials')).toBe(false);
    // Independently: the same snapshot read file by file into a database of its own.
    const alone = path.join(work.dir, 'twin-alone.duckdb');
    const [read] = (await loadSnapshots(alone, [day2])).snapshots;
    expect(loaded?.rows).toEqual(read?.rows);
    expect(loaded?.warnings).toBe(read?.warnings);
    const tables = [...SHARED_TABLES.map((t) => t.name), 'trials', 'message_parts', 'trial_tool_calls'];
    const [inDb, inAlone] = await Promise.all(
      [db, alone].map((d) => rowsOfEach(d, tables, '20260316T060000Z-twin')),
    );
    for (const table of tables) expect(readRows(inDb!, table), table).toEqual(readRows(inAlone!, table));
    // A third night with a changed file is read again.
    const day3 = await nextNight(FIXTURES.second, '20260317T060000Z-changed', async (dir) => {
      const file = path.join(dir, 'findings/f0000000-0000-4000-8000-000000001001.json');
      const body = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
      await writeFile(file, JSON.stringify({ ...body, notes: 'changed' }));
    });
    const later: LoadProgress[] = [];
    await loadSnapshots(db, [day3], { onProgress: (e) => later.push(e) });
    expect(later.some((e) => e.type === 'same_inputs')).toBe(false);
  });

  it('stores again only the rows of the tables and projects that changed', async () => {
    const db = await copyDatabase(secondLoaded, path.join(work.dir, 'changed.duckdb'));
    const finding = 'findings/f0000000-0000-4000-8000-000000001001.json';
    const day2 = await nextNight(FIXTURES.second, '20260316T060000Z-triaged', async (dir) => {
      const body = JSON.parse(await readFile(path.join(dir, finding), 'utf8')) as Record<string, unknown>;
      await writeFile(path.join(dir, finding), JSON.stringify({ ...body, notes: 'triaged overnight' }));
    });
    const before = await counts(db);
    await loadSnapshots(db, [day2]);
    const after = await counts(db);
    // The changed finding's project and assessment: only their finding-detail rows are stored again
    // (row sets per project and assessment; a summary's rows are row sets of their own).
    const [{ n: changedFindings }] = (await rows(
      db,
      `SELECT count(*) AS n FROM findings f WHERE snapshot_id = '20260316T060000Z-triaged' AND EXISTS (
         SELECT 1 FROM findings c WHERE c.snapshot_id = f.snapshot_id AND c.attack_run_id = 'f0000000-0000-4000-8000-000000001001'
           AND c.origin = 'finding_detail' AND f.origin = c.origin AND c.project_key IS NOT DISTINCT FROM f.project_key
           AND c.project_id IS NOT DISTINCT FROM f.project_id AND c.assessment_id IS NOT DISTINCT FROM f.assessment_id)`,
    )) as [{ n: number }];
    expect(Number(changedFindings)).toBeGreaterThan(0);
    expect(Number(changedFindings)).toBeLessThan(before.findings!.stored);
    for (const [table, { stored, seen }] of Object.entries(before)) {
      // snapshot_files holds the changed file's new sha256 (no project: one group); the rest is shared.
      const again = table === 'findings' ? Number(changedFindings) : table === 'snapshot_files' ? stored : 0;
      expect(after[table], table).toEqual({ stored: stored + again, seen: seen * 2 });
    }
    expect(
      await rows(
        db,
        `SELECT snapshot_id, notes FROM findings WHERE origin = 'finding_detail' AND attack_run_id = 'f0000000-0000-4000-8000-000000001001' ORDER BY 1`,
      ),
    ).toEqual([
      {
        snapshot_id: '20260315T060000Z-second',
        notes: expect.not.stringContaining('triaged overnight') as unknown,
      },
      { snapshot_id: '20260316T060000Z-triaged', notes: 'triaged overnight' },
    ]);
  });

  it('retention keeps a row set while any kept snapshot maps it, and deletes it after', async () => {
    const db = path.join(work.dir, 'retention.duckdb');
    const day2 = await nextNight(FIXTURES.second, '20260316T060000Z-kept');
    await loadSnapshots(db, [FIXTURES.first, FIXTURES.second, day2]);
    const whole = await counts(db);
    await pruneWarehouse(db, {
      org: 'acme',
      workspace: 'main',
      keep: ['20260316T060000Z-kept'],
      reason: { run: 'test-run', keepLast: 1 },
    });
    const pruned = await counts(db);
    for (const [table, { seen }] of Object.entries(pruned)) {
      // Nothing stored that no snapshot maps: what is stored is exactly what the kept night shows.
      expect(pruned[table]?.stored, table).toBe(seen);
    }
    expect(pruned.findings?.seen).toBeGreaterThan(0);
    expect(pruned.findings?.seen).toBeLessThan(whole.findings?.seen ?? 0);
    expect(await rowsOf(db, 'assessments', '20260316T060000Z-kept')).toHaveLength(
      Number((await rows(db, `SELECT count(*) AS n FROM assessments`))[0]?.n),
    );
  });

  it('upgrades a version 10 database without losing or changing a row', async () => {
    const db = path.join(work.dir, 'v10.duckdb');
    await loadSnapshots(db, [FIXTURES.first, FIXTURES.second, FIXTURES.partial]);
    await execute(db, toVersion10Statements());
    // Every shared table's rows as JSON lines, in a stable order (read on one connection).
    const plain = async (): Promise<Map<string, string[]>> => {
      const each = await executeEach(
        db,
        SHARED_TABLES.map((t) => `SELECT * FROM ${t.name}`),
      );
      return new Map(
        SHARED_TABLES.map((t, i) => [t.name, (each[i] ?? []).map((r) => JSON.stringify(r)).sort()]),
      );
    };
    const before = await plain();
    const kind = `SELECT table_type FROM information_schema.tables WHERE table_name = 'findings'`;
    expect(await execute(db, [kind])).toEqual([{ table_type: 'BASE TABLE' }]);
    // Loading a snapshot upgrades the database (version 11) before it loads.
    const day2 = await nextNight(FIXTURES.second, '20260316T060000Z-after-upgrade');
    await loadSnapshots(db, [day2]);
    const after = await plain();
    for (const table of SHARED_TABLES) {
      const found = after.get(table.name)?.filter((r) => !r.includes('20260316T060000Z-after-upgrade'));
      expect(found, table.name).toEqual(before.get(table.name));
    }
    expect(await execute(db, [kind])).toEqual([{ table_type: 'VIEW' }]);
  });
});

/** Reseals a snapshot copy whose files now list these many records (the manifest's counts), by path. */
async function recordsListed(dir: string, records: Readonly<Record<string, number>>): Promise<void> {
  await reseal(dir, (m) => {
    for (const f of m.files) f.records = records[f.path] ?? f.records;
  });
}

const PAYMENTS_BOT_SUMMARY = 'projects/payments-bot/summary.json';

/** Edits one project summary of a snapshot copy: a field of its first assessment. */
async function editSummary(dir: string, project: string, notes: string): Promise<void> {
  await editAssessments(path.join(dir, 'projects', project, 'summary.json'), ([first, ...rest]) => [
    { ...first, name: notes },
    ...rest,
  ]);
}

/** Loads `dir` into `db` and returns the progress events of one type (what memos stood for). */
async function loadReporting(db: string, dir: string, type: LoadProgress['type']): Promise<LoadProgress[]> {
  const events: LoadProgress[] = [];
  await loadSnapshots(db, [dir], { onProgress: (e) => events.push(e) });
  return events.filter((e) => e.type === type);
}

/**
 * Checks that every table holds for snapshot `id` in `db` the rows a full read of `dir` alone gives;
 * returns that read's result.
 */
async function expectAsFullRead(db: string, dir: string, id: string, name: string): Promise<unknown> {
  const alone = await fullRead(dir, name);
  const [inDb, inAlone] = await Promise.all([db, alone.db].map((d) => rowsOfEach(d, EVERY_TABLE(), id)));
  for (const table of EVERY_TABLE()) expect(readRows(inDb!, table), table).toEqual(readRows(inAlone!, table));
  return alone.result;
}

/** Every table of one snapshot as a full read of `dir` alone into a new database gives it. */
async function fullRead(dir: string, name: string): Promise<{ db: string; result: unknown }> {
  const db = path.join(work.dir, `${name}-alone.duckdb`);
  const [result] = (await loadSnapshots(db, [dir])).snapshots;
  return { db, result };
}

const EVERY_TABLE = () => [
  ...SHARED_TABLES.map((t) => t.name),
  'trials',
  'message_parts',
  'trial_tool_calls',
];

/**
 * A night on which the service lists something new ahead of what it listed before (assessments and
 * evaluation jobs come newest first): only the new item's rows are stored; the others keep their
 * stored rows though their position (ordinal, page) moved.
 */
describe('a night that lists a new assessment or job ahead of the earlier ones', () => {
  const NEW_ASSESSMENT = 'a0000000-0000-4000-8000-0000000000aa';
  const NEW_JOB = '5f1c2a9e-8b3d-4c7a-9e21-0a6b7c8d9eaa';

  /** payments-bot's first assessment again under new ids, listed first (its runs renamed with it). */
  async function addAssessment(dir: string): Promise<void> {
    await editAssessments(path.join(dir, 'projects', 'payments-bot', 'summary.json'), (list) => {
      const first = list[0] as { attack_runs: Record<string, unknown>[] };
      const runs = first.attack_runs.map((run, i) => ({
        ...run,
        id: `f0000000-0000-4000-8000-0000000000a${i}`,
        assessment_id: NEW_ASSESSMENT,
      }));
      return [{ ...first, id: NEW_ASSESSMENT, name: 'added overnight', attack_runs: runs }, ...list];
    });
  }

  /**
   * A new job first on page 1: every earlier job moves one place on (page 1's last to page 2), its
   * bytes as they were (as a service lists a job that did not change).
   */
  async function addJob(dir: string): Promise<number> {
    const pages = ['page-0001.json', 'page-0002.json'].map((p) => path.join(dir, 'evaluations', p));
    let secondPage = 0;
    await editEvaluationPages(pages, ([one = [], two = []]) => {
      const jobs = [{ ...one[0], id: NEW_JOB, name: 'queued overnight' }, ...one, ...two];
      secondPage = jobs.length - 2;
      return { pages: [jobs.slice(0, 2), jobs.slice(2)], total: jobs.length };
    });
    return secondPage;
  }

  it("stores the new assessment's and job's rows only, and reads every row as a full read gives it", async () => {
    const db = await copyDatabase(secondLoaded, path.join(work.dir, 'ahead.duckdb'));
    const id = '20260316T060000Z-ahead';
    let secondPage = 0;
    const day2 = await nextNight(FIXTURES.second, id, async (dir) => {
      await addAssessment(dir);
      secondPage = await addJob(dir);
    });
    // The manifest counts what the edited files now hold.
    await recordsListed(day2, { 'evaluations/page-0002.json': secondPage, [PAYMENTS_BOT_SUMMARY]: 4 });
    const before = await counts(db);
    const events: LoadProgress[] = [];
    await loadSnapshots(db, [day2], { onProgress: (e) => events.push(e) });
    const after = await counts(db);
    // payments-bot's summary changed: of its four assessments, the three the database built before
    // are taken from their memos and only the new one is built (support-agent's unchanged summary
    // comes from its memo).
    // Every job moved on (one from page 1 to page 2): the three listed before are taken from their
    // memos and the new one is built (the fixture's repeat of a job on page 2 is skipped, unkeyed).
    expect(events.filter((e) => e.type.endsWith('_reused'))).toEqual([
      { type: 'summaries_reused', snapshotId: id, reused: 1, summaries: 2 },
      { type: 'assessments_reused', snapshotId: id, reused: 3, assessments: 4 },
      { type: 'evaluation_jobs_reused', snapshotId: id, reused: 3, jobs: 4 },
    ]);
    const added = async (table: string, where: string): Promise<number> =>
      Number(
        (await rows(db, `SELECT count(*) AS n FROM ${table} WHERE snapshot_id = '${id}' AND ${where}`))[0]?.n,
      );
    for (const table of SHARED_TABLES) {
      const has = (column: string): boolean => table.columns.some((c) => c.name === column);
      const again = has('assessment_id')
        ? await added(table.name, `assessment_id = '${NEW_ASSESSMENT}'`)
        : has('evaluation_id')
          ? await added(table.name, `evaluation_id = '${NEW_JOB}'`)
          : // One group each, whose rows name files and JSON paths that changed: stored again whole.
            table.name === 'snapshot_files' || table.name === 'load_warnings'
            ? (after[table.name]?.seen ?? 0) - (before[table.name]?.seen ?? 0)
            : 0;
      expect(after[table.name]?.stored, table.name).toBe((before[table.name]?.stored ?? 0) + again);
    }
    // The new items have rows; the earlier ones moved, in the rows as a full read gives them.
    expect(await added('assessments', `assessment_id = '${NEW_ASSESSMENT}' AND ordinal = 0`)).toBe(1);
    expect(await added('findings', `assessment_id = '${NEW_ASSESSMENT}'`)).toBeGreaterThan(0);
    expect(await added('evaluation_jobs', `evaluation_id = '${NEW_JOB}' AND ordinal = 0 AND page = 1`)).toBe(
      1,
    );
    await expectAsFullRead(db, day2, id, 'ahead');
    // Every assessment top finding names its assessment (it is grouped with it).
    expect(
      await rows(
        db,
        `SELECT count(*) AS n FROM findings WHERE origin = 'assessment_top_finding' AND assessment_id IS NULL`,
      ),
    ).toEqual([{ n: 0 }]);
  });

  it('builds again an assessment that raised a warning (its JSON path moves with it), as a full read does', async () => {
    const db = await copyDatabase(secondLoaded, path.join(work.dir, 'warned.duckdb'));
    const spoil = async (dir: string): Promise<void> => {
      await editAssessments(path.join(dir, 'projects', 'payments-bot', 'summary.json'), (list) =>
        list.map((a, i) => (i === 1 ? { ...a, reports: 'not a list' } : a)),
      );
    };
    const reused = (dir: string): Promise<LoadProgress[]> => loadReporting(db, dir, 'assessments_reused');
    const nightA = await nextNight(FIXTURES.second, '20260316T060000Z-warned', spoil);
    expect(await reused(nightA)).toEqual([
      { type: 'assessments_reused', snapshotId: '20260316T060000Z-warned', reused: 2, assessments: 3 },
    ]);
    const id = '20260317T060000Z-warned-moved';
    const nightB = await nextNight(FIXTURES.second, id, async (dir) => {
      await spoil(dir);
      await addAssessment(dir);
    });
    await recordsListed(nightB, { [PAYMENTS_BOT_SUMMARY]: 4 });
    // The warned assessment has no memo: built again, its warning naming $.assessments[2] now.
    expect(await reused(nightB)).toEqual([
      { type: 'assessments_reused', snapshotId: id, reused: 2, assessments: 4 },
    ]);
    expect(
      await rows(
        db,
        `SELECT message FROM load_warnings WHERE snapshot_id = '${id}' AND code = 'type_mismatch'`,
      ),
    ).toEqual([{ message: expect.stringContaining('$.assessments[2].reports') as unknown }]);
    await expectAsFullRead(db, nightB, id, 'warned-moved');
  });

  it('builds again a job that raised a warning (its JSON path moves with it), as a full read does', async () => {
    const db = await copyDatabase(secondLoaded, path.join(work.dir, 'job-warned.duckdb'));
    const pages = (dir: string): string[] =>
      ['page-0001.json', 'page-0002.json'].map((p) => path.join(dir, 'evaluations', p));
    // The second job's item count is not a number: a warning naming $.items[1].item_counts.
    const spoil = async (dir: string): Promise<void> =>
      editEvaluationPages(pages(dir), ([one = [], two = []]) => ({
        pages: [
          one.map((job, i) => (i === 1 ? { ...job, item_counts: { agent_finished: 'many' } } : job)),
          two,
        ],
        total: 3,
      }));
    const reused = (dir: string): Promise<LoadProgress[]> => loadReporting(db, dir, 'evaluation_jobs_reused');
    const nightA = await nextNight(FIXTURES.second, '20260316T060000Z-job-warned', spoil);
    expect(await reused(nightA)).toEqual([
      { type: 'evaluation_jobs_reused', snapshotId: '20260316T060000Z-job-warned', reused: 2, jobs: 3 },
    ]);
    const id = '20260317T060000Z-job-warned-moved';
    let secondPage = 0;
    const nightB = await nextNight(FIXTURES.second, id, async (dir) => {
      await spoil(dir);
      secondPage = await addJob(dir);
    });
    await recordsListed(nightB, { 'evaluations/page-0002.json': secondPage });
    // The warned job has no memo: built again, its warning naming its place on page 2 now.
    expect(await reused(nightB)).toEqual([
      { type: 'evaluation_jobs_reused', snapshotId: id, reused: 2, jobs: 4 },
    ]);
    expect(
      await rows(
        db,
        `SELECT file, message FROM load_warnings WHERE snapshot_id = '${id}' AND code = 'type_mismatch'`,
      ),
    ).toEqual([
      {
        file: 'evaluations/page-0002.json',
        message: '$.items[0].item_counts.agent_finished is not BIGINT; kept in extra',
      },
    ]);
    await expectAsFullRead(db, nightB, id, 'job-warned-moved');
  });

  it('builds again a job listed again after retention deleted its rows (its memo went with them)', async () => {
    const db = path.join(work.dir, 'job-retention.duckdb');
    const pages = (dir: string): string[] =>
      ['page-0001.json', 'page-0002.json'].map((p) => path.join(dir, 'evaluations', p));
    const FIRST_JOB = 'd0000000-0000-4000-8000-000000000001';
    // A night without the first job; only it is kept, so the first job's rows (and memo) go.
    const without = await nextNight(FIXTURES.second, '20260316T060000Z-job-gone', (dir) =>
      editEvaluationPages(pages(dir), ([one = [], two = []]) => ({
        pages: [one.filter((job) => job.id !== FIRST_JOB), two],
        total: 2,
      })),
    );
    await recordsListed(without, { 'evaluations/page-0001.json': 1 });
    await loadSnapshots(db, [FIXTURES.second, without]);
    await pruneWarehouse(db, {
      org: 'acme',
      workspace: 'main',
      keep: ['20260316T060000Z-job-gone'],
      reason: { run: 'test-run', keepLast: 1 },
    });
    expect(
      await rows(db, `SELECT count(*) AS n FROM stored_evaluation_jobs WHERE evaluation_id = '${FIRST_JOB}'`),
    ).toEqual([{ n: 0 }]);
    // second's pages again: the first job is built, the others are taken from their memos.
    const id = '20260317T060000Z-job-back';
    const back = await nextNight(FIXTURES.second, id);
    const events: LoadProgress[] = [];
    await loadSnapshots(db, [back], { onProgress: (e) => events.push(e) });
    expect(events.filter((e) => e.type === 'evaluation_jobs_reused')).toEqual([
      { type: 'evaluation_jobs_reused', snapshotId: id, reused: 2, jobs: 3 },
    ]);
    expect(
      await rows(
        db,
        `SELECT count(*) AS n FROM evaluation_jobs WHERE snapshot_id = '${id}' AND evaluation_id = '${FIRST_JOB}'`,
      ),
    ).toEqual([{ n: 1 }]);
    await expectAsFullRead(db, back, id, 'job-back');
  });
});

describe('assessments that share an id', () => {
  it('are built, not taken from memos (they are no row set of their own); the rows are those a full read gives', async () => {
    const db = await copyDatabase(secondLoaded, path.join(work.dir, 'shared-id.duckdb'));
    const summary = (dir: string): string => path.join(dir, 'projects', 'payments-bot', 'summary.json');
    // payments-bot lists its second assessment twice (the copy renamed), then renames its first.
    const twice = (list: Record<string, unknown>[]): Record<string, unknown>[] => [
      ...list,
      { ...list[1], name: 'listed twice' },
    ];
    const reused = async (dir: string): Promise<LoadProgress[]> => {
      await recordsListed(dir, { [PAYMENTS_BOT_SUMMARY]: 4 });
      const events: LoadProgress[] = [];
      await loadSnapshots(db, [dir], { onProgress: (e) => events.push(e) });
      return events.filter((e) => e.type === 'assessments_reused');
    };
    const nightA = await nextNight(FIXTURES.second, '20260316T060000Z-shared-id', (dir) =>
      editAssessments(summary(dir), twice),
    );
    expect(await reused(nightA)).toEqual([
      { type: 'assessments_reused', snapshotId: '20260316T060000Z-shared-id', reused: 2, assessments: 4 },
    ]);
    const id = '20260317T060000Z-shared-id-renamed';
    const nightB = await nextNight(FIXTURES.second, id, (dir) =>
      editAssessments(summary(dir), (list) => twice([{ ...list[0], name: 'renamed' }, ...list.slice(1)])),
    );
    expect(await reused(nightB)).toEqual([
      { type: 'assessments_reused', snapshotId: id, reused: 1, assessments: 4 },
    ]);
    await expectAsFullRead(db, nightB, id, 'shared-id');
  });
});

describe('a changed summary that is not JSON', () => {
  it('is refused with the line of the fault, inside a new assessment or around the ones taken from memos', async () => {
    const db = await copyDatabase(secondLoaded, path.join(work.dir, 'malformed.duckdb'));
    const before = await tableCounts(db);
    const faults = [
      // In the first assessment (a new one: no memo has its bytes).
      (text: string) => text.replace('"description": ', '"description": {,'),
      // Outside the assessments, whose bytes the memos hold.
      (text: string) => text.replace('"assessments_by_status": {', '"assessments_by_status": {,'),
    ];
    for (const [i, fault] of faults.entries()) {
      const file = path.join('projects', 'payments-bot', 'summary.json');
      let line = 0;
      const night = await nextNight(FIXTURES.second, `20260316T06000${i}Z-malformed`, async (dir) => {
        const text = await readFile(path.join(dir, file), 'utf8');
        const spoiled = fault(text);
        line = spoiled.split('\n').findIndex((l, n) => l !== text.split('\n')[n]) + 1;
        await writeFile(path.join(dir, file), spoiled);
      });
      const error = await loadSnapshots(db, [night]).then(
        () => new Error('loaded'),
        (e: unknown) => e as Error,
      );
      expect(error.message).toMatch(/Malformed JSON in .*projects\/payments-bot\/summary\.json at line \d+/);
      expect(error.message).toContain(`line ${line},`);
      expect(await tableCounts(db)).toEqual(before);
    }
  });
});

describe('evaluation pages at fault', () => {
  it('fail the load at the first page at fault, in page order, and leave the database as it was', async () => {
    const db = await copyDatabase(secondLoaded, path.join(work.dir, 'pages-at-fault.duckdb'));
    const before = await tableCounts(db);
    const loaded = (night: string): Promise<Error> =>
      loadSnapshots(db, [night]).then(
        () => new Error('loaded'),
        (e: unknown) => e as Error,
      );
    const spoilSecond = (dir: string): Promise<void> =>
      writeFile(path.join(dir, 'evaluations', 'page-0002.json'), '{"items": [\n  oops\n]}\n');
    // Page 2 is not JSON: the load says where.
    const malformed = await nextNight(FIXTURES.second, '20260316T060000Z-page-malformed', spoilSecond);
    expect((await loaded(malformed)).message).toMatch(/Malformed JSON in .*evaluations\/page-0002\.json/);
    // Page 1 also holds fewer jobs than the manifest counts: page 1's fault is the one reported, as
    // when the pages were read one by one (they are read ahead in batches now).
    const both = await nextNight(FIXTURES.second, '20260317T060000Z-pages-at-fault', spoilSecond);
    await recordsListed(both, { 'evaluations/page-0001.json': 9 });
    expect((await loaded(both)).message).toMatch(
      /evaluations\/page-0001\.json: the manifest records 9 items but 2 were loaded/,
    );
    expect(await tableCounts(db)).toEqual(before);
  });
});

describe('a project summary loaded before (summary memos)', () => {
  it('is not parsed again when its bytes are unchanged and another project changed: the rows are those a full read gives', async () => {
    const db = await copyDatabase(secondLoaded, path.join(work.dir, 'memo.duckdb'));
    const id = '20260316T060000Z-one-changed';
    const day2 = await nextNight(FIXTURES.second, id, (dir) =>
      editSummary(dir, 'payments-bot', 'renamed overnight'),
    );
    const events: LoadProgress[] = [];
    const [loaded] = (await loadSnapshots(db, [day2], { onProgress: (e) => events.push(e) })).snapshots;
    // support-agent's summary is the one the database holds: taken from its memo; payments-bot's is read.
    expect(events.filter((e) => e.type === 'summaries_reused')).toEqual([
      { type: 'summaries_reused', snapshotId: id, reused: 1, summaries: 2 },
    ]);
    const alone = (await expectAsFullRead(db, day2, id, 'memo')) as typeof loaded;
    expect(loaded?.rows).toEqual(alone?.rows);
    expect(loaded?.warnings).toBe(alone?.warnings);
    expect(
      await rows(
        db,
        `SELECT assessment_name FROM findings WHERE snapshot_id = '${id}' AND project_key = 'payments-bot' LIMIT 1`,
      ),
    ).toHaveLength(1);
  });

  it('is read again, whole, once retention deleted the rows its memo names', async () => {
    const db = path.join(work.dir, 'memo-retention.duckdb');
    // second's summaries (memos), then a night with both changed, keeping only that night.
    const changed = await nextNight(FIXTURES.second, '20260316T060000Z-both-changed', async (dir) => {
      await editSummary(dir, 'payments-bot', 'changed');
      await editSummary(dir, 'support-agent', 'changed');
    });
    await loadSnapshots(db, [FIXTURES.second, changed]);
    await pruneWarehouse(db, {
      org: 'acme',
      workspace: 'main',
      keep: ['20260316T060000Z-both-changed'],
      reason: { run: 'test-run', keepLast: 1 },
    });
    // Retention leaves no memo naming a row set no snapshot maps.
    expect(
      await rows(
        db,
        `SELECT count(*) AS n FROM summary_memo_row_sets r WHERE r.relation <> '@memo' AND NOT EXISTS (
           SELECT 1 FROM snapshot_row_sets m WHERE m.relation = r.relation AND m.row_set = r.row_set)`,
      ),
    ).toEqual([{ n: 0 }]);
    // Nor a summary's memo naming an assessment memo that went.
    expect(
      await rows(
        db,
        `SELECT count(*) AS n FROM summary_memo_row_sets r WHERE r.relation = '@memo'
           AND r.row_set NOT IN (SELECT memo_key FROM summary_memos)`,
      ),
    ).toEqual([{ n: 0 }]);
    expect(
      await rows(
        db,
        `SELECT count(*) AS n FROM summary_memos WHERE memo_key NOT IN (SELECT memo_key FROM summary_memo_row_sets)`,
      ),
    ).toEqual([{ n: 0 }]);
    // second's bytes again: their memos went with their rows, so both summaries are read.
    const id = '20260317T060000Z-back';
    const back = await nextNight(FIXTURES.second, id);
    const events: LoadProgress[] = [];
    await loadSnapshots(db, [back], { onProgress: (e) => events.push(e) });
    expect(events.some((e) => e.type === 'summaries_reused')).toBe(false);
    await expectAsFullRead(db, back, id, 'memo-back');
  });

  it('is read again when an assessment memo its memo names is gone: that assessment is built again, as a full read gives it', async () => {
    const db = await copyDatabase(secondLoaded, path.join(work.dir, 'memo-named-gone.duckdb'));
    const [gone] = await execute(db, [
      `CREATE TEMP TABLE gone AS SELECT r.row_set AS memo_key FROM summary_memo_row_sets r
         JOIN summary_memos m ON m.memo_key = r.memo_key
         WHERE r.relation = '@memo' AND json_extract_string(m.memo, '$.scope.project_key') = 'support-agent'
         ORDER BY r.ordinal LIMIT 1`,
      'DELETE FROM summary_memos WHERE memo_key IN (SELECT memo_key FROM gone)',
      'SELECT count(*) AS n FROM gone',
    ]);
    expect(Number(gone?.n)).toBe(1);
    const id = '20260316T060000Z-named-memo-gone';
    const day2 = await nextNight(FIXTURES.second, id, (dir) => editSummary(dir, 'payments-bot', 'changed'));
    const events: LoadProgress[] = [];
    await loadSnapshots(db, [day2], { onProgress: (e) => events.push(e) });
    // support-agent's summary memo is not usable without it: the summary is read, its other
    // assessments taken from their memos. Built: that one, and payments-bot's edited one.
    expect(events.some((e) => e.type === 'summaries_reused')).toBe(false);
    const reused = events.find((e) => e.type === 'assessments_reused');
    expect(reused && reused.type === 'assessments_reused' && reused.assessments - reused.reused).toBe(2);
    await expectAsFullRead(db, day2, id, 'memo-named-gone');
  });

  it('is read again when the same bytes stand for another manifest entry (the key covers the entry)', async () => {
    const db = await copyDatabase(secondLoaded, path.join(work.dir, 'memo-entry.duckdb'));
    const id = '20260316T060000Z-entry-changed';
    const day2 = await nextNight(FIXTURES.second, id, async (dir) => {
      await editSummary(dir, 'payments-bot', 'changed');
      // The manifest now says support-agent's fetch failed: its rows say so (manifest_status).
      const file = path.join(dir, 'manifest.json');
      const manifest = JSON.parse(await readFile(file, 'utf8')) as Manifest;
      for (const p of manifest.projects) if (p.key === 'support-agent') p.status = 'failed';
      await writeFile(file, JSON.stringify(manifest));
    });
    const events: LoadProgress[] = [];
    await loadSnapshots(db, [day2], { onProgress: (e) => events.push(e) });
    expect(events.some((e) => e.type === 'summaries_reused')).toBe(false);
    expect(
      await rows(db, `SELECT manifest_status FROM projects WHERE snapshot_id = '${id}' ORDER BY 1`),
    ).toEqual([{ manifest_status: 'failed' }, { manifest_status: 'ok' }]);
  });
});

describe('the memo key of an assessment of a changed summary', () => {
  const scope = { snapshot_id: 's', project_id: 'p', project_key: 'k' };
  const item = '{"id": "a1", "name": "one", "asr": 0.5}';

  it('is a key of its bytes, the project and the file (not of its place in the list)', () => {
    const key = assessmentMemoKey(item, scope, 'projects/k/summary.json');
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(assessmentMemoKey(item, { ...scope, snapshot_id: 'later' }, 'projects/k/summary.json')).toBe(key);
    for (const other of [
      assessmentMemoKey(item.replace('one', 'changed'), scope, 'projects/k/summary.json'),
      assessmentMemoKey(item, { ...scope, project_key: 'other' }, 'projects/k/summary.json'),
      assessmentMemoKey(item, { ...scope, project_id: 'other' }, 'projects/k/summary.json'),
      assessmentMemoKey(item, scope, 'projects/other/summary.json'),
    ])
      expect(other).not.toBe(key);
  });

  it('tells apart what JSON.stringify writes alike (-0 and 0)', () => {
    expect(assessmentMemoKey('{"id":"a","asr":-0}', scope, 'f')).not.toBe(
      assessmentMemoKey('{"id":"a","asr":0}', scope, 'f'),
    );
  });
});

describe('a verification handed to the load (a run verifies, then loads)', () => {
  it('is used while the manifest is the one verified, and made again when it changed', async () => {
    const db = path.join(work.dir, 'handed.duckdb');
    const dir = await nextNight(FIXTURES.first, '20260302T060000Z-handed');
    const verified = new Map([[dir, await verifySnapshot(dir)]]);
    const events: LoadProgress[] = [];
    await loadSnapshots(db, [dir], { verified, onProgress: (e) => events.push(e) });
    const verify = events.find((e) => e.type === 'verify');
    expect(verify).toMatchObject({ files: 8, reused: 8 });
    // The same directory re-sealed under another id after its verification: verified again.
    const other = await nextNight(FIXTURES.second, '20260316T060000Z-resealed');
    const stale = new Map([[other, await verifySnapshot(dir)]]);
    const again: LoadProgress[] = [];
    const [loaded] = (await loadSnapshots(db, [other], { verified: stale, onProgress: (e) => again.push(e) }))
      .snapshots;
    // Read again: every file but the trial files whose content the database holds (not hashed).
    const reverified = again.find((e) => e.type === 'verify');
    expect(reverified?.type === 'verify' && reverified.reused < reverified.files).toBe(true);
    expect(loaded).toMatchObject({ snapshotId: '20260316T060000Z-resealed', verified: true });
  });
});

describe('trial files whose content the database holds', () => {
  it('are not hashed by the load (their bytes are never read); verify still checks them', async () => {
    const db = path.join(work.dir, 'held.duckdb');
    await loadSnapshots(db, [FIXTURES.first]);
    const dir = await nextNight(FIXTURES.first, '20260302T060000Z-held');
    const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
    const trialFiles = manifest.files.filter((f) => f.kind === 'trials');
    // Damage one trial file after its snapshot was sealed, keeping its size (bit rot on disk).
    const damaged = path.join(dir, trialFiles[0]!.path);
    const bytes = await readFile(damaged);
    bytes[bytes.length - 2] = bytes[bytes.length - 2] === 0x20 ? 0x09 : 0x20;
    await writeFile(damaged, bytes);
    const events: LoadProgress[] = [];
    const [loaded] = (await loadSnapshots(db, [dir], { onProgress: (e) => events.push(e) })).snapshots;
    const verify = events.find((e) => e.type === 'verify');
    expect(verify?.type === 'verify' && verify.reused).toBe(trialFiles.length);
    // The rows are those of the listed sha256, stored when first read: identical to the first night's.
    expect(loaded).toMatchObject({ outcome: 'loaded', verified: true });
    expect(await rowsOf(db, 'trials', '20260302T060000Z-held')).toEqual(
      await rowsOf(db, 'trials', '20260301T060000Z-first'),
    );
    const check = await verifySnapshot(dir);
    expect(check.modified.map((m) => m.path)).toEqual([trialFiles[0]!.path]);
  });
});

describe('the key of a row set', () => {
  const table = SHARED_TABLES.find((t) => t.name === 'asr_breakdown')!;

  it('is the sha256 of the table name, a newline and the rows as JSON', () => {
    const rows = [
      ['a', 1.5, null, true, ['x', 'y']],
      ['b\u0000"', 0, 7, false, []],
    ];
    const expected = createHash('sha256')
      .update(`asr_breakdown\n${JSON.stringify(rows)}`)
      .digest('hex');
    expect(rowSetKey(table, rows)).toBe(expected);
  });

  it('tells apart numbers JSON writes alike: -0 from 0, NaN and the infinities from null', () => {
    const keys = [
      [0],
      [-0],
      [null],
      [Number.NaN],
      [Number.POSITIVE_INFINITY],
      [Number.NEGATIVE_INFINITY],
    ].map((row) => rowSetKey(table, [['same', ...row]]));
    expect(new Set(keys).size).toBe(keys.length);
  });
});
