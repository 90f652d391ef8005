import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  isTempFileName,
  openAtomic,
  removeStaleTempFiles,
  writeFileAtomic,
} from '../../src/snapshot/write-atomic.js';
import { copyFileVerified, hashFile } from '../../src/snapshot/hash-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'airt-atomic-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('atomic writes', () => {
  it('shows nothing under the final name until commit, then the whole file', async () => {
    const target = path.join(dir, 'a.json');
    const file = await openAtomic(target);
    await file.write(Buffer.from('{"half":'));
    expect(await readdir(dir)).toEqual([path.basename(file.tempPath)]);
    expect(isTempFileName(path.basename(file.tempPath))).toBe(true);
    await file.write(Buffer.from('1}'));
    await file.commit();
    expect(await readdir(dir)).toEqual(['a.json']);
    expect(await readFile(target, 'utf8')).toBe('{"half":1}');
  });

  it('discard leaves neither temp nor target', async () => {
    const file = await openAtomic(path.join(dir, 'b.json'));
    await file.write(Buffer.from('partial'));
    await file.discard();
    expect(await readdir(dir)).toEqual([]);
  });

  it('replaces an existing file in one step', async () => {
    const target = path.join(dir, 'c.txt');
    await writeFileAtomic(target, 'old');
    await writeFileAtomic(target, 'new');
    expect(await readFile(target, 'utf8')).toBe('new');
    expect(await readdir(dir)).toEqual(['c.txt']);
  });

  it('removes temp files a killed run left behind, and only those', async () => {
    await writeFile(path.join(dir, '.x.json.abc.tmp'), 'torn');
    await writeFile(path.join(dir, 'keep.json'), '{}');
    expect(await removeStaleTempFiles(dir)).toBe(1);
    expect(await readdir(dir)).toEqual(['keep.json']);
  });

  it('copies only when the hash matches', async () => {
    const source = path.join(dir, 'src.json');
    await writeFile(source, '[1,2,3]');
    const digest = await hashFile(source);
    expect(digest?.bytes).toBe(7);
    const ok = await copyFileVerified(source, path.join(dir, 'ok.json'), digest!.sha256);
    expect(ok).toEqual(digest);
    const bad = await copyFileVerified(source, path.join(dir, 'bad.json'), '0'.repeat(64));
    expect(bad).toBeUndefined();
    expect((await readdir(dir)).sort()).toEqual(['ok.json', 'src.json']);
    expect(await hashFile(path.join(dir, 'missing.json'))).toBeUndefined();
  });
});
