import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatSnapshotId, isSnapshotId, reserveSnapshotDir } from '../../src/snapshot/snapshot-id.js';
import { formatProgressLine } from '../../src/snapshot/progress.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'airt-id-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('snapshot ids', () => {
  const at = new Date('2026-11-22T09:00:00.456Z');

  it('formats the clock as a compact UTC id', () => {
    expect(formatSnapshotId(at)).toBe('20261122T090000Z');
    expect(isSnapshotId('20261122T090000Z')).toBe(true);
    expect(isSnapshotId('20261122T090000Z-3')).toBe(true);
    expect(isSnapshotId('../20261122T090000Z')).toBe(false);
  });

  it('adds a counter when the id is taken by a finished or unfinished snapshot', async () => {
    const first = await reserveSnapshotDir(dir, at);
    expect(first.snapshotId).toBe('20261122T090000Z');
    expect(first.partialDir).toBe(path.join(dir, '20261122T090000Z.partial'));
    const second = await reserveSnapshotDir(dir, at);
    expect(second.snapshotId).toBe('20261122T090000Z-2');
    await mkdir(path.join(dir, '20261122T090000Z-3'));
    expect((await reserveSnapshotDir(dir, at)).snapshotId).toBe('20261122T090000Z-4');
  });
});

describe('progress line', () => {
  it('shows requests, bytes, retries, failures and an ETA', () => {
    const line = formatProgressLine(
      { done: 100, total: 400, bytes: 3 * 1024 * 1024, retries: 4, failed: 1, reused: 0 },
      10,
    );
    expect(line).toBe('snapshot: 100/400 requests, 3.0 MiB, 4 retries, 1 failed, ETA 30s\n');
  });
});
