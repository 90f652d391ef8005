/**
 * sha256 of files on disk, read as a stream so a file of any size costs a fixed buffer, and a copy
 * that checks the hash while it copies (how `--since` takes files from an earlier snapshot).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { openAtomic, type AtomicWriteOptions } from './write-atomic.js';

export interface FileDigest {
  sha256: string;
  bytes: number;
}

/** Hashes a file; undefined when it does not exist. */
export async function hashFile(file: string): Promise<FileDigest | undefined> {
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    for await (const chunk of createReadStream(file, {
      highWaterMark: 256 * 1024,
    }) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      bytes += chunk.length;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return { sha256: hash.digest('hex'), bytes };
}

/**
 * Copies `source` to `target` atomically if, and only if, its sha256 is `expectedSha256`. Returns the
 * digest, or undefined (and leaves `target` untouched) when the source is missing or differs.
 */
export async function copyFileVerified(
  source: string,
  target: string,
  expectedSha256: string,
  options: AtomicWriteOptions = {},
): Promise<FileDigest | undefined> {
  const atomic = await openAtomic(target);
  try {
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of createReadStream(source, {
      highWaterMark: 256 * 1024,
    }) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      bytes += chunk.length;
      await atomic.write(chunk);
    }
    const sha256 = hash.digest('hex');
    if (sha256 !== expectedSha256) {
      await atomic.discard();
      return undefined;
    }
    await atomic.commit(options);
    return { sha256, bytes };
  } catch (error) {
    await atomic.discard();
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
