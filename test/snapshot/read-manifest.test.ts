/**
 * readManifest validates a manifest's text once per process (a load reads it three times): the same
 * text is given back from what was validated, as a copy of its own; any change on disk is read and
 * validated again.
 */
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NotASnapshotError, readManifest } from '../../src/snapshot/verify.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

const FIXTURE = fileURLToPath(
  new URL('../../fixtures/snapshots/acme/main/20260315T060000Z-second', import.meta.url),
);

describe('reading a manifest again', () => {
  it('gives each caller a copy of its own, and reads and validates again whatever changed on disk', async () => {
    const dir = path.join(await makeTempDir('airt-read-manifest-'), 'snapshot');
    await cp(FIXTURE, dir, { recursive: true });
    const file = path.join(dir, 'manifest.json');
    const first = await readManifest(dir);
    first.files.length = 0;
    first.snapshot_id = 'changed by the caller';
    const second = await readManifest(dir);
    expect(second.snapshot_id).toBe('20260315T060000Z-second');
    expect(second.files.length).toBeGreaterThan(0);

    const text = await readFile(file, 'utf8');
    const renamed = JSON.parse(text) as { workspace: string; files: { path: string }[] };
    await writeFile(file, JSON.stringify({ ...renamed, workspace: 'renamed' }));
    expect((await readManifest(dir)).workspace).toBe('renamed');

    // Damaged after a good read: refused, not taken from the earlier validation.
    await writeFile(file, JSON.stringify({ ...renamed, files: 'none' }));
    await expect(readManifest(dir)).rejects.toThrow(NotASnapshotError);
    const escaping = { ...renamed, files: [{ ...renamed.files[0], path: '../outside.json' }] };
    await writeFile(file, JSON.stringify(escaping));
    await expect(readManifest(dir)).rejects.toThrow(/lists a path outside the snapshot/);
    await writeFile(file, text);
    expect((await readManifest(dir)).workspace).toBe(renamed.workspace);
  });
});
