import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  buildSnapshotId,
  formatSnapshotId,
  isSnapshotId,
  randomSnapshotSuffix,
  reserveSnapshotDir,
  snapshotSlug,
} from '../../src/snapshot/snapshot-id.js';
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
  const reserve = (suffixes: string[]) =>
    reserveSnapshotDir({
      parent: dir,
      now: at,
      org: 'acme',
      workspace: 'prod',
      suffix: () => suffixes.shift()!,
    });

  it('starts with the compact UTC second, then the org/workspace slug and a short suffix', () => {
    expect(formatSnapshotId(at)).toBe('20261122T090000Z');
    expect(buildSnapshotId(at, 'acme', 'prod', '3f9a')).toBe('20261122T090000Z-acme-prod-3f9a');
    expect(isSnapshotId('20261122T090000Z-acme-prod-3f9a')).toBe(true);
    expect(randomSnapshotSuffix()).toMatch(/^[0-9a-f]{4}$/);
  });

  it('still accepts the ids older versions wrote', () => {
    expect(isSnapshotId('20261122T090000Z')).toBe(true);
    expect(isSnapshotId('20261122T090000Z-3')).toBe(true);
    expect(isSnapshotId('../20261122T090000Z')).toBe(false);
    expect(isSnapshotId('20261122T090000Z-acme/../x-3f9a')).toBe(false);
  });

  it('sanitizes the slug into a safe, readable path segment', () => {
    expect(snapshotSlug('Acme Corp', 'Prod/EU')).toBe('acme-corp-prod-eu');
    expect(snapshotSlug('../..', '\u202eévil\n')).toBe('x-vil');
    expect(snapshotSlug('a'.repeat(100), 'b')).toBe(`${'a'.repeat(24)}-b`);
    expect(isSnapshotId(buildSnapshotId(at, '../..', 'Prod EU', 'beef'))).toBe(true);
  });

  it('draws another suffix when the id is taken by a finished or unfinished snapshot', async () => {
    const first = await reserve(['aaaa']);
    expect(first.snapshotId).toBe('20261122T090000Z-acme-prod-aaaa');
    expect(first.partialDir).toBe(path.join(dir, '20261122T090000Z-acme-prod-aaaa.partial'));
    await mkdir(path.join(dir, '20261122T090000Z-acme-prod-bbbb'));
    expect((await reserve(['aaaa', 'bbbb', 'cccc'])).snapshotId).toBe('20261122T090000Z-acme-prod-cccc');
  });

  it('gives up with a clear error when the suffix source never yields a free id', async () => {
    await reserve(['aaaa']);
    await expect(
      reserveSnapshotDir({ parent: dir, now: at, org: 'acme', workspace: 'prod', suffix: () => 'aaaa' }),
    ).rejects.toThrow(/No free snapshot id 20261122T090000Z-acme-prod-… in .* after 100 attempts/);
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
