/**
 * sha256 of files on disk, read as a stream so a file of any size costs a fixed buffer, and a copy
 * that checks the hash while it copies (how `--since` takes files from an earlier snapshot).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { openAtomic, type AtomicWriteOptions } from './write-atomic.js';

/**
 * Read size when hashing a file: the one buffer a file of any size costs. Shared with the hash-pool
 * workers, which stream files the same way.
 */
export const HASH_READ_CHUNK_BYTES = 256 * 1024;

export interface FileDigest {
  sha256: string;
  bytes: number;
}

/**
 * sha256 and length of a stream of chunks, handing each chunk to `onChunk` (e.g. to write a copy)
 * before reading the next. Errors of the stream or of `onChunk` reject.
 */
export async function digestChunks(
  chunks: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
  onChunk?: (chunk: Uint8Array) => Promise<void>,
): Promise<FileDigest> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of chunks) {
    hash.update(chunk);
    bytes += chunk.byteLength;
    if (onChunk) await onChunk(chunk);
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** A file's chunks; an abort of `signal` destroys the stream (the file is closed) and rejects. */
function readChunks(file: string, signal?: AbortSignal): AsyncIterable<Uint8Array> {
  return createReadStream(file, {
    highWaterMark: HASH_READ_CHUNK_BYTES,
    ...(signal ? { signal } : {}),
  }) as AsyncIterable<Uint8Array>;
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/**
 * Hashes a file; undefined when it does not exist. An abort of `signal` stops it within a chunk and
 * rejects with the signal's reason.
 */
export async function hashFile(file: string, signal?: AbortSignal): Promise<FileDigest | undefined> {
  signal?.throwIfAborted();
  try {
    return await digestChunks(readChunks(file, signal));
  } catch (error) {
    signal?.throwIfAborted();
    if (isMissing(error)) return undefined;
    throw error;
  }
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
    const digest = await digestChunks(readChunks(source), (chunk) => atomic.write(chunk));
    if (digest.sha256 !== expectedSha256) {
      await atomic.discard();
      return undefined;
    }
    await atomic.commit(options);
    return digest;
  } catch (error) {
    await atomic.discard();
    if (isMissing(error)) return undefined;
    throw error;
  }
}
