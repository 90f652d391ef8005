/**
 * Hashing many files (verify): on worker threads, or on this thread when they are small in all
 * (INLINE_HASH_BYTES). Both ways give every file's sha256 and length in input order, undefined for a
 * missing file, and reject on a file that cannot be read.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { hashFiles, INLINE_HASH_BYTES } from '../../src/snapshot/hash-pool.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

const run = promisify(execFile);
const HASH_POOL = fileURLToPath(new URL('../../src/snapshot/hash-pool.ts', import.meta.url));

describe('hashing many files', () => {
  it('gives the same digests in input order on this thread and on workers, undefined where missing', async () => {
    const dir = await makeTempDir('airt-hash-pool-');
    const contents = ['', 'a', 'é😀\n', 'x'.repeat(700_000)];
    const files = await Promise.all(
      contents.map(async (text, i) => {
        const file = path.join(dir, `f${i}.json`);
        await writeFile(file, text);
        return file;
      }),
    );
    const listed = [files[3]!, path.join(dir, 'missing.json'), ...files.slice(0, 3)];
    const expected = [contents[3]!, null, ...contents.slice(0, 3)].map((text) =>
      text === null
        ? undefined
        : { sha256: createHash('sha256').update(text).digest('hex'), bytes: Buffer.byteLength(text) },
    );
    const total = contents.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
    expect(total).toBeLessThan(INLINE_HASH_BYTES);
    expect(await hashFiles(listed, { totalBytes: total })).toEqual(expected);
    expect(await hashFiles(listed, { threads: 2 })).toEqual(expected);
    expect(await hashFiles(listed, { threads: 2, totalBytes: INLINE_HASH_BYTES })).toEqual(expected);
  });

  it('hashes on workers in a host whose scripts are ES modules (--input-type=module, as a flag or in NODE_OPTIONS)', async () => {
    const dir = await makeTempDir('airt-hash-pool-');
    const file = path.join(dir, 'f.json');
    await writeFile(file, 'x'.repeat(1000));
    const script = `
      const { hashFiles } = await import(${JSON.stringify(pathToFileURL(HASH_POOL).href)});
      process.stdout.write(JSON.stringify(await hashFiles([${JSON.stringify(file)}], { threads: 1 })));`;
    const expected = [{ sha256: createHash('sha256').update('x'.repeat(1000)).digest('hex'), bytes: 1000 }];
    const asFlag = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
    expect(JSON.parse(asFlag.stdout)).toEqual(expected);
    const inOptions = await run(process.execPath, ['--import', 'tsx', '-e', script], {
      env: { ...process.env, NODE_OPTIONS: '--input-type=module' },
    });
    expect(JSON.parse(inOptions.stdout)).toEqual(expected);
  });

  it('rejects a file that cannot be read, either way', async () => {
    const dir = await makeTempDir('airt-hash-pool-');
    const notAFile = path.join(dir, 'a-directory');
    await mkdir(notAFile);
    await expect(hashFiles([notAFile], { totalBytes: 0 })).rejects.toThrow();
    await expect(hashFiles([notAFile])).rejects.toThrow(/Cannot read/);
  });
});
