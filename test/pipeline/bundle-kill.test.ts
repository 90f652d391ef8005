/**
 * `bundle` killed (SIGKILL) at random points while it verifies, writes and checks the zip: the target
 * is the earlier good bundle, byte for byte, or the new complete one (never a partial or unchecked
 * zip), and the next bundle to the same target removes what the killed ones left (their temp files).
 * The snapshot carries a sparse 16 MiB file and is bundled whole, so each run lasts long enough for
 * kills to land in every phase. Repeated (three kills a run, at random points; more in a loop by hand) to catch a race; every wait is bounded.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyBundle } from '../../src/pipeline/verify-bundle.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { snapshotWithSparseFile } from '../helpers/sparse-snapshot.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

const BIG_BYTES = 16 * 1024 * 1024;
const KILLS = 3;

let work: string;
let snapshot: string;

const sha256 = async (file: string): Promise<string> =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

beforeAll(async () => {
  work = await makeTempDir('airt-bundle-kill-');
  ({ snapshot } = await snapshotWithSparseFile(work, BIG_BYTES));
});

describe('bundle killed at random points', () => {
  it('leaves the earlier bundle or the new complete one, and the next bundle cleans up', async () => {
    const out = path.join(work, 'bundle.zip');
    const args = ['bundle', '--snapshot', snapshot, '--out', out, '--include-snapshot'];
    const first = await runCli(args);
    expect(first.code, first.stderr).toBe(0);
    const good = await sha256(out);
    for (let kill = 0; kill < KILLS; kill++) {
      const { child, finished } = spawnCli(args);
      // Spread over the run: tsx start-up, verification, hashing, compression, the check, the rename.
      const delay = 300 + Math.floor(Math.random() * 1500);
      const timer = setTimeout(() => child.kill('SIGKILL'), delay);
      const run = await finished;
      clearTimeout(timer);
      const where = `kill ${kill} after ${delay} ms: exit ${run.code ?? run.signal}\n${run.stderr}`;
      // The same inputs give the same bytes: whether the kill landed before or after the rename,
      // the target is a whole bundle that verifies.
      expect(await sha256(out), where).toBe(good);
      expect((await verifyBundle(out)).ok, where).toBe(true);
    }
    const again = await runCli(args);
    expect(again.code, again.stderr).toBe(0);
    expect(await sha256(out)).toBe(good);
    expect((await readdir(work)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  }, 120_000);
});
