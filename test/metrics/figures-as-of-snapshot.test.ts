/**
 * A snapshot's figures are a function of its files: loading a newer snapshot (whose findings/ carry
 * triage made since) changes no figure of an older snapshot, in either load order, so a report
 * attached to an audit re-renders as it was. Found by a user: the first
 * snapshot's findings_open dropped from 32 to 31 once a second snapshot, taken after a finding was
 * marked a false positive, was loaded.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { METRIC_VIEW_NAMES } from '../../src/warehouse/metric-views.js';
import { FIXTURES, rows, tempDir } from '../warehouse/helpers.js';

const FIRST = '20260301T060000Z-first';
/** In both snapshots; triaged (accepted_risk) only in the second's findings/. */
const TRIAGED_LATER = 'f0000000-0000-4000-8000-000000003001';

/** Every metric view's rows of the first snapshot, in a fixed order. */
async function firstSnapshotFigures(db: string): Promise<Record<string, unknown[]>> {
  const figures: Record<string, unknown[]> = {};
  for (const view of METRIC_VIEW_NAMES)
    figures[view] = await rows(db, `SELECT * FROM ${view} WHERE snapshot_id = '${FIRST}' ORDER BY ALL`);
  return figures;
}

describe("an older snapshot's figures", () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;

  beforeAll(async () => {
    work = await tempDir();
    db = path.join(work.dir, 'airt.duckdb');
  });
  afterAll(() => work.cleanup());

  it('are the same before and after a newer snapshot is loaded', async () => {
    await loadSnapshots(db, [FIXTURES.first]);
    const before = await firstSnapshotFigures(db);
    expect(before.metric_findings?.length).toBeGreaterThan(0);
    await loadSnapshots(db, [FIXTURES.second]);
    expect(await firstSnapshotFigures(db)).toEqual(before);
  });

  it('do not take triage a later snapshot brought, which the later snapshot does', async () => {
    const status = await rows(
      db,
      `SELECT snapshot_id, finding_status FROM metric_findings WHERE attack_run_id = '${TRIAGED_LATER}' ORDER BY ALL`,
    );
    expect(status).toEqual([
      { snapshot_id: FIRST, finding_status: 'open' },
      { snapshot_id: '20260315T060000Z-second', finding_status: 'accepted_risk' },
    ]);
  });

  it('are the same whatever order the snapshots were loaded in', async () => {
    const reversed = path.join(work.dir, 'reversed.duckdb');
    await loadSnapshots(reversed, [FIXTURES.second, FIXTURES.first]);
    expect(await firstSnapshotFigures(reversed)).toEqual(await firstSnapshotFigures(db));
    await rm(reversed, { force: true });
  });
});
