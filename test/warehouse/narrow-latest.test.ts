/**
 * Issue 14: what a read costs must not grow with the nights a database holds. The latest_metric_*
 * views (named queries, the viewer, the export's latest_findings) joined every snapshot's figures to
 * latest_project_snapshots, so DuckDB computed them all first: on the large preset, `query
 * @compliance_coverage` took 0.96 s and 465 MB with 30 nightly snapshots against 0.45 s and 159 MB with
 * the newest alone. A read-only connection now shadows them with the same rows, its newest snapshots'
 * ids written as constants (narrow-latest.ts). DuckDB's profiler counts the rows each read produced.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWarehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { METRIC_VIEW_NAMES } from '../../src/warehouse/metric-views.js';
import { MAX_NARROWED_SNAPSHOTS, narrowLatestMetricViews } from '../../src/warehouse/narrow-latest.js';
import { runQuery } from '../../src/warehouse/query.js';
import { FIXTURES, producedRows, snapshotVariant, tempDir, type ProfileNode } from './helpers.js';

/** Earlier nights of acme/main before the newest (copies of the first fixture under later ids). */
const EARLIER = 5;

interface Read {
  rows: unknown[];
  /** Rows all operators of the read produced (DuckDB's profile). */
  produced: number;
}

/** Every latest_metric_* view's rows and the rows its read produced, narrowed or as stored. */
async function readLatest(db: string, profileFile: string, narrowed: boolean): Promise<Map<string, Read>> {
  const warehouse = await openWarehouse(db, { readOnly: true });
  const { conn } = warehouse;
  try {
    if (narrowed) expect(await narrowLatestMetricViews(conn)).toBe(true);
    const reads = new Map<string, Read>();
    for (const view of METRIC_VIEW_NAMES.map((name) => `latest_${name}`)) {
      await conn.run("PRAGMA enable_profiling = 'json'");
      await conn.run(`PRAGMA profiling_output = '${profileFile}'`);
      const result = await conn.runAndReadAll(`SELECT * FROM ${view} ORDER BY ALL`);
      await conn.run('PRAGMA disable_profiling');
      const profile = JSON.parse(await readFile(profileFile, 'utf8')) as ProfileNode;
      reads.set(view, { rows: result.getRowsJson(), produced: producedRows(profile) });
    }
    return reads;
  } finally {
    warehouse.close();
  }
}

describe('the latest_metric_* views of a read-only connection', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let historyDb: string;
  let aloneDb: string;
  let stored: Map<string, Read>;
  let narrowed: Map<string, Read>;
  let alone: Map<string, Read>;

  beforeAll(async () => {
    work = await tempDir();
    const earlier = [FIXTURES.first];
    for (let day = 2; day < 2 + EARLIER; day++) {
      const date = `2026-03-${String(day).padStart(2, '0')}`;
      const id = `${date.replaceAll('-', '')}T060000Z-copy`;
      earlier.push(await snapshotVariant(FIXTURES.first, work.dir, id, `${date}T06:00:30.000Z`));
    }
    // Two workspaces, so two newest snapshots: acme/main's and acme/staging's.
    const newest = [FIXTURES.second, FIXTURES.partial];
    historyDb = path.join(work.dir, 'history.duckdb');
    await loadSnapshots(historyDb, [...earlier, ...newest], { force: true });
    aloneDb = path.join(work.dir, 'alone.duckdb');
    await loadSnapshots(aloneDb, newest, { force: true });
    const profile = path.join(work.dir, 'profile.json');
    stored = await readLatest(historyDb, profile, false);
    narrowed = await readLatest(historyDb, profile, true);
    alone = await readLatest(aloneDb, profile, false);
  }, 120_000);

  afterAll(async () => {
    await work.cleanup();
  });

  it('give the rows the stored views give', () => {
    expect(narrowed.size).toBe(METRIC_VIEW_NAMES.length);
    expect([...stored.values()].some(({ rows }) => rows.length > 0)).toBe(true);
    for (const [view, { rows }] of stored) expect(narrowed.get(view)?.rows, view).toEqual(rows);
  });

  it('produce about the rows of the newest snapshots alone, whatever the nights before them', () => {
    // What still grows is bookkeeping: latest_project_snapshots ranks the projects of every snapshot,
    // and a finding's triage is the newest any snapshot gave it (finding_triage): a few rows a night.
    // The stored views computed every snapshot's figures: 3-4x the rows alone with these 6 nights.
    const nights = EARLIER + 1;
    const grown = [...alone].flatMap(([view, { produced }]) => {
      const after = narrowed.get(view)?.produced ?? Infinity;
      return after > produced * (1 + 0.05 * nights) + 25 * nights ? [`${view}: ${produced} → ${after}`] : [];
    });
    expect(grown).toEqual([]);
  });

  it('are narrowed for a query that names them, with the same result', async () => {
    const narrowedRead = await runQuery(
      historyDb,
      'SELECT * FROM latest_metric_framework_coverage ORDER BY ALL',
    );
    // The database's own view, named with its catalog (a TEMP view never shadows a qualified name).
    const storedRead = await runQuery(
      historyDb,
      'SELECT * FROM history.main.latest_metric_framework_coverage ORDER BY ALL',
    );
    expect(narrowedRead.rows.length).toBe(stored.get('latest_metric_framework_coverage')?.rows.length);
    expect(narrowedRead.rows.length).toBeGreaterThan(0);
    expect(narrowedRead.rows).toEqual(storedRead.rows);
  });

  it('stay as stored when more workspaces than MAX_NARROWED_SNAPSHOTS have a newest snapshot', async () => {
    // One snapshot in each of that many workspaces and one more: as many newest snapshots.
    const workspaces = [];
    for (let i = 0; i <= MAX_NARROWED_SNAPSHOTS; i++) {
      workspaces.push(
        await snapshotVariant(
          FIXTURES.first,
          path.join(work.dir, 'workspaces'),
          `20260401T0600${String(i).padStart(2, '0')}Z-ws`,
          '2026-04-01T06:00:30.000Z',
          async (dir, manifest) => {
            manifest.workspace = `ws-${i}`;
            await writeFile(path.join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
          },
        ),
      );
    }
    const db = path.join(work.dir, 'workspaces.duckdb');
    await loadSnapshots(db, workspaces);
    const warehouse = await openWarehouse(db, { readOnly: true });
    try {
      expect(await narrowLatestMetricViews(warehouse.conn)).toBe(false);
      const figures = await warehouse.conn.runAndReadAll(
        'SELECT count(DISTINCT snapshot_id) FROM latest_metric_project_figures',
      );
      expect(Number(figures.getRows()[0]![0])).toBe(MAX_NARROWED_SNAPSHOTS + 1);
    } finally {
      warehouse.close();
    }
  });

  it('stay as stored when every snapshot is a newest one (nothing to leave out)', async () => {
    const warehouse = await openWarehouse(aloneDb, { readOnly: true });
    try {
      expect(await narrowLatestMetricViews(warehouse.conn)).toBe(false);
    } finally {
      warehouse.close();
    }
  });

  it('stay as stored on a connection that can write', async () => {
    const warehouse = await openWarehouse(historyDb);
    try {
      expect(await narrowLatestMetricViews(warehouse.conn)).toBe(false);
      const temp = await warehouse.conn.runAndReadAll(
        "SELECT count(*) FROM duckdb_views() WHERE temporary AND view_name LIKE 'latest_metric_%'",
      );
      expect(Number(temp.getRows()[0]![0])).toBe(0);
    } finally {
      warehouse.close();
    }
  });
});
