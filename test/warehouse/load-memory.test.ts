/**
 * The load's memory: a load that needs more than its memory limit fails with one clear line and
 * leaves the database as it was; the trial statements' single-thread setting is restored after them,
 * whether they succeed or fail; whole-file reads size their buffers from the files they read.
 * (The peak RSS itself is a figure of bench/load.ts, not a test: no timings or sizes of a process here.)
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliOptionName } from '../../src/cli/option-names.js';
import { InvalidOptionError, WordedError } from '../../src/errors.js';
import { inTransaction, onOneThread, openWarehouse, scalarNumber } from '../../src/warehouse/db.js';
import type { Manifest } from '../../src/snapshot/manifest.js';
import { loadSnapshots, type LoadProgress } from '../../src/warehouse/loader.js';
import { byteBatches, readObjectBytes } from '../../src/warehouse/trial-loader.js';
import { copyFixture, FIXTURES, reseal, tableCounts, tempDir } from './helpers.js';
import { caught } from '../helpers/caught.js';

const MIB = 1024 * 1024;
const MEMORY_MESSAGE =
  /needs more memory than the load's memory limit|needed more memory than its memory limit/;

function expectMemoryError(error: Error): void {
  expect(error).toBeInstanceOf(WordedError);
  expect(error.message).toMatch(MEMORY_MESSAGE);
  expect(error.message).toMatch(/Nothing was (loaded|changed); raise the limit with options\.memoryLimit\.$/);
  expect(error.message).not.toContain('\n');
  expect(error.message).not.toMatch(/transaction is aborted/i);
  // The CLI names its flag.
  expect((error as WordedError).describeWith(cliOptionName)).toContain('--memory-limit');
}

describe('a load that hits its memory limit', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    work = await tempDir();
  });
  afterEach(() => work.cleanup());

  // 16MB fails while reading the trials (LoadMemoryError), 4MB earlier, while writing the small
  // tables (MemoryLimitError): both are one line, and neither leaves anything behind.
  it.each(['4MB', '16MB'])(
    'fails with one clear line at %s; a first load leaves no database',
    async (limit) => {
      const db = path.join(work.dir, 'first.duckdb');
      expectMemoryError(await caught(loadSnapshots(db, [FIXTURES.first], { memoryLimit: limit })));
      expect(existsSync(db)).toBe(false);
    },
  );

  it('leaves a loaded database as it was, and the same load then succeeds with the default limit', async () => {
    const db = path.join(work.dir, 'loaded.duckdb');
    await loadSnapshots(db, [FIXTURES.first]);
    const before = await tableCounts(db);
    expectMemoryError(await caught(loadSnapshots(db, [FIXTURES.second], { memoryLimit: '4MB' })));
    expect(await tableCounts(db)).toEqual(before);
    const loaded = await loadSnapshots(db, [FIXTURES.second]);
    expect(loaded.snapshots[0]).toMatchObject({ outcome: 'loaded' });
  });
});

describe('onOneThread', () => {
  const threads = async (conn: Parameters<typeof scalarNumber>[0]): Promise<number> =>
    scalarNumber(conn, "SELECT current_setting('threads')");

  it('runs its work on one thread and restores the thread count after it', async () => {
    const warehouse = await openWarehouse(':memory:', { threads: 2 });
    try {
      const during = await onOneThread(warehouse.conn, () => threads(warehouse.conn));
      expect(during).toBe(1);
      expect(await threads(warehouse.conn)).toBe(2);
    } finally {
      warehouse.close();
    }
  });

  it('restores the thread count after its work failed inside a transaction, reporting that failure', async () => {
    const warehouse = await openWarehouse(':memory:', { threads: 2 });
    const { conn } = warehouse;
    try {
      await conn.run('CREATE TABLE t (n INTEGER)');
      // DuckDB refuses SET inside the aborted transaction: the rollback restores it.
      await expect(
        inTransaction(conn, () => onOneThread(conn, () => conn.run("INSERT INTO t VALUES ('not a number')"))),
      ).rejects.toThrow(/Conversion Error/);
      expect(await threads(conn)).toBe(2);
      expect(await scalarNumber(conn, 'SELECT count(*) FROM t')).toBe(0);
    } finally {
      warehouse.close();
    }
  });

  it('keeps a one-thread instance on one thread', async () => {
    const warehouse = await openWarehouse(':memory:', { threads: 1 });
    try {
      await onOneThread(warehouse.conn, () => warehouse.conn.run('SELECT 1'));
      expect(await threads(warehouse.conn)).toBe(1);
    } finally {
      warehouse.close();
    }
  });
});

describe('readObjectBytes', () => {
  it('is a whole MiB above the largest file read, and never above the cap', () => {
    const cap = 16 * MIB;
    expect(readObjectBytes([{ bytes: 100 }, { bytes: 7_151_104 }, { bytes: 2 }], cap)).toBe(8 * MIB);
    expect(readObjectBytes([{ bytes: 7 * MIB }], cap)).toBe(8 * MIB);
    expect(readObjectBytes([{ bytes: 7 * MIB + 1 }], cap)).toBe(9 * MIB);
    expect(readObjectBytes([{ bytes: 15 * MIB }], cap)).toBe(cap);
    expect(readObjectBytes([{ bytes: 100 * MIB }], cap)).toBe(cap);
  });
});

describe('byteBatches', () => {
  const sizes = (batches: { bytes: number }[][]): number[][] => batches.map((b) => b.map((f) => f.bytes));

  it('splits consecutive files at the byte bound, keeping their order', () => {
    const files = [3, 4, 1, 6, 2, 2, 2].map((bytes) => ({ bytes }));
    expect(sizes(byteBatches(files, 8))).toEqual([
      [3, 4, 1],
      [6, 2],
      [2, 2],
    ]);
  });

  it('puts a file bigger than the bound alone, and makes no empty batch', () => {
    expect(sizes(byteBatches([{ bytes: 20 }, { bytes: 1 }, { bytes: 30 }], 8))).toEqual([[20], [1], [30]]);
    expect(byteBatches([], 8)).toEqual([]);
  });
});

describe('the whole-file fast path on two threads', () => {
  it('loads again on one thread when two run out of memory, with every trial', async () => {
    const work = await tempDir();
    try {
      // Trial files of ~6 MiB each: two threads reading them need more than 128MB, one does not.
      const dir = await copyFixture(FIXTURES.first, work.dir);
      const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
      const records = new Map<string, number>();
      for (const file of manifest.files.filter((f) => f.kind === 'trials')) {
        const trials = JSON.parse(await readFile(path.join(dir, file.path), 'utf8')) as Record<
          string,
          unknown
        >[];
        if (trials.length === 0) continue;
        const rounds = Math.ceil((6 * MIB) / JSON.stringify(trials).length);
        const copies = Array.from({ length: rounds }, (_, i) =>
          trials.map((t, j) => ({ ...t, trial_index: i * trials.length + j })),
        ).flat();
        await writeFile(path.join(dir, file.path), JSON.stringify(copies));
        records.set(file.path, copies.length);
      }
      expect(records.size).toBeGreaterThan(1);
      await reseal(dir, (m) => {
        for (const f of m.files) f.records = records.get(f.path) ?? f.records;
      });
      const events: LoadProgress[] = [];
      const db = path.join(work.dir, 'retry.duckdb');
      await loadSnapshots(db, [dir], { memoryLimit: '128MB', onProgress: (e) => events.push(e) });
      expect(events.filter((e) => e.type === 'retry_one_thread')).toHaveLength(1);
      const total = [...records.values()].reduce((a, b) => a + b, 0);
      expect((await tableCounts(db)).trials).toBe(total);
    } finally {
      await work.cleanup();
    }
  });
});

describe('a memory limit that is not a size', () => {
  it('is a usage error naming the option and the value, before any database is touched', async () => {
    const work = await tempDir();
    try {
      const db = path.join(work.dir, 'never.duckdb');
      const error = await caught(loadSnapshots(db, [FIXTURES.first], { memoryLimit: 'banana' }));
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect((error as InvalidOptionError).describeWith(cliOptionName)).toBe(
        '--memory-limit "banana" is not a size; give one such as 256MB or 1GB.',
      );
      expect(existsSync(db)).toBe(false);
    } finally {
      await work.cleanup();
    }
  });
});
