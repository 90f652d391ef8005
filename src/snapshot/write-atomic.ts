/**
 * Atomic file writes: temp file → write → fsync → rename → fsync of the directory. A reader (or a
 * resumed run after SIGKILL) sees either no file or the whole file, never a torn one.
 *
 * Temp files are hidden (`.<name>.<random>.tmp`) in the target's own directory so the rename never
 * crosses filesystems; `removeStaleTempFiles` clears what a killed run left behind.
 */
import { randomBytes } from 'node:crypto';
import { open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

const TEMP_SUFFIX = '.tmp';

/** A fresh hidden temp name next to `file` (same directory, so a rename never crosses filesystems). */
export function tempPathFor(file: string): string {
  return path.join(
    path.dirname(file),
    `.${path.basename(file)}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`,
  );
}

/** True for the temp files this module creates. */
export function isTempFileName(name: string): boolean {
  return name.startsWith('.') && name.endsWith(TEMP_SUFFIX);
}

/**
 * fsync a directory so a rename inside it survives a power loss. Some platforms refuse to open a
 * directory for syncing; there the rename is still atomic, only its durability is best-effort.
 */
export async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EPERM') throw error;
  } finally {
    await handle?.close();
  }
}

export interface AtomicWriteOptions {
  /**
   * fsync the file before the rename (default true). The snapshot's data files pass false: they are
   * fsynced together when the snapshot is published, before the manifest vouches for them (see
   * publish.ts). Until then a power loss can at worst leave a file whose bytes differ from its
   * journal line, and `--resume` re-hashes every file before it keeps one.
   */
  syncFile?: boolean;
  /**
   * fsync the directory after the rename (default true). Bulk writers pass false and sync each
   * directory once before they publish (the snapshot does so before writing its manifest).
   */
  syncDir?: boolean;
}

/** A file being written; invisible under its final name until `commit`. */
export interface AtomicFile {
  readonly finalPath: string;
  readonly tempPath: string;
  write(chunk: Uint8Array): Promise<void>;
  /** fsync, close and rename into place. */
  commit(options?: AtomicWriteOptions): Promise<void>;
  /** Close and delete the temp file; safe to call after commit or twice. */
  discard(): Promise<void>;
}

/** Opens a fresh temp file for `file` (the final name is untouched until commit). */
export async function openAtomic(file: string): Promise<AtomicFile> {
  const tempPath = tempPathFor(file);
  const handle = await open(tempPath, 'wx', 0o644);
  let state: 'open' | 'committed' | 'discarded' = 'open';
  return {
    finalPath: file,
    tempPath,
    async write(chunk) {
      let offset = 0;
      while (offset < chunk.byteLength) {
        const { bytesWritten } = await handle.write(chunk, offset, chunk.byteLength - offset);
        offset += bytesWritten;
      }
    },
    async commit(options = {}) {
      if (state !== 'open') throw new Error(`Atomic file ${file} already ${state}`);
      state = 'committed';
      try {
        if (options.syncFile !== false) await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(tempPath, file);
      if (options.syncDir !== false) await syncDirectory(path.dirname(file));
    },
    async discard() {
      if (state !== 'open') return;
      state = 'discarded';
      await handle.close().catch(() => undefined);
      await rm(tempPath, { force: true });
    },
  };
}

/** Writes a whole small file atomically (the manifest, findings, journal snapshots). */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const atomic = await openAtomic(file);
  try {
    await atomic.write(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    await atomic.commit(options);
  } catch (error) {
    await atomic.discard();
    throw error;
  }
}

/** Deletes temp files a killed run left in `dir` and its subdirectories. Returns how many. */
export async function removeStaleTempFiles(dir: string): Promise<number> {
  let removed = 0;
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  for (const entry of entries) {
    if (entry.isFile() && isTempFileName(entry.name)) {
      await rm(path.join(entry.parentPath, entry.name), { force: true });
      removed++;
    }
  }
  return removed;
}
