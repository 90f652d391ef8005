/**
 * A warehouse file whose bytes changed after DuckDB wrote them (a bit flipped on disk, a bad copy): a
 * user tryout found `report` and `export` then ended with "Unexpected error: IO Error: Corrupt database
 * file…" and "Run again with --debug", as for a bug in airt-report. The file opens (opening reads only
 * the catalog); the damage is met when a block is read. Now one line says what happened and what to
 * do. The damaged block is found through DuckDB's own storage info, then one of its bytes flipped.
 */
import { copyFile, open } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { FIXTURES, tempDir } from '../warehouse/helpers.js';
import { runMain } from '../helpers/run-main.js';

/** DuckDB's file: a 4 KiB main header and two 4 KiB database headers, then the blocks. */
const HEADERS_BYTES = 3 * 4096;
/** Each block starts with its 8-byte checksum. */
const CHECKSUM_BYTES = 8;

/** The file offset of a byte inside the data of trial_content.candidate (a VARCHAR segment). */
async function candidateDataOffset(db: string): Promise<number> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    await conn.run(`ATTACH '${db}' AS w (READ_ONLY)`);
    const size = Number(
      (
        await conn.runAndReadAll(`SELECT block_size FROM pragma_database_size() WHERE database_name = 'w'`)
      ).getRows()[0]![0],
    );
    const rows = (
      await conn.runAndReadAll(
        `SELECT block_id, block_offset FROM pragma_storage_info('w.trial_content')
         WHERE column_name = 'candidate' AND segment_type = 'VARCHAR' AND persistent AND block_id >= 0
         ORDER BY block_id LIMIT 1`,
      )
    ).getRows();
    expect(rows, 'a stored candidate segment').toHaveLength(1);
    const [blockId, blockOffset] = rows[0]!.map(Number) as [number, number];
    return HEADERS_BYTES + blockId * size + CHECKSUM_BYTES + blockOffset + 16;
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

describe('a damaged warehouse file', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let damaged: string;
  const cli = (...argv: string[]) => runMain(work.dir, argv);

  beforeAll(async () => {
    work = await tempDir();
    const db = path.join(work.dir, 'airt.duckdb');
    await loadSnapshots(db, [FIXTURES.first]);
    damaged = path.join(work.dir, 'damaged.duckdb');
    await copyFile(db, damaged);
    const offset = await candidateDataOffset(damaged);
    const file = await open(damaged, 'r+');
    try {
      const byte = Buffer.alloc(1);
      await file.read(byte, 0, 1, offset);
      byte[0] = byte[0]! ^ 0xff;
      await file.write(byte, 0, 1, offset);
    } finally {
      await file.close();
    }
  });
  afterAll(() => work.cleanup());

  it('export says the file is damaged and what to do, not "Unexpected error" (query names it too)', async () => {
    for (const argv of [
      ['export', '--db', damaged, '--out', path.join(work.dir, 'parquet')],
      ['query', 'SELECT sum(length(candidate)) FROM trials', '--db', damaged],
    ]) {
      const result = await cli(...argv);
      const where = `${argv[0]}: ${result.err}`;
      expect(result.code, where).toBe(1);
      expect(result.err, where).not.toContain('Unexpected error');
      expect(result.err, where).not.toContain('--debug');
      expect(result.err, where).toMatch(/Corrupt database file/);
    }
    const exported = await cli('export', '--db', damaged, '--out', path.join(work.dir, 'parquet2'));
    expect(exported.err).toMatch(
      /^airt-report: The database file is damaged: its bytes changed after DuckDB wrote them \(IO Error: Corrupt database file: .*\)\. Restore it from a backup, or build a new one by loading the snapshots again/,
    );
    expect(exported.err.trim().split('\n')).toHaveLength(1);
  });
});
