/**
 * Snapshot ids of different workspaces taken in the same second (a nightly cron starting acme/prod
 * and acme/staging at 02:00) must differ, so one warehouse can hold both; ids still sort by time.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/diff/warehouse-source.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { takeSnapshot } from '../../src/snapshot/take-snapshot.js';
import { openWarehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

const SCALE = { assessmentsPerProject: 1, attacksPerAssessment: 2, trialsPerAttack: 2, evaluationJobs: 2 };

let prod: RunningSimulator;
let staging: RunningSimulator;
let work: string;

beforeAll(async () => {
  [prod, staging] = await Promise.all([
    startSimulator({ projects: 1, scale: SCALE, workspace: 'prod', seed: 1 }),
    startSimulator({ projects: 1, scale: SCALE, workspace: 'staging', seed: 2 }),
  ]);
  work = await makeTempDir('airt-snapshot-ids-');
});

afterAll(async () => {
  await Promise.all([prod?.close(), staging?.close()]);
});

describe('snapshot ids across workspaces', () => {
  it('3 parallel acme/prod + acme/staging pairs in the same second get distinct ids and load into one database', async () => {
    const out = path.join(work, 'snapshots');
    // Pair i runs at 02:00:0i of night i+1; within a pair both start in the same second.
    const times = [0, 1, 2].map((i) => new Date(Date.UTC(2026, 10, 24 + i, 2, 0, i, 250)));
    const results = await Promise.all(
      times.flatMap((time) =>
        [prod, staging].map((sim) =>
          takeSnapshot(
            { baseUrl: sim.url, org: sim.org, workspace: sim.workspace, token: sim.token, out },
            { now: () => time },
          ),
        ),
      ),
    );
    const ids = results.map((result) => result.snapshotId);
    expect(new Set(ids).size).toBe(6);
    expect(ids[0]).toMatch(/^20261124T020000Z-acme-prod-[0-9a-f]{4}$/);
    expect(ids[1]).toMatch(/^20261124T020000Z-acme-staging-[0-9a-f]{4}$/);
    // Text order is time order: each pair sorts before the next night's.
    const sorted = [...ids].sort();
    expect(sorted.slice(0, 2).sort()).toEqual(ids.slice(0, 2).sort());
    expect(sorted.slice(2, 4).sort()).toEqual(ids.slice(2, 4).sort());
    expect(sorted.slice(4, 6).sort()).toEqual(ids.slice(4, 6).sort());

    const db = path.join(work, 'warehouse.duckdb');
    for (const result of results) await loadSnapshots(db, [result.dir]);
    const warehouse = await openWarehouse(db, { readOnly: true });
    try {
      const rows = await queryRows(
        warehouse.conn,
        'SELECT snapshot_id, workspace FROM snapshots ORDER BY snapshot_id',
      );
      expect(rows.map((row) => row.snapshot_id)).toEqual(sorted);
      expect(rows.filter((row) => row.workspace === 'prod')).toHaveLength(3);
      expect(rows.filter((row) => row.workspace === 'staging')).toHaveLength(3);
    } finally {
      warehouse.close();
    }
  });
});
