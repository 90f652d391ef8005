/**
 * A snapshot that fails before it fetched anything worth keeping (the service refuses the token,
 * nothing listens at the address) removes its `.partial` directory; it also left the
 * `<out>/<org>/<workspace>/` folders it had created for it, empty, so a first snapshot that failed
 * looked like a workspace with a lost snapshot. Now the output tree is as it was before: the folders
 * the run created are removed, folders that existed before (empty or not) are kept.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAuthenticationError } from '../../src/api/errors.js';
import { CliError } from '../../src/errors.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { takeSnapshot } from '../../src/snapshot/take-snapshot.js';
import { deadBaseUrl } from '../helpers/dead-base-url.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { FAST_RETRY, listAll, SMALL } from './fixtures.js';

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator(SMALL);
});

afterAll(async () => {
  await sim?.close();
});

/**
 * A root holding three output directories: one that does not exist yet, one where the org folder
 * exists and holds a file, one where the org/workspace folders exist, empty.
 */
async function outputRoots(): Promise<{ root: string; outs: string[] }> {
  const root = await makeTempDir('airt-failed-folders-');
  await mkdir(path.join(root, 'org-exists', sim.org), { recursive: true });
  await writeFile(path.join(root, 'org-exists', sim.org, 'notes.txt'), 'kept\n');
  await mkdir(path.join(root, 'workspace-exists', sim.org, sim.workspace), { recursive: true });
  return {
    root,
    outs: ['fresh/snapshots', 'org-exists', 'workspace-exists'].map((out) => path.join(root, out)),
  };
}

describe('a failed first snapshot leaves the output tree as it was', () => {
  it('after the service refused the token', async () => {
    const { root, outs } = await outputRoots();
    const before = await listAll(root);
    for (const out of outs) {
      const error = await takeSnapshot({
        baseUrl: sim.url,
        org: sim.org,
        workspace: sim.workspace,
        token: 'wrong-token-123',
        out,
      }).catch((e: unknown) => e);
      expect(isAuthenticationError(error), String(error)).toBe(true);
    }
    expect(await listAll(root)).toEqual(before);
    expect(await readdir(root)).not.toContain('fresh');
  });

  it('after nothing answered at the address', async () => {
    const { root, outs } = await outputRoots();
    const before = await listAll(root);
    const baseUrl = await deadBaseUrl();
    for (const out of outs) {
      const error = await takeSnapshot({
        baseUrl,
        org: sim.org,
        workspace: sim.workspace,
        token: 'any-token',
        out,
        retry: { ...FAST_RETRY, maxAttempts: 1 },
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).message).toMatch(
        /^Nothing was fetched, so there is no snapshot: .*ECONNREFUSED/,
      );
    }
    expect(await listAll(root)).toEqual(before);
    expect(await readdir(root)).not.toContain('fresh');
  });
});
