/**
 * One GET streamed straight to disk: the body goes chunk by chunk into a hidden temp file while it is
 * hashed and counted, is fsynced, and only then renamed to its final name. Nothing holds the body in
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

/**
 * Sends `request` through the client (auth, retries, concurrency limit, error mapping) and stores a
 * 2xx body at `finalPath`. Non-2xx answers throw the client's typed errors; no file is written.
 * The directory is not fsynced here; the snapshot syncs each directory once before publishing.
 */
export async function fetchToFile(
  client: ApiClient,
  request: RawRequest,
  finalPath: string,
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
    await file.commit({ syncDir: false });
  } catch (error) {
    await file.discard();
    throw error;
  }
  return digest;
}
