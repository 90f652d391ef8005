/**
 * Issue 14: retention prunes the database to the snapshots it keeps. A pruned snapshot's rows leave
 * every table, a trial content leaves only when no kept snapshot holds it, in one transaction: a
 * process SIGKILLed at random points while loading and pruning, again and again, leaves a database
 * that opens and holds every snapshot whole or not at all, never half of one.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { pruneWarehouse } from '../../src/warehouse/prune.js';
import { RELATIONS } from '../../src/warehouse/schema.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { copyFixture, FIXTURES, reseal, rows } from './helpers.js';

const SRC = fileURLToPath(new URL('../../src/warehouse/', import.meta.url));
const FIRST = path.basename(FIXTURES.first);
const SECOND = path.basename(FIXTURES.second);
const THIRD = '20260316T060000Z-third';
const now = () => new Date('2026-04-01T00:00:00Z');
/** SIGKILLs at random points of a loop of 1,000 load+prune rounds (bench/load-kill.ts repeats more). */
const KILLS = 6;

let work: string;
/** The second fixture again under another id: every trial file shared with it. */
let third: string;
let snapshots: string[];

/** Per snapshot: its row count in every relation and its figures, as one comparable text. */
async function perSnapshot(db: string): Promise<Map<string, string>> {
  const counts = RELATIONS.map(
    (t) =>
      `SELECT snapshot_id, '${t.name}' AS t, count(*) AS n FROM ${t.name} WHERE snapshot_id IS NOT NULL GROUP BY ALL`,
  ).join(' UNION ALL ');
  const found = new Map<string, string[]>();
  for (const row of await rows(db, `${counts} ORDER BY ALL`))
    found.set(String(row.snapshot_id), [
      ...(found.get(String(row.snapshot_id)) ?? []),
      `${String(row.t)}=${String(row.n)}`,
    ]);
  const figures = await rows(
    db,
    'SELECT snapshot_id, project_key, figure, value, numerator, denominator FROM metric_project_figures ORDER BY ALL',
  );
  for (const f of figures)
    found
      .get(String(f.snapshot_id))
      ?.push(JSON.stringify([f.project_key, f.figure, f.value, f.numerator, f.denominator]));
  return new Map([...found].map(([id, parts]) => [id, parts.join(' ')]));
}

/** The snapshots the database holds and those it records as pruned (pruned_snapshots). */
async function heldAndPruned(db: string): Promise<{ held: string[]; pruned: string[] }> {
  const ids = async (sql: string) => (await rows(db, sql)).map((r) => String(r.snapshot_id));
  return {
    held: await ids('SELECT snapshot_id FROM snapshots ORDER BY 1'),
    pruned: await ids('SELECT snapshot_id FROM pruned_snapshots ORDER BY 1'),
  };
}

/** Storage invariants: every mapped content stored whole, no content without a snapshot. */
async function storage(db: string) {
  const [s] = await rows(
    db,
    `SELECT (SELECT count(*) FROM trial_content) AS stored,
            (SELECT coalesce(sum(trials), 0) FROM trial_content_files) AS recorded,
            (SELECT count(*) FROM trial_content_files c WHERE NOT EXISTS
               (SELECT 1 FROM snapshot_trial_files f WHERE f.content_key = c.content_key)) AS orphans,
            (SELECT count(*) FROM snapshot_trial_files f WHERE NOT EXISTS
               (SELECT 1 FROM trial_content_files c WHERE f.content_key = c.content_key)) AS dangling`,
  );
  return {
    stored: Number(s?.stored),
    recorded: Number(s?.recorded),
    orphans: s?.orphans,
    dangling: s?.dangling,
  };
}

beforeAll(async () => {
  work = await makeTempDir('airt-prune-');
  const copied = await copyFixture(FIXTURES.second, path.join(work, 'third'));
  third = path.join(path.dirname(copied), THIRD);
  await (await import('node:fs/promises')).rename(copied, third);
  await reseal(third, (m) => {
    m.snapshot_id = THIRD;
    m.finished_at = '2026-03-16T06:00:30.000Z';
  });
  snapshots = [FIXTURES.first, FIXTURES.second, third];
});

describe('pruning the warehouse', () => {
  it('deletes the rows of snapshots not kept, and the trial contents no kept snapshot holds', async () => {
    const db = path.join(work, 'prune.duckdb');
    await loadSnapshots(db, [...snapshots, FIXTURES.partial], { now });
    const before = await perSnapshot(db);
    const kept = await pruneWarehouse(db, {
      org: 'acme',
      workspace: 'main',
      keep: [SECOND, THIRD],
      reason: { run: 'test-run', keepLast: 2 },
      now,
    });
    expect(kept).toEqual({ snapshots: [FIRST], trialRows: 0 });
    // Recorded as pruned, by which run and keep_last, so asking for it says so (pruned-snapshots.ts).
    expect(
      await rows(
        db,
        `SELECT snapshot_id, org, workspace, strftime(pruned_at, '%Y-%m-%dT%H:%M:%SZ') AS at, pruned_by, keep_last
         FROM pruned_snapshots`,
      ),
    ).toEqual([
      {
        snapshot_id: FIRST,
        org: 'acme',
        workspace: 'main',
        at: '2026-04-01T00:00:00Z',
        pruned_by: 'test-run',
        keep_last: 2,
      },
    ]);
    const after = await perSnapshot(db);
    expect([...after.keys()].sort()).toEqual([SECOND, THIRD, path.basename(FIXTURES.partial)].sort());
    for (const [id, text] of after) expect(text).toBe(before.get(id));
    // The first snapshot's trial files are the second's too: nothing of them was deleted.
    expect(await storage(db)).toEqual({ stored: 19, recorded: 19, orphans: 0, dangling: 0 });
    // Another workspace's snapshot is never pruned by this one's retention.
    const all = await pruneWarehouse(db, {
      org: 'acme',
      workspace: 'main',
      keep: [],
      reason: { run: 'test-run', keepLast: 1 },
    });
    expect(all).toEqual({ snapshots: [SECOND, THIRD], trialRows: 19 });
    expect([...(await perSnapshot(db)).keys()]).toEqual([path.basename(FIXTURES.partial)]);
    expect(await storage(db)).toEqual({ stored: 0, recorded: 0, orphans: 0, dangling: 0 });
  });

  it('leaves every snapshot whole or absent when killed at random points of loads and prunes', async () => {
    // What a database holding exactly these snapshots reads (figures read the newest triage state of
    // the snapshots present, so each set of snapshots has its own), loaded cleanly, by set.
    const references = new Map<string, Map<string, string>>();
    const expected = async (ids: readonly string[]): Promise<Map<string, string>> => {
      const key = [...ids].sort().join(',');
      const cached = references.get(key);
      if (cached) return cached;
      const reference = path.join(work, `reference-${references.size}.duckdb`);
      await loadSnapshots(
        reference,
        snapshots.filter((d) => ids.includes(path.basename(d))),
        { now },
      );
      const found = await perSnapshot(reference);
      references.set(key, found);
      return found;
    };
    const db = path.join(work, 'killed.duckdb');
    await loadSnapshots(db, [FIXTURES.first], { now });
    // The child loads the three snapshots and prunes to a random subset of them, over and over.
    const script = path.join(work, 'churn.mts');
    await writeFile(
      script,
      `import { loadSnapshots } from ${JSON.stringify(path.join(SRC, 'loader.ts'))};
       import { pruneWarehouse } from ${JSON.stringify(path.join(SRC, 'prune.ts'))};
       const dirs = ${JSON.stringify(snapshots)};
       const ids = ${JSON.stringify([FIRST, SECOND, THIRD])};
       const now = () => new Date('2026-04-01T00:00:00Z');
       for (let round = 0; round < 1000; round++) {
         await loadSnapshots(${JSON.stringify(db)}, dirs, { now });
         const keep = ids.filter(() => Math.random() < 0.5);
         await pruneWarehouse(${JSON.stringify(db)}, { org: 'acme', workspace: 'main', keep, reason: { run: 'test-run', keepLast: 1 } });
       }`,
    );
    let killed = 0;
    for (let trial = 0; trial < KILLS; trial++) {
      const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: 'ignore' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 600 + Math.random() * 900);
      const signal = await new Promise<NodeJS.Signals | null>((resolve, reject) => {
        child.once('error', reject);
        child.once('exit', (_code, sig) => resolve(sig));
      });
      clearTimeout(timer);
      if (signal === 'SIGKILL') killed++;
      const found = await perSnapshot(db);
      expect(found, `after kill ${trial}`).toEqual(await expected([...found.keys()]));
      // A snapshot is held or recorded as pruned, never both: the record commits with the prune's
      // deletes, and a load that brings the snapshot back removes it in its own transaction.
      const { held, pruned } = await heldAndPruned(db);
      expect(
        held.filter((id) => pruned.includes(id)),
        `after kill ${trial}`,
      ).toEqual([]);
      const s = await storage(db);
      expect(s.stored).toBe(s.recorded);
      expect({ orphans: s.orphans, dangling: s.dangling }).toEqual({ orphans: 0, dangling: 0 });
    }
    expect(killed).toBe(KILLS);
    // The database still loads after all that, and nothing it holds is listed as pruned.
    await loadSnapshots(db, snapshots, { now });
    expect(await perSnapshot(db)).toEqual(await expected([FIRST, SECOND, THIRD]));
    expect((await heldAndPruned(db)).pruned).toEqual([]);
  }, 60_000);
});
