import { existsSync } from 'node:fs';
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireRunLock, RunLockedError } from '../../src/pipeline/lock.js';
import { applyRetention, listFinishedSnapshots } from '../../src/pipeline/retention.js';
import { diskUsage } from '../../src/snapshot/disk-usage.js';
import { writeFixtureSnapshot } from './snapshot-dir-fixture.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

const noCompromise = (): void => undefined;

describe('run lock', () => {
  it('makes a second run on the same database fail with a message, and lets other databases proceed', async () => {
    const dir = await makeTempDir('airt-lock-');
    const db = path.join(dir, 'airt.duckdb');
    const release = await acquireRunLock([db], { waitSeconds: 0, onCompromised: noCompromise });
    const second = acquireRunLock([db], { waitSeconds: 0, onCompromised: noCompromise });
    await expect(second).rejects.toBeInstanceOf(RunLockedError);
    await expect(second).rejects.toThrow(
      /Another airt-report run holds the lock on .*airt\.duckdb since .*lock\.wait_seconds/,
    );
    const other = await acquireRunLock([path.join(dir, 'other.duckdb')], {
      waitSeconds: 0,
      onCompromised: noCompromise,
    });
    await other();
    await release();
    const again = await acquireRunLock([db], { waitSeconds: 0, onCompromised: noCompromise });
    await again();
    await again(); // releasing twice is harmless
  });

  it('waits for the holder when asked to', async () => {
    const dir = await makeTempDir('airt-lock-');
    const db = path.join(dir, 'airt.duckdb');
    const release = await acquireRunLock([db], { waitSeconds: 0, onCompromised: noCompromise });
    const waiting = acquireRunLock([db], { waitSeconds: 10, onCompromised: noCompromise });
    setTimeout(() => void release(), 300);
    const second = await waiting;
    await second();
  });
});

describe('retention', () => {
  it('deletes only the oldest finished snapshots of this org/workspace, never anything else', async () => {
    const root = path.join(await makeTempDir('airt-retention-'), 'snapshots');
    const workspaceDir = path.join(root, 'acme', 'main');
    for (const [id, day] of [
      ['20260101T000000Z', '01'],
      ['20260102T000000Z', '02'],
      ['20260103T000000Z', '03'],
      ['20260104T000000Z', '04'],
    ] as const) {
      await writeFixtureSnapshot({ root, snapshotId: id, finishedAt: `2026-01-${day}T00:00:00.000Z` });
    }
    // Things that must survive: a partial dir, a dir without manifest, another workspace's manifest,
    // a manifest whose id differs from its directory, a symlinked snapshot, a stray file.
    await mkdir(path.join(workspaceDir, '20251231T000000Z.partial'));
    await mkdir(path.join(workspaceDir, 'notes'));
    await writeFixtureSnapshot({ root, workspace: 'other', snapshotId: '20251201T000000Z' });
    await writeFixtureSnapshot({ root: path.join(root, 'elsewhere'), snapshotId: '20251202T000000Z' });
    await symlink(
      path.join(root, 'elsewhere', 'acme', 'main', '20251202T000000Z'),
      path.join(workspaceDir, '20251202T000000Z'),
    );
    const foreign = await writeFixtureSnapshot({ root, snapshotId: '20251203T000000Z' });
    await writeFile(
      path.join(foreign.dir, 'manifest.json'),
      JSON.stringify({ ...foreign.manifest, workspace: 'other' }),
    );
    await writeFile(path.join(workspaceDir, 'README'), 'keep me');

    expect((await listFinishedSnapshots(workspaceDir, 'acme', 'main')).map((s) => s.snapshotId)).toEqual([
      '20260101T000000Z',
      '20260102T000000Z',
      '20260103T000000Z',
      '20260104T000000Z',
    ]);
    // These fixture snapshots share no files: what deleting frees is all of the deleted one.
    const doomedBytes = (await diskUsage([path.join(workspaceDir, '20260102T000000Z')])).bytes;
    const result = await applyRetention({
      workspaceDir,
      org: 'acme',
      workspace: 'main',
      keepLast: 2,
      protect: ['20260101T000000Z'],
    });
    const kept = ['20260101T000000Z', '20260103T000000Z', '20260104T000000Z'];
    expect(result).toEqual({
      kept,
      deleted: ['20260102T000000Z'],
      keptBytes: (await diskUsage(kept.map((id) => path.join(workspaceDir, id)))).bytes,
      freedBytes: doomedBytes,
    });
    expect(doomedBytes).toBeGreaterThan(0);
    expect((await readdir(workspaceDir)).sort()).toEqual([
      '20251202T000000Z',
      '20251203T000000Z',
      '20251231T000000Z.partial',
      '20260101T000000Z',
      '20260103T000000Z',
      '20260104T000000Z',
      'README',
      'notes',
    ]);
    expect(
      existsSync(path.join(root, 'elsewhere', 'acme', 'main', '20251202T000000Z', 'manifest.json')),
    ).toBe(true);
    expect(existsSync(path.join(root, 'acme', 'other', '20251201T000000Z'))).toBe(true);
  });
});
