/**
 * One GET streamed straight to disk: the body goes chunk by chunk into a hidden temp file while it is
 * hashed and counted, and only then renamed to its final name (fsynced with the others at publishing). Nothing holds the body in
 * memory, and a body cut off mid-stream leaves no file (the client retries the request, and each
 * attempt starts a fresh temp file).
 */
import type { ApiClient, RawRequest } from '../api/client-types.js';
import { digestChunks } from './hash-file.js';
import { openAtomic, type AtomicFile } from './write-atomic.js';

export interface StoredBody {
  sha256: string;
  bytes: number;
  status: number;
}

export interface FetchToFileOptions {
  /**
   * Called with the body's digest before the temp file is committed; resolving true means the caller
   * has put the same bytes at the final path itself (a hard link), so the temp file is discarded.
   */
  beforeCommit?: (digest: StoredBody) => Promise<boolean>;
}

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
): Promise<StoredBody> {
  const { file, digest } = await client.send(request, async (response) => {
    const atomic: AtomicFile = await openAtomic(finalPath);
    try {
      // A bodiless answer (a 204, say) is stored as an empty file.
      const chunks = (response.body ?? []) as Iterable<Uint8Array> | AsyncIterable<Uint8Array>;
      const { sha256, bytes } = await digestChunks(chunks, (chunk) => atomic.write(chunk));
      return { file: atomic, digest: { sha256, bytes, status: response.status } };
    } catch (error) {
      await atomic.discard();
      throw error;
    }
  });
  try {
    // The body is whole and hashed: a caller that already has these bytes elsewhere (an earlier
    // snapshot) may put a link at the final name instead, and the temp file is dropped unsynced.
    if (options.beforeCommit && (await options.beforeCommit(digest))) await file.discard();
    else await file.commit({ syncDir: false, syncFile: false });
  } catch (error) {
    await file.discard();
    throw error;
  }
  return digest;
}
