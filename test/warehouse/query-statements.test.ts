import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { listNamedQueries } from '../../src/warehouse/named-queries.js';
import { formatResult } from '../../src/warehouse/output-format.js';
import { runQuery } from '../../src/warehouse/query.js';
import { FIXTURES, tempDir } from './helpers.js';
import { runMain } from '../helpers/run-main.js';

describe('query: one statement per query, and empty results', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;
  const cli = (...argv: string[]) => runMain(work.dir, argv);

  beforeAll(async () => {
    work = await tempDir();
    db = path.join(work.dir, 'airt.duckdb');
    await loadSnapshots(db, [FIXTURES.first]);
  });
  afterAll(() => work.cleanup());

  it('refuses several statements with a usage error naming the count, and prints no result', async () => {
    const result = await cli('query', 'select 1 as a; select 2 as b', '--db', db);
    expect(result.code).toBe(2);
    expect(result.out).toBe('');
    expect(result.err).toContain('Query holds 2 SQL statements');
    expect(result.err).toContain('Run one statement per query.');
    const three = await cli('query', 'select 1; select 2; select 3;', '--db', db, '--format', 'json');
    expect(three).toMatchObject({ code: 2, out: '' });
    expect(three.err).toContain('holds 3 SQL statements');
  });

  it('still runs one statement with a trailing semicolon or comment, or a ; inside a string', async () => {
    for (const sql of ['select 1 as a;', 'select 1 as a; -- done', "select ';' as a"]) {
      const result = await cli('query', sql, '--db', db, '--format', 'csv');
      expect(result).toMatchObject({ code: 0, err: '' });
      expect(result.out.split('\n')[0]).toBe('a');
    }
  });

  it('keeps reporting SQL errors in DuckDB words (exit 1)', async () => {
    const result = await cli('query', 'selec 1; select 2', '--db', db);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/^airt-report: Query failed: Parser Error: syntax error at or near "selec"/);
  });

  it('ships only single-statement named queries, and runs them all', async () => {
    const queries = await listNamedQueries();
    expect(queries.length).toBeGreaterThan(0);
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      for (const query of queries) {
        expect({ name: query.name, count: (await conn.extractStatements(query.sql)).count }).toEqual({
          name: query.name,
          count: 1,
        });
      }
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
    for (const query of queries) {
      const result = await cli('query', `@${query.name}`, '--db', db, '--format', 'ndjson');
      expect({ name: query.name, code: result.code, err: result.err }).toEqual({
        name: query.name,
        code: 0,
        err: '',
      });
    }
  });

  it('says "(0 rows)" in markdown as in the table format, below the table', async () => {
    const sql = "SELECT snapshot_id, status FROM snapshots WHERE snapshot_id = 'none'";
    const md = await cli('query', sql, '--db', db, '--format', 'markdown');
    expect(md.code).toBe(0);
    expect(md.out).toBe('| snapshot\\_id | status |\n| --- | --- |\n\n(0 rows)\n');
    const table = await cli('query', sql, '--db', db);
    expect(table.out.trimEnd().split('\n').at(-1)).toBe('(0 rows)');
    // With rows the Markdown stays a bare table, ready to paste.
    const one = formatResult(await runQuery(db, "SELECT 'x' AS a"), 'markdown');
    expect(one).toBe('| a |\n| --- |\n| x |\n');
  });
});
