/**
 * Snapshots share unchanged content: with --since, unchanged trial lists are hard links to the
 * previous snapshot's files (same inode), fetched bodies identical to the previous file at the same
 * path are linked too, a copy is made only where linking is impossible, and the manifest says which.
 * Every snapshot stays self-contained: deleting the older one leaves the newer one verifying.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { diskUsage } from '../../src/snapshot/disk-usage.js';
import type { ManifestFile } from '../../src/snapshot/manifest.js';
import { TERMINAL_STATUSES } from '../../src/snapshot/since.js';
import { takeSnapshot, type SnapshotOptions } from '../../src/snapshot/take-snapshot.js';
import { verifySnapshot } from '../../src/snapshot/verify.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { dataFileHashes, readManifestFile, SMALL, TOKEN } from './fixtures.js';

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator(SMALL);
});

afterAll(async () => {
  await sim.close();
});

function options(out: string, extra: Partial<SnapshotOptions> = {}): SnapshotOptions {
  return { baseUrl: sim.url, org: 'acme', workspace: 'main', token: TOKEN, out, ...extra };
}

const inode = (dir: string, file: ManifestFile): number => statSync(path.join(dir, file.path)).ino;
const trialsOf = (files: readonly ManifestFile[]): ManifestFile[] => files.filter((f) => f.kind === 'trials');

describe('snapshots share unchanged files', () => {
  it('links every file of an unchanged service, and deleting the first snapshot leaves the second whole', async () => {
    sim.setEpoch(0);
    const out = await makeTempDir('airt-share-');
    const first = await takeSnapshot(options(out));
    expect(first.manifest.files.every((f) => f.stored === 'fetched' && f.linked_from === undefined)).toBe(
      true,
    );
    const firstHashes = await dataFileHashes(first.dir);

    let before = sim.stats().requests;
    const second = await takeSnapshot(options(out, { since: first.dir }));
    const requests = sim.stats().requests - before;

    const trials = trialsOf(second.manifest.files);
    const finished = trials.filter((f) => TERMINAL_STATUSES.includes(f.assessment_status ?? ''));
    expect(finished.length).toBeGreaterThan(0);
    // Finished trial lists are not requested at all; everything else is requested again.
    expect(requests).toBe(second.manifest.files.length - finished.length);
    for (const file of second.manifest.files) {
      // Unchanged service: every body equals the first snapshot's, so every file is a link to it.
      expect(file.stored, file.path).toBe('linked');
      expect(file.linked_from, file.path).toBe(first.snapshotId);
      expect(inode(second.dir, file), file.path).toBe(inode(first.dir, file));
    }
    for (const file of finished) {
      expect(file.reused_from).toEqual({ snapshot_id: first.snapshotId, sha256: file.sha256 });
    }
    // Validation results are carried over for shared bytes (same checks, same bytes).
    const firstByPath = new Map(first.manifest.files.map((f) => [f.path, f]));
    for (const file of second.manifest.files) {
      const old = firstByPath.get(file.path)!;
      expect([file.records, file.issues, file.unknown_keys]).toEqual([
        old.records,
        old.issues,
        old.unknown_keys,
      ]);
    }
    expect(second.manifest.root_sha256).toBe(first.manifest.root_sha256);
    // On disk the second snapshot costs its manifest and nothing else (shared files counted once).
    const both = await diskUsage([first.dir, second.dir]);
    expect(both.bytes - (await diskUsage([first.dir])).bytes).toBe(
      statSync(path.join(second.dir, 'manifest.json')).size,
    );
    expect(both.apparentBytes).toBeGreaterThan(both.bytes);
    expect((await verifySnapshot(second.dir)).ok).toBe(true);
    // Sharing never touched the first snapshot.
    expect(await dataFileHashes(first.dir)).toEqual(firstHashes);
    expect((await verifySnapshot(first.dir)).ok).toBe(true);

    await rm(first.dir, { recursive: true, force: true });
    const alone = await verifySnapshot(second.dir);
    expect(alone.ok, JSON.stringify(alone.modified)).toBe(true);
    expect(await dataFileHashes(second.dir)).toEqual(firstHashes);

    // And the chain goes on from the survivor.
    before = sim.stats().requests;
    const third = await takeSnapshot(options(out, { since: second.dir }));
    expect(sim.stats().requests - before).toBe(requests);
    expect(third.manifest.files.every((f) => f.linked_from === second.snapshotId)).toBe(true);
    expect((await verifySnapshot(third.dir)).ok).toBe(true);
  });

  it('after an epoch change, re-fetches only what changed and links the rest', async () => {
    sim.setEpoch(0);
    const out = await makeTempDir('airt-share-epoch-');
    const day1 = await takeSnapshot(options(out));
    sim.setEpoch(1);
    const before = sim.stats().requests;
    const day2 = await takeSnapshot(options(out, { since: day1.dir }));
    const requests = sim.stats().requests - before;
    // Linking changes where bytes live, never which bytes: day 2 equals a fresh snapshot of epoch 1.
    const fresh = await takeSnapshot(options(await makeTempDir('airt-share-fresh-')));
    sim.setEpoch(0);
    expect(await dataFileHashes(day2.dir)).toEqual(await dataFileHashes(fresh.dir));
    expect(day2.manifest.root_sha256).toBe(fresh.manifest.root_sha256);

    const day1Trials = new Map(trialsOf(day1.manifest.files).map((f) => [f.assessment_id, f]));
    const reused = trialsOf(day2.manifest.files).filter((f) => f.reused_from);
    const requested = trialsOf(day2.manifest.files).filter((f) => !f.reused_from);
    expect(reused.length).toBeGreaterThan(0);
    expect(requested.length).toBeGreaterThan(0);
    expect(requests).toBe(day2.manifest.files.length - reused.length);
    for (const file of reused) {
      expect(file.stored).toBe('linked');
      expect(inode(day2.dir, file)).toBe(inode(day1.dir, day1Trials.get(file.assessment_id)!));
    }
    for (const file of requested) {
      const old = day1Trials.get(file.assessment_id);
      // Requested again only when new, still running, or changed since day 1.
      const unchanged =
        old !== undefined &&
        old.assessment_updated_at === file.assessment_updated_at &&
        old.assessment_status === file.assessment_status &&
        TERMINAL_STATUSES.includes(file.assessment_status ?? '');
      expect(unchanged, file.path).toBe(false);
      // A requested body is linked exactly when it came back byte-identical.
      const same = old !== undefined && old.sha256 === file.sha256 && old.path === file.path;
      expect(file.stored, file.path).toBe(same ? 'linked' : 'fetched');
    }
    // Changed data (new assessments, the moved evaluation listing) got files of its own.
    expect(day2.manifest.files.some((f) => f.stored === 'fetched')).toBe(true);
    expect(day2.manifest.root_sha256).not.toBe(day1.manifest.root_sha256);
    expect((await verifySnapshot(day2.dir)).ok).toBe(true);
    expect((await verifySnapshot(day1.dir)).ok).toBe(true);
  });

  it('copies, and says so, where a hard link is impossible', async () => {
    sim.setEpoch(0);
    const out = await makeTempDir('airt-share-copy-');
    const first = await takeSnapshot(options(out));
    const refuse = (): Promise<void> =>
      Promise.reject(Object.assign(new Error('EXDEV: cross-device link not permitted'), { code: 'EXDEV' }));
    const second = await takeSnapshot(options(out, { since: first.dir }), { link: refuse });
    const finished = trialsOf(second.manifest.files).filter((f) => f.reused_from);
    expect(finished.length).toBeGreaterThan(0);
    for (const file of finished) {
      expect(file.stored).toBe('copied');
      expect(file.linked_from).toBeUndefined();
      expect(inode(second.dir, file)).not.toBe(inode(first.dir, file));
    }
    expect(second.manifest.files.filter((f) => !f.reused_from).every((f) => f.stored === 'fetched')).toBe(
      true,
    );
    expect((await verifySnapshot(second.dir)).ok).toBe(true);
  });

  it.skipIf(statSync('/dev/shm', { throwIfNoEntry: false })?.dev === statSync(tmpdir()).dev)(
    'copies from a previous snapshot on another filesystem (real EXDEV)',
    async () => {
      sim.setEpoch(0);
      const elsewhere = await mkdtemp(path.join('/dev/shm', 'airt-share-xdev-'));
      try {
        const first = await takeSnapshot(options(elsewhere));
        const second = await takeSnapshot(
          options(await makeTempDir('airt-share-xdev-'), { since: first.dir }),
        );
        const reused = second.manifest.files.filter((f) => f.reused_from);
        expect(reused.length).toBeGreaterThan(0);
        expect(reused.every((f) => f.stored === 'copied')).toBe(true);
        expect((await verifySnapshot(second.dir)).ok).toBe(true);
      } finally {
        await rm(elsewhere, { recursive: true, force: true });
      }
    },
  );

  it('hashes a previous file modified after it was published before sharing it, and fetches it when it differs', async () => {
    sim.setEpoch(0);
    const out = await makeTempDir('airt-share-damaged-');
    const first = await takeSnapshot(options(out));
    const victim = trialsOf(first.manifest.files).find((f) =>
      TERMINAL_STATUSES.includes(f.assessment_status ?? ''),
    )!;
    const file = path.join(first.dir, victim.path);
    const original = await readFile(file);
    // Same size, other bytes: only the modification time gives it away without reading it.
    await writeFile(file, Buffer.from(original).fill(0x20));
    const second = await takeSnapshot(options(out, { since: first.dir }));
    const entry = second.manifest.files.find((f) => f.path === victim.path)!;
    expect(entry.reused_from).toBeUndefined();
    expect(entry.stored).toBe('fetched');
    expect(inode(second.dir, entry)).not.toBe(inode(first.dir, victim));
    expect((await verifySnapshot(second.dir)).ok).toBe(true);
  });

  it('trusts the previous manifest without re-reading bytes; verify still re-hashes and catches a forged file', async () => {
    sim.setEpoch(0);
    const out = await makeTempDir('airt-share-forged-');
    const first = await takeSnapshot(options(out));
    const victim = trialsOf(first.manifest.files).find((f) =>
      TERMINAL_STATUSES.includes(f.assessment_status ?? ''),
    )!;
    const file = path.join(first.dir, victim.path);
    const { mtime, atime } = statSync(file);
    const original = await readFile(file);
    // A forgery that keeps size and modification time: sharing does not read it (that is the point
    // of trusting the manifest), so it propagates by link — and verify, which re-hashes, reports it.
    await writeFile(file, Buffer.from(original).fill(0x20));
    await utimes(file, atime, mtime);
    const second = await takeSnapshot(options(out, { since: first.dir }));
    const entry = second.manifest.files.find((f) => f.path === victim.path)!;
    expect(entry.stored).toBe('linked');
    expect(entry.sha256).toBe(victim.sha256);
    const result = await verifySnapshot(second.dir);
    expect(result.ok).toBe(false);
    expect(result.modified.map((m) => m.path)).toEqual([victim.path]);
    expect(
      createHash('sha256')
        .update(await readFile(path.join(second.dir, victim.path)))
        .digest('hex'),
    ).not.toBe(victim.sha256);
  });

  it('a manifest written before sharing existed (no stored, no linked_from) still verifies and serves as --since', async () => {
    sim.setEpoch(0);
    const out = await makeTempDir('airt-share-old-');
    const made = await takeSnapshot(options(out));
    const oldDir = path.join(out, 'old-copy', made.snapshotId);
    await cp(made.dir, oldDir, { recursive: true, preserveTimestamps: true });
    const manifest = await readManifestFile(oldDir);
    const stripped = {
      ...manifest,
      files: manifest.files.map(({ stored: _stored, linked_from: _from, ...rest }) => rest),
    };
    await writeFile(path.join(oldDir, 'manifest.json'), JSON.stringify(stripped, null, 2) + '\n');
    expect((await verifySnapshot(oldDir)).ok).toBe(true);
    const next = await takeSnapshot(options(out, { since: oldDir }));
    const reused = next.manifest.files.filter((f) => f.reused_from);
    expect(reused.length).toBeGreaterThan(0);
    expect(reused.every((f) => f.stored === 'linked')).toBe(true);
    expect((await verifySnapshot(next.dir)).ok).toBe(true);
  });
});
