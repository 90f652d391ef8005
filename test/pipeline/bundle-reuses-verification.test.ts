/**
 * `run`'s bundle step hands writeBundle the verify step's result: `bundle` now verifies the snapshot
 * before bundling it (a forced load's snapshot is refused), and without the hand-over a nightly run
 * would hash its whole snapshot (1.4 GB on the large preset) a second time. Measured in bytes read
 * (Linux's /proc/self/io), not time: the snapshot holds a sparse 256 MiB file (zeros taking no disk).
 * A verification that failed, or of a manifest that has changed since, is not taken.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeBundle } from '../../src/pipeline/bundle.js';
import { verifySnapshot, type VerifyResult } from '../../src/snapshot/verify.js';
import { snapshotWithSparseFile } from '../helpers/sparse-snapshot.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

const BIG_BYTES = 2 ** 28;

let work: string;
let snapshot: string;
let verification: VerifyResult;

async function bytesRead(): Promise<number> {
  return Number(/^rchar: (\d+)$/m.exec(await readFile('/proc/self/io', 'utf8'))![1]);
}

beforeAll(async () => {
  work = await makeTempDir('airt-bundle-reuse-');
  ({ snapshot } = await snapshotWithSparseFile(work, BIG_BYTES));
  verification = await verifySnapshot(snapshot);
  expect(verification.ok).toBe(true);
}, 60_000);

/** Writes a bundle of the snapshot (manifest only) and returns the bytes read meanwhile. */
async function bundled(name: string, verified: VerifyResult | undefined): Promise<number> {
  const dir = path.join(work, name);
  await mkdir(dir);
  const before = await bytesRead();
  await writeBundle({
    out: path.join(dir, 'b.zip'),
    snapshotDir: snapshot,
    includeSnapshot: false,
    files: [],
    verified,
  });
  return (await bytesRead()) - before;
}

describe('writeBundle with the caller verification', () => {
  it('does not hash the snapshot again when handed a passed verification of the manifest on disk', async () => {
    expect(await bundled('handed', verification)).toBeLessThan(BIG_BYTES / 8);
  });

  it('verifies itself without one, or when the one handed failed or is of another manifest', async () => {
    expect(await bundled('none', undefined)).toBeGreaterThan(BIG_BYTES);
    expect(await bundled('failed', { ...verification, ok: false })).toBeGreaterThan(BIG_BYTES);
    const other = { ...verification, manifest: { ...verification.manifest, root_sha256: '0'.repeat(64) } };
    expect(await bundled('other', other)).toBeGreaterThan(BIG_BYTES);
  });
});
