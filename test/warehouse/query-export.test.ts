import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportParquet } from '../../src/warehouse/export.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { escapeMarkdownCell, neutralizeCsvCell } from '../../src/warehouse/output-format.js';
import { copyFixture, FIXTURES, rows, tableCounts, tempDir } from './helpers.js';
import { runMain } from '../helpers/run-main.js';

const HOSTILE_TRIAL = `SELECT candidate, response, -1.5 AS negative FROM trials
  WHERE snapshot_id = '20260301T060000Z-first' AND assessment_id = 'a0000000-0000-4000-8000-000000000003' AND trial_ordinal = 0`;

describe('query and export', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;
  const cli = (...argv: string[]) => runMain(work.dir, argv);

  beforeAll(async () => {
    work = await tempDir();
    db = path.join(work.dir, 'airt.duckdb');
    await loadSnapshots(db, [FIXTURES.first, FIXTURES.second, FIXTURES.partial]);
  });
  afterAll(() => work.cleanup());

  it('neutralizes formula cells in CSV by default and keeps them with --raw', async () => {
    const guarded = await cli('query', HOSTILE_TRIAL, '--db', db, '--format', 'csv');
    expect(guarded.code).toBe(0);
    const [header, record] = parse(guarded.out);
    expect(header).toEqual(['candidate', 'response', 'negative']);
    expect(record?.[0]?.startsWith('Ignore all previous instructions.\n<script>')).toBe(true);
    expect(record?.[1]).toMatch(/^Sure!/);
    expect(record?.[2]).toBe('-1.5'); // a number is data, not a formula
    const formula = await cli(
      'query',
      `SELECT '=HYPERLINK("http://evil.example","x")' AS a, '@SUM(A1)' AS b, '+1' AS c, '-2+3' AS d, e'\\tx' AS e`,
      '--db',
      db,
      '--format',
      'csv',
    );
    expect(parse(formula.out)).toEqual([
      ['a', 'b', 'c', 'd', 'e'],
      [`'=HYPERLINK("http://evil.example","x")`, "'@SUM(A1)", "'+1", "'-2+3", "'\tx"],
    ]);
    const raw = await cli('query', `SELECT '=1+1' AS a`, '--db', db, '--format', 'csv', '--raw');
    expect(raw.out).toBe('a\n=1+1\n');
    expect(neutralizeCsvCell('\rcmd')).toBe("'\rcmd");
  });

  it('escapes pipes, newlines, HTML and bidi overrides in Markdown', async () => {
    const md = await cli('query', HOSTILE_TRIAL, '--db', db, '--format', 'markdown');
    const lines = md.out.trimEnd().split('\n');
    expect(lines).toHaveLength(3); // header, rule, one row: no cell broke out of its row
    expect(lines[2]).toContain('&lt;script&gt;alert("x")&lt;/script&gt; \\| col \\| break<br>');
    expect(lines[2]).not.toContain('\u202e');
    expect(escapeMarkdownCell('a|b\nc')).toBe('a\\|b<br>c');
  });

  it('serializes bigints, decimals, timestamps, lists and JSON sensibly', async () => {
    const json = await cli(
      'query',
      `SELECT 9007199254740993::BIGINT AS big, 42::BIGINT AS small, 1.25::DECIMAL(5,2) AS dec, fetched_at, ['a','b'] AS list, '{"k":1}'::JSON AS j
       FROM snapshots WHERE snapshot_id = '20260301T060000Z-first'`,
      '--db',
      db,
      '--format',
      'json',
    );
    expect(JSON.parse(json.out)).toEqual([
      {
        big: '9007199254740993',
        small: 42,
        dec: 1.25,
        fetched_at: '2026-03-01T06:00:41.25Z',
        list: ['a', 'b'],
        j: { k: 1 },
      },
    ]);
    const nd = await cli(
      'query',
      `SELECT 1 AS n UNION ALL SELECT 2 ORDER BY 1`,
      '--db',
      db,
      '--format',
      'ndjson',
    );
    expect(nd.out).toBe('{"n":1}\n{"n":2}\n');
  });

  it('opens the database read-only and prints SQL errors without a stack trace', async () => {
    const before = await tableCounts(db);
    const write = await cli('query', `DELETE FROM snapshots`, '--db', db);
    expect(write.code).toBe(1);
    expect(write.err).toMatch(/read-only/i);
    expect(write.err).not.toMatch(/\n\s+at /);
    expect(await tableCounts(db)).toEqual(before);
    const bad = await cli('query', `SELECT * FROM no_such_table`, '--db', db);
    expect(bad.code).toBe(1);
    // One line: what failed, then DuckDB's own words.
    expect(bad.err).toMatch(
      /^airt-report: Query failed: Catalog Error: Table with name no_such_table does not exist![^\n]*\n$/,
    );
    expect(bad.err).toContain('LINE 1: SELECT * FROM no_such_table');
    const missing = await cli('query', 'SELECT 1', '--db', path.join(work.dir, 'nope.duckdb'));
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('No database at');
  });

  it('treats empty SQL and a missing --db as usage errors; @list needs no database', async () => {
    for (const sql of ['', '   \n\t']) {
      const empty = await cli('query', sql, '--db', db);
      expect(empty.code).toBe(2);
      expect(empty.err).toContain('The SQL is empty');
    }
    const noDb = await cli('query', 'SELECT 1');
    expect(noDb.code).toBe(2);
    expect(noDb.err).toContain('--db FILE');
    const list = await cli('query', '@list');
    expect(list.code).toBe(0);
    expect(list.out).toContain('@asr_by_category');
  });

  it('export: stdout is the output path alone, counts on stderr; a missing database is named', async () => {
    const out = path.join(work.dir, 'cli-parquet');
    const run = await cli('export', '--db', db, '--out', out);
    expect(run.code).toBe(0);
    expect(run.out).toBe(`${out}\n`);
    expect(run.err).toMatch(/trials\s+\d+ rows, 2 partition\(s\) written, 0 kept/);
    const nowhere = path.join(work.dir, 'nope.duckdb');
    const missing = await cli('export', '--db', nowhere, '--out', path.join(work.dir, 'never'));
    expect(missing.code).toBe(1);
    expect(missing.err).toContain(`No database at ${nowhere}; create it with airt-report load`);
    expect(existsSync(nowhere)).toBe(false);
  });

  it('load leaves no database behind when it fails before loading anything', async () => {
    const fresh = path.join(work.dir, 'z.duckdb');
    const absent = await cli('load', path.join(work.dir, 'nonexistent'), '--db', fresh);
    expect(absent.code).toBe(1);
    expect(existsSync(fresh)).toBe(false);
    // Inputs look fine but the load fails (verification): the database it created goes again.
    const broken = await copyFixture(FIXTURES.first, path.join(work.dir, 'broken-copy'));
    await writeFile(path.join(broken, 'config.json'), '{"tampered": true}\n');
    const refused = await cli('load', broken, '--db', fresh);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('failed verification');
    expect(existsSync(fresh)).toBe(false);
    // A database that existed before keeps what it had.
    const before = await tableCounts(db);
    const kept = await cli('load', broken, '--db', db);
    expect(kept.code).toBe(1);
    expect(await tableCounts(db)).toEqual(before);
  });

  it('lists and runs named queries, and writes --out files', async () => {
    const list = await cli('query', '@list', '--db', db);
    for (const name of [
      'asr_by_category',
      'compliance_coverage',
      'top_open_findings',
      'evaluation_pass_rates',
      'asr_trend',
      'consistency',
    ]) {
      expect(list.out).toContain(`@${name}`);
    }
    const out = path.join(work.dir, 'rates.csv');
    const run = await cli('query', '@evaluation_pass_rates', '--db', db, '--format', 'csv', '--out', out);
    expect(run.code).toBe(0);
    expect(await readFile(out, 'utf8')).toMatch(/^org,workspace,project_key,evaluation_id,name,job_status,/);
    const unknown = await cli('query', '@nope', '--db', db);
    expect(unknown.code).toBe(2);
  });

  it('exports every table as Hive-partitioned Parquet that reads back with equal row counts', async () => {
    const out = path.join(work.dir, 'parquet');
    const result = await exportParquet(db, out);
    const counts = await tableCounts(db);
    const { METRIC_VIEW_NAMES } = await import('../../src/warehouse/metric-views.js');
    const current = [
      'latest_project_snapshots',
      'latest_findings',
      'latest_analytics_exclusions',
      ...METRIC_VIEW_NAMES,
    ];
    const tables = result.tables.filter((t) => !current.includes(t.table));
    expect(Object.fromEntries(tables.map((t) => [t.table, t.rows]))).toEqual(counts);
    // The metrics layer's views are exported too (the figures as reports, diff and gates define them).
    expect(result.tables.filter((t) => current.includes(t.table)).map((t) => t.table)).toEqual(current);
    for (const name of current) {
      const [row] = await rows(db, `SELECT count(*) AS n FROM ${name}`);
      counts[name] = Number(row?.n);
    }
    expect(await readdir(path.join(out, 'trials'))).toEqual([
      'snapshot_id=20260301T060000Z-first',
      'snapshot_id=20260315T060000Z-second',
    ]);
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      for (const table of result.tables.filter((t) => t.rows > 0)) {
        const files = current.includes(table.table) ? '*.parquet' : '*/*.parquet';
        const reader = await conn.runAndReadAll(
          `SELECT count(*) FROM read_parquet('${path.join(out, table.table)}/${files}', hive_partitioning = true)`,
        );
        expect([table.table, Number(reader.getRows()[0]?.[0])]).toEqual([table.table, counts[table.table]]);
      }
      const ids = await conn.runAndReadAll(
        `SELECT DISTINCT snapshot_id FROM read_parquet('${path.join(out, 'snapshots')}/*/*.parquet', hive_partitioning = true) ORDER BY 1`,
      );
      expect(ids.getRows().map((r) => r[0])).toEqual([
        '20260301T060000Z-first',
        '20260315T060000Z-second',
        '20260320T060000Z-partial',
      ]);
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
    // Again into the same directory: every snapshot partition is kept, none written.
    const again = await exportParquet(db, out);
    expect(again.tables.find((t) => t.table === 'trials')).toMatchObject({ partitions: [], kept: 2 });
    const other = path.join(work.dir, 'not-an-export');
    await mkdir(other);
    await writeFile(path.join(other, 'notes.txt'), 'mine');
    await expect(exportParquet(db, other)).rejects.toThrow(/not empty and holds no earlier export/);
  });

  it('the load command prints rows per table and is idempotent', async () => {
    const fresh = path.join(work.dir, 'cli.duckdb');
    const first = await cli('load', FIXTURES.second, '--db', fresh);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/20260315T060000Z-second: loaded \(complete, verified\), 4 warning\(s\)/);
    expect(first.out).toMatch(/trials\s+19/);
    expect(first.err).toContain('verifying 20260315T060000Z-second');
    const again = await cli('load', FIXTURES.second, '--db', fresh);
    expect(again.out).toContain('already loaded, unchanged');
    expect(await rows(fresh, 'SELECT count(*) AS n FROM snapshots')).toEqual([{ n: 1 }]);
    await writeFile(path.join(work.dir, 'not-a-snapshot.txt'), 'x');
    const bad = await cli('load', work.dir, '--db', fresh);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/no manifest\.json/);
  });
});

describe('query output over many rows', () => {
  it('table format lays out 150,000 rows (the column widths no longer overflow the call stack)', async () => {
    const { formatResult } = await import('../../src/warehouse/output-format.js');
    const count = 150_000;
    const result = {
      columns: [
        { name: 'n', type: 'BIGINT', json: false },
        { name: 's', type: 'VARCHAR', json: false },
      ],
      rows: Array.from({ length: count }, (_, i) => [i, `row ${i}`]),
    };
    const lines = formatResult(result, 'table').trimEnd().split('\n');
    expect(lines).toHaveLength(count + 3);
    expect(lines.at(-1)).toBe(`(${count} rows)`);
    expect(lines[2]).toBe('0       row 0');
  });
});
