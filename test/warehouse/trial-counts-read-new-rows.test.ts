/**
 * Issue 14: a night's load costs what changed, not what is stored. After a night's new trial files are
 * inserted, their counts (trials, tool calls, parts: what the load checks against the manifest) are
 * recorded from their rows. Those rows were found by content key, so DuckDB read every trial row ever
 * stored to find them: on the large preset after 30 nights that read took 70 ms of a changed night's
 * ~1.2 s, and grew with every night. Now the statement reads the rows this load inserted only.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction, openWarehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { loadTrialFiles, type TrialFile } from '../../src/warehouse/trial-loader.js';
import { FIXTURES, tempDir, type ProfileNode } from './helpers.js';

const TRIAL_FILE = 'trials/a0000000-0000-4000-8000-000000000001.json';
const TRIALS_IN_FILE = 7;
/** How many times the database already stores the fixture's trials (each under its own content key). */
const COPIES = 2000;
/** Tonight's two new contents. */
const TONIGHT = ['3-tonight', 'c-tonight'] as const;

/** Rows each scan of trial_content produced, from DuckDB's JSON profile of one statement. */
function trialContentScans(node: ProfileNode): number[] {
  const own =
    node.operator_name?.includes('SCAN') && node.extra_info?.Table?.endsWith('trial_content')
      ? [node.operator_cardinality ?? 0]
      : [];
  return [...own, ...(node.children ?? []).flatMap(trialContentScans)];
}

/**
 * `conn`, with DuckDB's profiler on for the statement that records the new contents' counts: the
 * loader's own statements run unchanged, this one's profile is written to `profileFile`.
 */
function profilingRecord(conn: DuckDBConnection, profileFile: string): DuckDBConnection {
  return new Proxy(conn, {
    get(target, property) {
      if (property !== 'run') {
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      }
      return async (sql: string, values?: unknown) => {
        const recording = sql.startsWith('INSERT INTO trial_content_files');
        if (recording) {
          await target.run("PRAGMA enable_profiling = 'json'");
          await target.run(`PRAGMA profiling_output = '${profileFile}'`);
        }
        try {
          return await target.run(sql, values as never);
        } finally {
          if (recording) await target.run('PRAGMA disable_profiling');
        }
      };
    },
  });
}

describe("recording a night's new trial contents", () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;
  let stored: number;

  beforeAll(async () => {
    work = await tempDir();
    db = path.join(work.dir, 'history.duckdb');
    await loadSnapshots(db, [FIXTURES.first]);
    // Nights of history: the fixture's trial rows stored again under other content keys (hex digests,
    // spread over the whole range of keys as real ones are).
    const warehouse = await openWarehouse(db);
    try {
      await warehouse.conn.run(
        `INSERT INTO trial_content
         SELECT sha256(t.n || c.content_key), c.* EXCLUDE (content_key)
         FROM trial_content c, range(${COPIES - 1}) t(n)`,
      );
      const count = await warehouse.conn.runAndReadAll('SELECT count(*) FROM trial_content');
      stored = Number(count.getRows()[0]![0]);
    } finally {
      warehouse.close();
    }
  }, 60_000);

  afterAll(async () => {
    await work.cleanup();
  });

  it('reads only the rows the load inserted, and counts them', async () => {
    const profileFile = path.join(work.dir, 'record.json');
    const bytes = (await readFile(path.join(FIXTURES.first, TRIAL_FILE))).length;
    // Two new contents whose keys fall among the stored ones, as sha256 keys do: no range of keys tells
    // the stored rows apart from tonight's (DuckDB's zone maps cannot skip them).
    const files: TrialFile[] = TONIGHT.map((contentKey, fileNo) => ({
      fileNo,
      path: path.join(FIXTURES.first, TRIAL_FILE),
      relPath: TRIAL_FILE,
      bytes,
      assessmentId: 'a0000000-0000-4000-8000-000000000001',
      projectId: null,
      projectKey: null,
      records: TRIALS_IN_FILE,
      vouched: true,
      altered: [],
      contentKey,
      sha256: contentKey,
      readPath: 'vouched',
    }));
    const warehouse = await openWarehouse(db);
    try {
      const { conn } = warehouse;
      const recorded = await inTransaction(conn, async () => {
        await loadTrialFiles(profilingRecord(conn, profileFile), files);
        const reader = await conn.runAndReadAll(
          'SELECT content_key, trials, tool_calls FROM trial_content_files WHERE content_key IN ($1, $2) ORDER BY 1',
          [...TONIGHT],
        );
        return reader
          .getRows()
          .map(([key, trials, toolCalls]) => [String(key), Number(trials), Number(toolCalls)]);
      });
      expect(stored).toBeGreaterThan(COPIES * TRIALS_IN_FILE);
      const profile = JSON.parse(await readFile(profileFile, 'utf8')) as ProfileNode;
      // Before: one scan producing every stored row as well as tonight's.
      expect(trialContentScans(profile)).toEqual([TONIGHT.length * TRIALS_IN_FILE]);
      // Recomputed from the file itself.
      const trials = JSON.parse(await readFile(files[0]!.path, 'utf8')) as { tool_calls?: unknown[] }[];
      const perFile = trials.reduce((sum, trial) => sum + (trial.tool_calls?.length ?? 0), 0);
      expect(trials).toHaveLength(TRIALS_IN_FILE);
      expect(recorded).toEqual(TONIGHT.map((key) => [key, TRIALS_IN_FILE, perFile]));
    } finally {
      warehouse.close();
    }
  });
});
