/**
 * --since: trial lists of unchanged, finished assessments are copied from the previous snapshot;
 * changed and new ones are fetched. The result must equal a fresh snapshot byte for byte.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { TERMINAL_STATUSES } from '../../src/snapshot/since.js';
import { takeSnapshot, type SnapshotResult } from '../../src/snapshot/take-snapshot.js';
import { verifySnapshot } from '../../src/snapshot/verify.js';
import { dataFileHashes, SMALL, TOKEN } from './fixtures.js';

let out: string;
let sim: RunningSimulator;
let previous: SnapshotResult;

beforeAll(async () => {
  out = await mkdtemp(path.join(tmpdir(), 'airt-since-'));
  sim = await startSimulator(SMALL);
  previous = await takeSnapshot({ baseUrl: sim.url, org: 'acme', workspace: 'main', token: TOKEN, out });
});

afterAll(async () => {
  await sim.close();
  await rm(out, { recursive: true, force: true });
});

describe('--since', () => {
  it('reuses unchanged trial lists, re-fetches changed ones, and equals a fresh snapshot', async () => {
    sim.setEpoch(1);
    const options = { baseUrl: sim.url, org: 'acme', workspace: 'main', token: TOKEN, out };
    let before = sim.stats().requests;
    const incremental = await takeSnapshot({ ...options, since: previous.dir });
    const incrementalRequests = sim.stats().requests - before;
    before = sim.stats().requests;
    const fresh = await takeSnapshot(options);
    const freshRequests = sim.stats().requests - before;

    expect(await dataFileHashes(incremental.dir)).toEqual(await dataFileHashes(fresh.dir));
    expect((await verifySnapshot(incremental.dir)).ok).toBe(true);
    expect(incremental.manifest.options.since).toBe(previous.dir);

    const previousTrials = new Map(
      previous.manifest.files.filter((f) => f.kind === 'trials').map((f) => [f.assessment_id, f]),
    );
    const trials = incremental.manifest.files.filter((f) => f.kind === 'trials');
    const reused = trials.filter((f) => f.reused_from);
    const fetchedAgain = trials.filter((f) => !f.reused_from && previousTrials.has(f.assessment_id));
    const added = trials.filter((f) => !previousTrials.has(f.assessment_id));
    expect(reused.length).toBeGreaterThan(0);
    expect(fetchedAgain.length).toBeGreaterThan(0);
    expect(added.length).toBeGreaterThan(0);
    expect(incrementalRequests).toBe(freshRequests - reused.length);

    for (const file of reused) {
      const old = previousTrials.get(file.assessment_id)!;
      expect(file.reused_from).toEqual({ snapshot_id: previous.snapshotId, sha256: old.sha256 });
      expect(file.sha256).toBe(old.sha256);
      expect(file.assessment_updated_at).toBe(old.assessment_updated_at);
      expect(TERMINAL_STATUSES).toContain(file.assessment_status);
    }
    for (const file of fetchedAgain) {
      const old = previousTrials.get(file.assessment_id)!;
      const unchanged =
        old.assessment_updated_at === file.assessment_updated_at &&
        old.assessment_status === file.assessment_status &&
        TERMINAL_STATUSES.includes(file.assessment_status ?? '');
      expect(unchanged, file.path).toBe(false);
    }
  });

  it('fetches instead of copying a previous file whose hash no longer matches', async () => {
    const victim = previous.manifest.files.find(
      (f) => f.kind === 'trials' && TERMINAL_STATUSES.includes(f.assessment_status ?? ''),
    )!;
    const dir = await mkdtemp(path.join(tmpdir(), 'airt-since-damaged-'));
    try {
      const copy = await takeSnapshot({
        baseUrl: sim.url,
        org: 'acme',
        workspace: 'main',
        token: TOKEN,
        out: dir,
      });
      await writeFile(path.join(copy.dir, victim.path), '[]');
      const next = await takeSnapshot({
        baseUrl: sim.url,
        org: 'acme',
        workspace: 'main',
        token: TOKEN,
        out: dir,
        since: copy.dir,
      });
      const entry = next.manifest.files.find((f) => f.path === victim.path)!;
      expect(entry.reused_from).toBeUndefined();
      expect((await verifySnapshot(next.dir)).ok).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
