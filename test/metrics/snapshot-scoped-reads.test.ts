/**
 * Issue 14: a report reads one snapshot, and what it costs must not grow with the snapshots the
 * database holds (a nightly run renders reports every night, for months). DuckDB's profiler counts the
 * rows every operator of a query produced: a metric view that computes every snapshot's rows before
 * the reader's snapshot filter applies (DuckDB pushes no filter through a lateral join, a full join, or
 * a left join whose ON holds a condition on one side only) makes that count grow with every snapshot
 * loaded. Measured before the fix on the large preset: a project's metric_consistency produced 12×
 * the rows with 15 snapshots as with one, and the portfolio report took 3.9 s and 665 MB instead of 2.5 s
 * and 395 MB.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWarehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { METRIC_VIEW_NAMES } from '../../src/warehouse/metric-views.js';
import { FIXTURES, producedRows, snapshotVariant, tempDir, type ProfileNode } from '../warehouse/helpers.js';

const SNAPSHOT = '20260315T060000Z-second';
/** Earlier snapshots of the same workspace in the database with history (copies of the first fixture). */
const EARLIER = 6;

interface Read {
  rows: unknown[];
  /** Rows all operators of the query produced (DuckDB's profile). */
  produced: number;
}

/** Every metric view's rows of SNAPSHOT's projects, with the rows its query produced. */
async function readViews(db: string, profileFile: string): Promise<Map<string, Read>> {
  const warehouse = await openWarehouse(db, { readOnly: true });
  const { conn } = warehouse;
  try {
    const projects = (
      await conn.runAndReadAll('SELECT project_key FROM projects WHERE snapshot_id = $1 ORDER BY 1', [
        SNAPSHOT,
      ])
    ).getRows();
    const reads = new Map<string, Read>();
    for (const view of METRIC_VIEW_NAMES) {
      for (const [project] of projects) {
        await conn.run("PRAGMA enable_profiling = 'json'");
        await conn.run(`PRAGMA profiling_output = '${profileFile}'`);
        const result = await conn.runAndReadAll(
          `SELECT * FROM ${view} WHERE snapshot_id = $1 AND project_key = $2 ORDER BY ALL`,
          [SNAPSHOT, String(project)],
        );
        await conn.run('PRAGMA disable_profiling');
        const profile = JSON.parse(await readFile(profileFile, 'utf8')) as ProfileNode;
        reads.set(`${view} ${String(project)}`, {
          rows: result.getRowsJson(),
          produced: producedRows(profile),
        });
      }
    }
    return reads;
  } finally {
    warehouse.close();
  }
}

describe('a metric view read for one snapshot', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let alone: Map<string, Read>;
  let withHistory: Map<string, Read>;

  beforeAll(async () => {
    work = await tempDir();
    const aloneDb = path.join(work.dir, 'alone.duckdb');
    await loadSnapshots(aloneDb, [FIXTURES.second]);
    // The same snapshot among many: the first fixture and copies of it under later ids, each a snapshot
    // with its own rows in every table the metric views read.
    const historyDb = path.join(work.dir, 'history.duckdb');
    const earlier = [FIXTURES.first];
    for (let day = 2; day < 2 + EARLIER; day++) {
      const id = `202603${String(day).padStart(2, '0')}T060000Z-copy`;
      earlier.push(
        await snapshotVariant(
          FIXTURES.first,
          work.dir,
          id,
          `2026-03-${String(day).padStart(2, '0')}T06:00:30.000Z`,
        ),
      );
    }
    await loadSnapshots(historyDb, [...earlier, FIXTURES.second]);
    alone = await readViews(aloneDb, path.join(work.dir, 'alone.json'));
    withHistory = await readViews(historyDb, path.join(work.dir, 'history.json'));
  }, 120_000);

  afterAll(async () => {
    await work.cleanup();
  });

  it('gives the same rows whatever other snapshots the database holds', () => {
    expect(withHistory.size).toBeGreaterThan(METRIC_VIEW_NAMES.length);
    for (const [read, { rows }] of alone) expect(withHistory.get(read)?.rows, read).toEqual(rows);
  });

  it('produces no more rows with seven earlier snapshots loaded than alone', () => {
    // A finding's triage and acceptance are its own snapshot's (snapshot_finding_triage): no view
    // reads another snapshot's rows for them either.
    const grown = [...alone].flatMap(([read, { produced }]) => {
      const after = withHistory.get(read)?.produced ?? Infinity;
      return after > produced * 1.1 + 50 ? [`${read}: ${produced} → ${after}`] : [];
    });
    expect(grown).toEqual([]);
  });
});
