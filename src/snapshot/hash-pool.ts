/**
 * Hashes many files on worker threads, so verifying a big snapshot uses every core instead of one (the
 * main thread only waits). A worker streams each file through sha256 with a fixed buffer, like
 * hashFile() (same read size); results keep the order of the input. The workers live for one call and
 * are terminated when it settles, also when it rejects.
 *
 * An abort of the caller's signal stops it at once, a file of any size: the workers are terminated
 * mid-file (Node closes the files a worker opened when it exits: trackUnmanagedFds), and on this
 * thread the file's stream is destroyed at the abort.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { HASH_READ_CHUNK_BYTES, hashFile, type FileDigest } from './hash-file.js';

/**
 * The worker's source (eval'd: no separate file to resolve from src/ or dist/, so it cannot import
 * hashFile and repeats its loop). It takes Node's modules from process.getBuiltinModule, neither
 * require nor import: a worker inherits the host's flags and NODE_OPTIONS, and under
 * --input-type=module (a script given to node -e) eval'd source is an ES module, with no require.
 */
const WORKER_SOURCE = `
const { parentPort } = process.getBuiltinModule('node:worker_threads');
const { createHash } = process.getBuiltinModule('node:crypto');
const { createReadStream } = process.getBuiltinModule('node:fs');
parentPort.on('message', async ({ index, file }) => {
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: ${HASH_READ_CHUNK_BYTES} })) {
      hash.update(chunk);
      bytes += chunk.length;
    }
    parentPort.postMessage({ index, sha256: hash.digest('hex'), bytes });
  } catch (error) {
    parentPort.postMessage({ index, missing: error.code === 'ENOENT', error: String(error.message ?? error) });
  }
});`;

interface WorkerReply {
  index: number;
  sha256?: string;
  bytes?: number;
  missing?: boolean;
  error?: string;
}

/**
 * Below this many bytes in all, files are hashed on this thread, one after another: starting the
 * workers costs more than it saves (a changed night's ~50 MB: ~45 ms here, ~75 ms on two workers).
 */
export const INLINE_HASH_BYTES = 64 * 1024 * 1024;

/**
 * Hashes `files` (undefined for a file that does not exist), at most `threads` at a time; on this
 * thread when `totalBytes` (their size in all, if known) is under INLINE_HASH_BYTES. An abort of
 * `signal` stops it within a chunk of the files being read, and it rejects with the signal's reason.
 */
export async function hashFiles(
  files: readonly string[],
  {
    threads = Math.min(availableParallelism(), 4),
    totalBytes,
    signal,
  }: { threads?: number; totalBytes?: number; signal?: AbortSignal | undefined } = {},
): Promise<(FileDigest | undefined)[]> {
  signal?.throwIfAborted();
  const results: (FileDigest | undefined)[] = new Array<FileDigest | undefined>(files.length);
  if (files.length === 0) return results;
  if (totalBytes !== undefined && totalBytes < INLINE_HASH_BYTES) {
    for (const [i, file] of files.entries()) results[i] = await hashFile(file, signal);
    return results;
  }
  const workers = Array.from(
    { length: Math.max(1, Math.min(threads, files.length)) },
    // trackUnmanagedFds (Node's default, stated): a worker terminated mid-file leaves the file closed.
    () => new Worker(WORKER_SOURCE, { eval: true, trackUnmanagedFds: true }),
  );
  let next = 0;
  let stopListening = (): void => undefined;
  const aborted = new Promise<void>((resolve) => {
    if (!signal) return;
    const onAbort = (): void => resolve();
    signal.addEventListener('abort', onAbort, { once: true });
    stopListening = () => signal.removeEventListener('abort', onAbort);
  });
  try {
    const hashing = Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            const send = (): void => {
              if (next >= files.length) {
                resolve();
                return;
              }
              const index = next++;
              worker.postMessage({ index, file: files[index] });
            };
            worker.on('message', (reply: WorkerReply) => {
              if (reply.sha256 !== undefined && reply.bytes !== undefined) {
                results[reply.index] = { sha256: reply.sha256, bytes: reply.bytes };
              } else if (!reply.missing) {
                reject(new Error(`Cannot read ${files[reply.index]}: ${reply.error ?? 'unknown error'}`));
                return;
              }
              send();
            });
            worker.on('error', reject);
            // A worker that dies without an 'error' (process.exit, out of memory) must not leave us waiting.
            worker.on('exit', (code) => reject(new Error(`A hashing worker exited (code ${code}) mid-run.`)));
            send();
          }),
      ),
    );
    // An abort does not wait for the workers: the finally below terminates them mid-file.
    await Promise.race([hashing, aborted]);
    signal?.throwIfAborted();
  } finally {
    stopListening();
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
  return results;
}
