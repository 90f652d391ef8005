/**
 * How openWarehouse lays the file out (db.ts): row groups of ROW_GROUP_SIZE rows, so a checkpoint
 * after a small append rewrites at most that many earlier rows (not a whole default 122,880-row
 * group); a new file in NEW_FILE_STORAGE_VERSION's format, an older file kept in its own; the
 * catalog named as DuckDB names a main database; spilling beside the database.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  inTransaction,
  NEW_FILE_STORAGE_VERSION,
  openWarehouse,
  ROW_GROUP_SIZE,
  type Warehouse,
} from '../../src/warehouse/db.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

async function rows(warehouse: Warehouse, sql: string): Promise<Record<string, unknown>[]> {
  return (await warehouse.conn.runAndReadAll(sql)).getRowObjectsJS();
}

/** Each row group of `table`: its rows and the blocks its columns are stored in. */
async function rowGroups(warehouse: Warehouse, table: string): Promise<{ count: number; blocks: string }[]> {
  const found = await rows(
    warehouse,
    `SELECT row_group_id, max(count)::INTEGER AS count, string_agg(DISTINCT block_id::VARCHAR, ',' ORDER BY block_id::VARCHAR) AS blocks
     FROM pragma_storage_info('${table}') GROUP BY row_group_id ORDER BY row_group_id`,
  );
  return found.map((r) => ({ count: Number(r.count), blocks: String(r.blocks) }));
}

async function storageVersion(warehouse: Warehouse): Promise<string> {
  const [found] = await rows(
    warehouse,
    `SELECT list_extract(map_extract(tags, 'storage_version'), 1) AS version FROM duckdb_databases() WHERE database_name = current_database()`,
  );
  return String(found?.version);
}

describe('the warehouse file', () => {
  it(`stores rows in groups of ${ROW_GROUP_SIZE}, and a later small append leaves the full groups' blocks alone`, async () => {
    const db = path.join(await makeTempDir('airt-layout-'), 'airt.duckdb');
    const first = await openWarehouse(db);
    // Text that does not compress to nothing, so every row group owns blocks of its own.
    await first.conn.run(
      `CREATE TABLE t AS SELECT i, md5(i::VARCHAR) || md5((i * 7)::VARCHAR) AS body FROM range(100000) r(i)`,
    );
    await first.conn.run('CHECKPOINT');
    first.close();

    const second = await openWarehouse(db);
    const before = await rowGroups(second, 't');
    // 100,000 rows: three full groups and the rest (DuckDB's default would make it one group).
    expect(before.map((g) => g.count)).toEqual([
      ROW_GROUP_SIZE,
      ROW_GROUP_SIZE,
      ROW_GROUP_SIZE,
      100000 - 3 * ROW_GROUP_SIZE,
    ]);
    await second.conn.run(`INSERT INTO t SELECT i, md5(i::VARCHAR) FROM range(100000, 100010) r(i)`);
    await second.conn.run('CHECKPOINT');
    const after = await rowGroups(second, 't');
    second.close();
    // The night's ten rows went into the last group; the full groups were not written again.
    expect(after.map((g) => g.count)).toEqual([
      ROW_GROUP_SIZE,
      ROW_GROUP_SIZE,
      ROW_GROUP_SIZE,
      100010 - 3 * ROW_GROUP_SIZE,
    ]);
    expect(after.slice(0, 3).map((g) => g.blocks)).toEqual(before.slice(0, 3).map((g) => g.blocks));
  });

  it(`is created in storage format ${NEW_FILE_STORAGE_VERSION}; a file in an older format opens, takes rows and keeps it`, async () => {
    const dir = await makeTempDir('airt-layout-');
    const created = await openWarehouse(path.join(dir, 'new.duckdb'));
    expect(await storageVersion(created)).toBe(`${NEW_FILE_STORAGE_VERSION}+`);
    created.close();

    // A database written the way airt-report wrote them before: DuckDB's default format.
    const old = path.join(dir, 'old.duckdb');
    const plain = await DuckDBInstance.create(old);
    const plainConn = await plain.connect();
    await plainConn.run('CREATE TABLE t AS SELECT 1 AS i');
    plainConn.closeSync();
    plain.closeSync();
    const reopened = await openWarehouse(old);
    const version = await storageVersion(reopened);
    expect(version).not.toBe(`${NEW_FILE_STORAGE_VERSION}+`);
    await reopened.conn.run('INSERT INTO t VALUES (2)');
    reopened.close();
    const again = await openWarehouse(old, { readOnly: true });
    expect(await storageVersion(again)).toBe(version);
    expect(await rows(again, 'SELECT sum(i)::INTEGER AS s FROM t')).toEqual([{ s: 3 }]);
    again.close();
  });

  it('writes a commit of a few megabytes into the file at once (not to the WAL); a small one to the WAL', async () => {
    const db = path.join(await makeTempDir('airt-layout-'), 'airt.duckdb');
    const warehouse = await openWarehouse(db);
    await warehouse.conn.run(
      'CREATE TABLE t (a BIGINT, b BIGINT, c BIGINT, d BIGINT, e BIGINT, f BIGINT, body VARCHAR)',
    );
    await warehouse.conn.run('CHECKPOINT');
    const walBytes = async (): Promise<number> => (await stat(`${db}.wal`).catch(() => null))?.size ?? 0;
    // DuckDB estimates a commit's size from its rows' widths: ~1.5 MB here, more than
    // CHECKPOINT_THRESHOLD and less than DuckDB's default of 16 MB, in fewer rows than a row group
    // (a full group would be written to the file before the commit anyway).
    await inTransaction(warehouse.conn, () =>
      warehouse.conn.run(`INSERT INTO t SELECT i, i, i, i, i, i, md5(i::VARCHAR) FROM range(20000) r(i)`),
    );
    expect(await walBytes()).toBe(0);
    await warehouse.conn.run('INSERT INTO t VALUES (-1, -1, -1, -1, -1, -1, NULL)');
    expect(await walBytes()).toBeGreaterThan(0);
    warehouse.close();
    const reopened = await openWarehouse(db, { readOnly: true });
    expect(await rows(reopened, 'SELECT count(*)::INTEGER AS n FROM t')).toEqual([{ n: 20001 }]);
    reopened.close();
  });

  it('names its catalog after the file as DuckDB does, and spills beside it', async () => {
    const dir = await makeTempDir('airt-layout-');
    const named = await openWarehouse(path.join(dir, 'airt.duckdb'));
    expect(
      await rows(named, `SELECT current_database() AS db, current_setting('temp_directory') AS tmp`),
    ).toEqual([{ db: 'airt', tmp: path.join(dir, 'airt.duckdb.tmp') }]);
    await named.conn.run('CREATE TABLE t AS SELECT 1 AS i');
    expect(await rows(named, 'SELECT i FROM airt.main.t')).toEqual([{ i: 1 }]);
    named.close();
    // A name DuckDB keeps for itself.
    const reserved = await openWarehouse(path.join(dir, 'memory.duckdb'));
    expect(await rows(reserved, 'SELECT current_database() AS db')).toEqual([{ db: 'warehouse' }]);
    reserved.close();
  });

  it('says a file that is not a DuckDB database is not one, and leaves it as it was', async () => {
    const file = path.join(await makeTempDir('airt-layout-'), 'notes.duckdb');
    const text = 'not a database\n'.repeat(1000);
    await writeFile(file, text);
    await expect(openWarehouse(file)).rejects.toThrow(/exists but is not a DuckDB database/);
    expect(await readFile(file, 'utf8')).toBe(text);
  });

  // DuckDB opens a SQLite file through its sqlite extension, which it would download from the network
  // (autoinstall), and took a JSON file for an in-memory database ("Cannot launch in-memory database in
  // read-only mode!"): both are some other program's file, said in the same one line, and never fetched.
  it.each([
    ['SQLite', 'other.db', Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(4080)])],
    ['JSON', 'report.json', Buffer.from(JSON.stringify({ report: 'not a database' }))],
  ])(
    'says a %s file is not a DuckDB database, read-only or not, and never fetches an extension',
    async (_kind, name, bytes) => {
      const file = path.join(await makeTempDir('airt-layout-'), name);
      await writeFile(file, bytes);
      for (const readOnly of [true, false]) {
        const error = await openWarehouse(file, { readOnly }).then(
          (w) => (w.close(), undefined),
          (e: unknown) => e as Error,
        );
        expect(error?.message).toMatch(
          /exists but is not a DuckDB database.*Nothing was loaded or changed/su,
        );
        expect(error?.message).not.toMatch(/extension|http/iu);
      }
      expect(await readFile(file)).toEqual(bytes);
    },
  );

  it('never installs or autoloads a DuckDB extension (no network, whatever the SQL)', async () => {
    const warehouse = await openWarehouse(':memory:');
    try {
      expect(
        await rows(
          warehouse,
          `SELECT current_setting('autoinstall_known_extensions') AS install, current_setting('autoload_known_extensions') AS autoload`,
        ),
      ).toEqual([{ install: false, autoload: false }]);
    } finally {
      warehouse.close();
    }
  });
});
