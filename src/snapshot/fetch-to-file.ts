/**
 * One GET stored under its final name. The body is hashed and counted as it arrives; a small body is
 * held in memory until the response is complete, so the connection slot is free again as soon as
 * the last byte arrives and no file I/O happens while the slot is held (the bodies of a snapshot are
 * mostly small, and the thread pool's file operations would otherwise sit between one request and the
 * next). A body larger than SPILL_BYTES goes chunk by chunk into a hidden temp file instead, so
 * memory stays bounded whatever the size. Either way the file is renamed into place only when whole
 * (fsynced with the others at publishing), and a body cut off mid-stream leaves no file: the client
 * retries the request, and each attempt starts afresh. So does a body that arrived whole but is no
 * answer (`bodyProblem`: not valid JSON), checked before anything is put under the final name.
 */
import { createHash } from 'node:crypto';
import type { ApiClient, RawRequest } from '../api/client-types.js';
import { UnusableBodyError } from '../api/errors.js';
import { openAtomic, type AtomicFile } from './write-atomic.js';

/**
 * Bodies up to this size are held in memory until complete. With the store's 2 × concurrency slots
 * that bounds what is held at 2 × 64 × 1 MiB in the worst case (128 MiB), 16 MiB at the default 8.
 */
export const SPILL_BYTES = 1024 * 1024;

export interface StoredBody {
  sha256: string;
  bytes: number;
  status: number;
}

export interface FetchToFileOptions {
  /**
   * Resolves once the directory of the final path exists. It is awaited before the first file
   * operation, not before the request, so making the directory overlaps the request. Default: exists.
   */
  directory?: Promise<void>;
  /**
   * Hold bodies up to this size in memory (default SPILL_BYTES). The snapshot passes more for the few
   * bodies whose facts decide the next requests (project summaries), so those are parsed from memory
   * at once instead of written chunk by chunk and read back.
   */
  holdUpToBytes?: number;
  /**
   * Called with the body's digest before anything is put under the final name; resolving true means
   * the caller has put the same bytes there itself (a hard link), so nothing is written.
   */
  beforeCommit?: (digest: StoredBody) => Promise<boolean>;
  /**
   * Receives the stored file's descriptor, still open, once the file is under its final name: the
   * callee owns it (and closes it), so it can fsync the file without opening it again. Without it the
   * descriptor is closed here.
   */
  takeDescriptor?: (fd: number) => void;
  /**
   * Called with the whole body, when it is held in memory, as soon as it has arrived and before it is
   * written: what it says can start the next requests while the file is still being stored.
   */
  onReceived?: (content: Uint8Array) => void;
  /**
   * Decides, inside the request, whether the whole body is an answer at all: it returns why not (a
   * body that is not valid JSON: cut short, a proxy's HTML page), and the attempt fails before
   * anything is stored, so the client repeats it like a 502. Gets the body when it is held in memory,
   * else the temp file it was spilled to. Default: every body is accepted.
   */
  bodyProblem?: (body: { content: Uint8Array } | { spilledTo: string }) => Promise<string | undefined>;
}

/** What fetchToFile stored; `content` is the body itself when it was held in memory (not spilled). */
export type FetchedBody = StoredBody & { content?: Uint8Array };

/** A complete body: in memory (`whole`) or in a temp file not yet renamed (`spilled`). */
type Received = { digest: StoredBody } & (
  { whole: Uint8Array; spilled?: undefined } | { whole?: undefined; spilled: AtomicFile }
);

/** Text of a body's start, for the message about a body that is not JSON. */
const START_BYTES = 2048;

/**
 * Sends `request` through the client (auth, retries, concurrency limit, error mapping) and stores a
 * 2xx body at `finalPath`. Non-2xx answers throw the client's typed errors; no file is written.
 * The directory is not fsynced here; the snapshot syncs each directory once before publishing.
 */
export async function fetchToFile(
  client: ApiClient,
  request: RawRequest,
  finalPath: string,
  options: FetchToFileOptions = {},
): Promise<FetchedBody> {
  const holdUpTo = options.holdUpToBytes ?? SPILL_BYTES;
  const received = await client.send(request, async (response): Promise<Received> => {
    const hash = createHash('sha256');
    let bytes = 0;
    const held: Uint8Array[] = [];
    let spilled: AtomicFile | undefined;
    try {
      // A bodiless answer (a 204, say) is an empty body: stored as an empty file, unless bodyProblem refuses it.
      const chunks = (response.body ?? []) as Iterable<Uint8Array> | AsyncIterable<Uint8Array>;
      for await (const chunk of chunks) {
        hash.update(chunk);
        bytes += chunk.byteLength;
        if (spilled) {
          await spilled.write(chunk);
        } else {
          held.push(chunk);
          if (bytes > holdUpTo) {
            await options.directory;
            spilled = await openAtomic(finalPath);
            for (const part of held.splice(0)) await spilled.write(part);
          }
        }
      }
      const digest: StoredBody = { sha256: hash.digest('hex'), bytes, status: response.status };
      const whole = spilled ? undefined : held.length === 1 ? held[0]! : Buffer.concat(held);
      const problem = await options.bodyProblem?.(
        whole ? { content: whole } : { spilledTo: spilled!.tempPath },
      );
      if (problem !== undefined) {
        const start = whole ? new TextDecoder().decode(whole.subarray(0, START_BYTES)) : undefined;
        throw new UnusableBodyError(problem, bytes, start);
      }
      return whole ? { digest, whole } : { digest, spilled: spilled! };
    } catch (error) {
      await spilled?.discard();
      throw error;
    }
  });
  const { digest, whole } = received;
  let file = received.spilled;
  if (whole) options.onReceived?.(whole);
  try {
    await options.directory;
    // The body is whole and hashed: a caller that already has these bytes elsewhere (an earlier
    // snapshot) may put a link at the final name instead, and nothing is written.
    if (options.beforeCommit && (await options.beforeCommit(digest))) {
      await file?.discard();
      return digest;
    }
    if (!file) {
      file = await openAtomic(finalPath);
      await file.write(whole!);
    }
    if (options.takeDescriptor) options.takeDescriptor(await file.commitOpen());
    else await file.commit({ syncDir: false, syncFile: false });
  } catch (error) {
    await file?.discard();
    throw error;
  }
  return whole ? { ...digest, content: whole } : digest;
}
