/**
 * Issue 14: the Parquet export, read back by an independent reader (hyparquet, pure JavaScript; not
 * DuckDB). Every file's rows and column types match the warehouse; timestamps are typed; journal rows
 * sit in the named partition snapshot_id=journal; a second export into the same directory adds only
 * the new snapshot's partitions and leaves the others' files as they were; the README's ASR-by-category
 * query over the export gives the named query's answer.
 */
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema } from 'hyparquet';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportParquet, JOURNAL_PARTITION } from '../../src/warehouse/export.js';
import { loadTriageJournal } from '../../src/warehouse/journal.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { readNamedQuery } from '../../src/warehouse/named-queries.js';
import { formatResult } from '../../src/warehouse/output-format.js';
import { runQuery } from '../../src/warehouse/query.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { FIXTURES, rows } from './helpers.js';

const README = new URL('../../README.md', import.meta.url);
const RUN = 'f0000000-0000-4000-8000-000000001002';

let work: string;
let db: string;
let out: string;

/** A triage journal line applied to a finding: a findings row without a snapshot. */
async function journal(): Promise<string> {
  const detail = JSON.parse(
    await readFile(path.join(FIXTURES.second, 'findings/f0000000-0000-4000-8000-000000001001.json'), 'utf8'),
  ) as Record<string, unknown>;
  const file = path.join(work, 'triage.jsonl');
  const line = {
    journal: 'airt-triage/1',
    time: '2026-03-16T10:00:01Z',
    org: 'acme',
    workspace: 'main',
    finding_id: RUN,
    request: { finding_status: 'remediated' },
    outcome: 'applied',
    http_status: 200,
    error: null,
    finding: { ...detail, id: RUN, finding_status: 'remediated' },
    source: 'cli',
  };
  await writeFile(file, `${JSON.stringify(line)}\n`);
  return file;
}

/** Every Parquet file under `dir`, relative paths, sorted. */
async function parquetFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.filter((e) => e.endsWith('.parquet')).sort();
}

/** The Parquet type of a column as hyparquet reads the footer: logical type, else converted, else physical. */
function parquetType(element: {
  type?: string;
  logical_type?: { type: string; isAdjustedToUTC?: boolean; bitWidth?: number };
  converted_type?: string;
}): string {
  if (element.logical_type?.type === 'TIMESTAMP')
    return element.logical_type.isAdjustedToUTC ? 'TIMESTAMP_UTC' : 'TIMESTAMP';
  if (element.logical_type?.type === 'INTEGER') return `INT${element.logical_type.bitWidth}`;
  const type = element.logical_type?.type ?? element.converted_type ?? element.type ?? 'GROUP';
  // Parquet's older names of the string and integer annotations.
  const older: Record<string, string> = { UTF8: 'STRING', INT_64: 'INT64', INT_32: 'INT32' };
  return older[type] ?? type;
}

/** What a DuckDB column type must be in the file. */
function expectedType(duckdbType: string): string {
  if (duckdbType.endsWith('[]')) return 'LIST';
  if (duckdbType.startsWith('STRUCT')) return 'GROUP';
  const types: Record<string, string> = {
    VARCHAR: 'STRING',
    JSON: 'JSON',
    BIGINT: 'INT64',
    HUGEINT: 'INT64',
    INTEGER: 'INT32',
    DOUBLE: 'DOUBLE',
    BOOLEAN: 'BOOLEAN',
    'TIMESTAMP WITH TIME ZONE': 'TIMESTAMP_UTC',
    TIMESTAMP: 'TIMESTAMP',
    DATE: 'DATE',
  };
  return types[duckdbType] ?? duckdbType;
}

beforeAll(async () => {
  work = await makeTempDir('airt-parquet-');
  db = path.join(work, 'airt.duckdb');
  out = path.join(work, 'export');
  await loadSnapshots(db, [FIXTURES.first], { now: () => new Date('2026-04-01T00:00:00Z') });
  await loadTriageJournal(db, await journal());
  await exportParquet(db, out);
}, 60_000);

describe('the Parquet export read by an independent reader', () => {
  it('holds every row of every table, with the warehouse column types; timestamps typed', async () => {
    const files = await parquetFiles(out);
    expect(files.length).toBeGreaterThan(20);
    const perTable = new Map<string, number>();
    for (const file of files) {
      const [table, partition] = file.split(path.sep);
      const buffer = await asyncBufferFromFile(path.join(out, file));
      const metadata = await parquetMetadataAsync(buffer);
      const decoded = await parquetReadObjects({ file: buffer, metadata });
      expect(decoded.length, file).toBe(Number(metadata.num_rows));
      perTable.set(String(table), (perTable.get(String(table)) ?? 0) + decoded.length);
      // The columns as DuckDB describes the relation (a partitioned one without its partition column).
      const source = String(table);
      const described = await runQuery(db, `DESCRIBE SELECT * FROM ${source}`);
      const columns = new Map(described.rows.map((r) => [String(r[0]), String(r[1])]));
      if (partition?.startsWith('snapshot_id=')) columns.delete('snapshot_id');
      if (source === 'trials') {
        columns.set('timestamp', 'TIMESTAMP WITH TIME ZONE');
        columns.set('timestamp_text', 'VARCHAR');
      }
      const fields = parquetSchema(metadata).children.map((c) => [c.element.name, parquetType(c.element)]);
      const wanted = [...columns].map(([name, type]) => [name, expectedType(type)]);
      // trials keeps its text timestamp right after the typed one.
      expect(fields.map(([name]) => name).sort(), file).toEqual(wanted.map(([name]) => name).sort());
      expect(Object.fromEntries(fields), file).toEqual(Object.fromEntries(wanted));
    }
    for (const [table, n] of perTable) {
      const [count] = await rows(db, `SELECT count(*) AS n FROM ${table}`);
      expect([table, n]).toEqual([table, Number(count?.n)]);
    }
    const snapshotTypes = await parquetMetadataAsync(
      await asyncBufferFromFile(
        path.join(out, 'snapshots/snapshot_id=20260301T060000Z-first/data_0.parquet'),
      ),
    );
    const fetched = parquetSchema(snapshotTypes).children.find((c) => c.element.name === 'fetched_at');
    expect(fetched && parquetType(fetched.element)).toBe('TIMESTAMP_UTC');
  });

  it('puts rows without a snapshot in snapshot_id=journal, never Hive’s default partition', async () => {
    const files = await parquetFiles(out);
    expect(files.filter((f) => f.includes('__HIVE_DEFAULT_PARTITION__'))).toEqual([]);
    const journalFile = path.join(out, 'findings', `snapshot_id=${JOURNAL_PARTITION}`, 'data_0.parquet');
    const found: Record<string, unknown>[] = await parquetReadObjects({
      file: await asyncBufferFromFile(journalFile),
    });
    expect(found.map((r) => [r.origin, r.attack_run_id])).toEqual([['journal', RUN]]);
  });

  it('adds only the new snapshot’s partitions on the next export, leaving the others as they were', async () => {
    const firstFile = path.join(out, 'trials/snapshot_id=20260301T060000Z-first/data_0.parquet');
    const before = await stat(firstFile);
    // What an export SIGKILLed while writing a partition leaves (its process is gone).
    const abandoned = path.join(out, 'trials/.snapshot_id=20260315T060000Z-second.tmp-999999999-0badf00d');
    await mkdir(abandoned);
    await writeFile(path.join(abandoned, 'data_0.parquet'), 'half');
    await loadSnapshots(db, [FIXTURES.second], { now: () => new Date('2026-04-01T00:00:00Z') });
    const result = await exportParquet(db, out);
    const trials = result.tables.find((t) => t.table === 'trials');
    expect(trials).toMatchObject({ partitions: ['snapshot_id=20260315T060000Z-second'], kept: 1 });
    const after = await stat(firstFile);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    const newFile = path.join(out, 'trials/snapshot_id=20260315T060000Z-second/data_0.parquet');
    const metadata = await parquetMetadataAsync(await asyncBufferFromFile(newFile));
    const [count] = await rows(
      db,
      `SELECT count(*) AS n FROM trials WHERE snapshot_id = '20260315T060000Z-second'`,
    );
    expect(Number(metadata.num_rows)).toBe(Number(count?.n));
    // No temp directory is left beside the partitions.
    expect((await readdir(path.join(out, 'trials'))).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('answers the README’s ASR-by-category query over the export as @asr_by_category does', async () => {
    const readme = await readFile(README, 'utf8');
    const query = /<!-- export-asr-query -->\s*```sql\n([\s\S]*?)```/.exec(readme)?.[1];
    if (!query) throw new Error('README has no export-asr-query block');
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      for (const table of ['metric_category_asr', 'latest_project_snapshots', 'latest_analytics_exclusions'])
        await conn.run(
          `CREATE VIEW ${table} AS SELECT * FROM read_parquet('${path.join(out, table)}/*.parquet')`,
        );
      const reader = await conn.runAndReadAll(query);
      const exported = reader.getRowObjectsJson();
      const named = await runQuery(db, (await readNamedQuery('asr_by_category')).sql);
      const expected = JSON.parse(formatResult(named, 'json')) as Record<string, unknown>[];
      expect(exported.length).toBeGreaterThan(0);
      expect(
        exported.map((r) =>
          Object.fromEntries(
            Object.entries(r).map(([k, v]) => [
              k,
              v === null ? null : Number.isNaN(Number(v)) ? v : Number(v),
            ]),
          ),
        ),
      ).toEqual(expected);
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  });
});
