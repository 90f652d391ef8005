/**
 * A copy of the first fixture snapshot holding one big file of zeros, written sparse (it takes no
 * disk) and listed in the manifest with its true sha256 (the snapshot verifies). For tests that
 * measure what a command reads, in bytes (Linux's /proc/<pid>/io), or need it to run long enough to
 * be stopped midway.
 */
import { createHash } from 'node:crypto';
import { cp, open, readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { computeRootHash, MANIFEST_FILE, type Manifest } from '../../src/snapshot/manifest.js';
import { FIXTURES } from '../warehouse/helpers.js';

/** Where the big file sits in the snapshot: a finding file, the kind verify and bundles read whole. */
export const SPARSE_FILE_PATH = 'findings/f0000000-0000-4000-8000-00000000beef.json';

/** Copies the fixture into `work` with `bytes` zeros at SPARSE_FILE_PATH, resealed. */
export async function snapshotWithSparseFile(
  work: string,
  bytes: number,
): Promise<{ snapshot: string; bigFile: string }> {
  const snapshot = path.join(work, path.basename(FIXTURES.first));
  await cp(FIXTURES.first, snapshot, { recursive: true });
  // Real path: the big file as /proc shows it among a process's open files.
  const bigFile = path.join(await realpath(snapshot), SPARSE_FILE_PATH);
  const handle = await open(bigFile, 'w');
  await handle.truncate(bytes);
  await handle.close();
  const zeros = Buffer.alloc(4 * 1024 * 1024);
  const hash = createHash('sha256');
  for (let done = 0; done < bytes; done += zeros.length)
    hash.update(zeros.subarray(0, Math.min(zeros.length, bytes - done)));
  const manifestFile = path.join(snapshot, MANIFEST_FILE);
  const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as Manifest;
  const finding = manifest.files.find((f) => f.kind === 'finding')!;
  manifest.files.push({ ...finding, path: SPARSE_FILE_PATH, sha256: hash.digest('hex'), bytes });
  manifest.root_sha256 = computeRootHash(manifest.files);
  await writeFile(manifestFile, JSON.stringify(manifest, null, 2));
  return { snapshot, bigFile };
}
