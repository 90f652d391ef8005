/**
 * After airt-report itself is upgraded, the read-only commands (report, query, export, serve, diff,
 * gates) refuse a database of an older schema and say how to upgrade it; `load --db FILE` alone does
 * that, loading nothing. Before, the hint said to run `load` on it, `load --db FILE` answered that it
 * needs a snapshot directory, and diff and gates read the older database's views as they were.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { SCHEMA_VERSION } from '../../src/warehouse/ddl.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { FIXTURES, rows, tableCounts, tempDir } from '../warehouse/helpers.js';

const SNAPSHOT = '20260315T060000Z-second';

/** Records `db` as written by the release before this one (the views are recreated by any upgrade). */
async function recordPreviousSchema(db: string): Promise<void> {
  const instance = await DuckDBInstance.create(db);
  const conn = await instance.connect();
  await conn.run('DELETE FROM schema_version');
  await conn.run(`INSERT INTO schema_version VALUES (${SCHEMA_VERSION - 1}, 'test', now(), 'test')`);
  conn.closeSync();
  instance.closeSync();
}

describe('load --db FILE with nothing to load', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;
  /** Row counts of every relation as loaded (the read-only query path refuses the older schema). */
  let loaded: Record<string, number>;

  beforeAll(async () => {
    work = await tempDir();
    db = path.join(work.dir, 'older.duckdb');
    await loadSnapshots(db, [FIXTURES.second]);
    loaded = await tableCounts(db);
    await recordPreviousSchema(db);
  }, 60_000);

  afterAll(async () => {
    await work.cleanup();
  });

  const report = (io = recordingIO()) =>
    main(
      ['report', '--db', db, '--kind', 'portfolio', '--format', 'md', '--out', path.join(work.dir, 'r.md')],
      io,
    );

  it('upgrades a database the read-only commands refuse, and loads nothing', async () => {
    const refusal =
      `airt-report: ${db} has warehouse schema version ${SCHEMA_VERSION - 1}; upgrade it once with ` +
      `airt-report load --db ${db} (to version ${SCHEMA_VERSION}; nothing is loaded).\n`;
    const refused = recordingIO();
    expect(await report(refused)).toBe(1);
    expect(refused.err.join('')).toBe(refusal);
    // diff and gates too: an older database's views are an older definition of the figures.
    const config = path.join(work.dir, 'airt-report.json');
    await writeFile(
      config,
      JSON.stringify({
        connection: { base_url: 'http://127.0.0.1:9', org: 'acme', workspace: 'main' },
        database: db,
        gates: ['overall_asr <= 1'],
      }),
    );
    for (const args of [
      ['diff', '--db', db, '--from', SNAPSHOT, '--to', SNAPSHOT],
      ['gates', '--config', config],
    ]) {
      const io = recordingIO();
      expect(await main(args, io), args[0]).toBe(1);
      expect(io.err.join(''), args[0]).toBe(refusal);
    }
    const upgrade = recordingIO();
    expect(await main(['load', '--db', db], upgrade)).toBe(0);
    expect(upgrade.out.join('')).toBe(
      `${db}: upgraded from warehouse schema ${SCHEMA_VERSION - 1} to ${SCHEMA_VERSION}; nothing loaded\n`,
    );
    expect(await rows(db, 'SELECT max(version) AS v FROM schema_version')).toEqual([{ v: SCHEMA_VERSION }]);
    expect(await tableCounts(db)).toEqual(loaded);
    expect(await report()).toBe(0);
  });

  it('still asks for a snapshot when the database is current or missing (exit 2), creating nothing', async () => {
    const current = recordingIO();
    expect(await main(['load', '--db', db], current)).toBe(2);
    expect(current.err.join('')).toContain(
      `Name at least one snapshot directory or a --journal file (${db} is already at warehouse schema ${SCHEMA_VERSION}).`,
    );
    const missing = path.join(work.dir, 'missing.duckdb');
    const none = recordingIO();
    expect(await main(['load', '--db', missing], none)).toBe(2);
    expect(none.err.join('')).toContain('Name at least one snapshot directory or a --journal file.\n');
    expect(existsSync(missing)).toBe(false);
  });

  it('has every read-only command say the same line for a database that is not there', async () => {
    const missing = path.join(work.dir, 'nowhere.duckdb');
    const line = `airt-report: No database at ${missing}; create it with airt-report load SNAPSHOT_DIR --db ${missing}\n`;
    for (const args of [
      [
        'report',
        '--db',
        missing,
        '--kind',
        'portfolio',
        '--format',
        'html',
        '--out',
        path.join(work.dir, 'r.html'),
      ],
      ['diff', '--db', missing, '--from', 'a', '--to', 'b'],
      ['query', 'SELECT 1', '--db', missing],
    ]) {
      const io = recordingIO();
      expect(await main(args, io), args[0]).toBe(1);
      expect(io.err.join(''), args[0]).toBe(line);
      expect(existsSync(missing)).toBe(false);
    }
  });
});
