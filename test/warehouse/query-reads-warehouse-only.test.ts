/**
 * `query` is read-only SQL on the warehouse, and nothing else: a user tryout found that it wrote files
 * (`COPY (SELECT 1) TO 'x.csv'`, `ATTACH 'x.db'` both exited 0 and created them) and read any file the
 * user can (`read_csv('/etc/passwd')`). Each is refused now, with DuckDB's words and what query does,
 * creating nothing; the query cannot turn the setting back on; named queries and temp views still run.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { listNamedQueries } from '../../src/warehouse/named-queries.js';
import { runQuery } from '../../src/warehouse/query.js';
import { FIXTURES, tempDir } from './helpers.js';
import { runMain } from '../helpers/run-main.js';

describe('query reads the warehouse only', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;
  const cli = (...argv: string[]) => runMain(work.dir, argv);
  const HINT = '(query reads the warehouse only: it neither reads nor writes other files)';

  beforeAll(async () => {
    work = await tempDir();
    db = path.join(work.dir, 'airt.duckdb');
    await loadSnapshots(db, [FIXTURES.first]);
  });
  afterAll(() => work.cleanup());

  it('refuses to write a file with COPY … TO or to create one with ATTACH', async () => {
    for (const [sql, file] of [
      ["COPY (SELECT 1 AS a) TO 'written.csv'", 'written.csv'],
      ["COPY snapshots TO 'snapshots.parquet' (FORMAT parquet)", 'snapshots.parquet'],
      ["ATTACH 'other.duckdb' AS other", 'other.duckdb'],
    ] as const) {
      const result = await cli(
        'query',
        sql.replace(/'([^']+\.(csv|parquet|duckdb))'/, (_, name: string) => `'${path.join(work.dir, name)}'`),
        '--db',
        db,
      );
      expect({ sql, code: result.code, out: result.out }).toEqual({ sql, code: 1, out: '' });
      expect(result.err).toContain('Query failed: Permission Error');
      expect(result.err).toContain(HINT);
      expect(existsSync(path.join(work.dir, file)), file).toBe(false);
    }
  });

  it('refuses to read a file other than the warehouse', async () => {
    const secret = path.join(work.dir, 'secret.csv');
    await writeFile(secret, 'token\nsecret-value\n');
    for (const sql of [`SELECT * FROM read_csv('${secret}')`, `SELECT content FROM read_text('${secret}')`]) {
      const result = await cli('query', sql, '--db', db, '--format', 'csv');
      expect({ sql, code: result.code, out: result.out }).toEqual({ sql, code: 1, out: '' });
      expect(result.err).toContain(HINT);
      expect(result.err).not.toContain('secret-value');
    }
  });

  it('cannot turn file access back on', async () => {
    const result = await cli('query', 'SET enable_external_access = true', '--db', db);
    expect(result.code).toBe(1);
    expect(result.err).toContain('the configuration has been locked');
  });

  it('still runs every named query, and SQL over the latest_* views', async () => {
    for (const query of await listNamedQueries()) {
      const result = await cli('query', `@${query.name}`, '--db', db, '--format', 'json');
      expect({ name: query.name, code: result.code, err: result.err }).toEqual({
        name: query.name,
        code: 0,
        err: '',
      });
    }
    const latest = await runQuery(db, 'SELECT count(*) AS n FROM latest_metric_findings');
    expect(latest.rows).toHaveLength(1);
  });
});
