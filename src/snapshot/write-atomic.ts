/**
 * Atomic file writes: temp file → write → fsync → rename → fsync of the directory. A reader (or a
 * resumed run after SIGKILL) sees either no file or the whole file, never a torn one.
 *
 * Temp files are hidden (`.<name>.<random>.tmp`) in the target's own directory so the rename never
 * crosses filesystems; `removeStaleTempFiles` clears what a killed run left behind.
 */
import { randomBytes } from 'node:crypto';
import { close, fsync, open, rename, write } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';

const TEMP_SUFFIX = '.tmp';

/**
 * Temp names are this process's random part plus a counter: unique among concurrent writers to the
 * same directory (and `wx` refuses a clash rather than overwrite), without asking the system's random
 * source once per file.
 */
const PROCESS_TAG = randomBytes(4).toString('hex');
let tempCounter = 0;

/** A fresh hidden temp name next to `file` (same directory, so a rename never crosses filesystems). */
export function tempPathFor(file: string): string {
  tempCounter = (tempCounter + 1) % Number.MAX_SAFE_INTEGER;
  return path.join(
    path.dirname(file),
    `.${path.basename(file)}.${PROCESS_TAG}${tempCounter.toString(16)}${TEMP_SUFFIX}`,
  );
}

/** True for the temp files this module creates. */
export function isTempFileName(name: string): boolean {
  return name.startsWith('.') && name.endsWith(TEMP_SUFFIX);
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
  /**
   * Renames into place without an fsync and hands over the still-open descriptor (read-write, the
   * file's bytes final), so the caller can fsync it later without opening the file again. The caller
   * must close it (closeDescriptor); a failed rename closes it here.
   */
  commitOpen(): Promise<number>;
  /** Close and delete the temp file; safe to call after commit or twice. */
  discard(): Promise<void>;
}

// The snapshot writes hundreds of small files a second from the thread that also drives the
// requests: the callback API on a bare descriptor costs that thread a fraction of what a FileHandle
// and its promises do per call, so the file operations below use it.

function callback<T>(
  run: (done: (error: NodeJS.ErrnoException | null, value: T) => void) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => run((error, value) => (error ? reject(error) : resolve(value))));
}

/** Closes a descriptor handed over by `commitOpen`. */
export function closeDescriptor(fd: number): Promise<void> {
  return callback<void>((done) => close(fd, (error) => done(error, undefined)));
}

/** fsyncs a descriptor handed over by `commitOpen`. */
export function syncDescriptor(fd: number): Promise<void> {
  return callback<void>((done) => fsync(fd, (error) => done(error, undefined)));
}

function renameFile(from: string, to: string): Promise<void> {
  return callback<void>((done) => rename(from, to, (error) => done(error, undefined)));
}

/**
 * fsync a directory so a rename inside it survives a power loss. Some platforms refuse to open a
 * directory for syncing; there the rename is still atomic, only its durability is best-effort.
 */
export async function syncDirectory(dir: string): Promise<void> {
  let fd: number | undefined;
  try {
    fd = await callback<number>((done) => open(dir, 'r', done));
    await syncDescriptor(fd);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EPERM') throw error;
  } finally {
    if (fd !== undefined) await closeDescriptor(fd);
  }
}

/** fsyncs a finished file by name (opened read-only: its bytes are not touched). */
export async function syncFileAt(file: string): Promise<void> {
  const fd = await callback<number>((done) => open(file, 'r', done));
  try {
    await syncDescriptor(fd);
  } finally {
    await closeDescriptor(fd);
  }
}

async function writeAll(fd: number, chunk: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < chunk.byteLength) {
    offset += await callback<number>((done) =>
      write(fd, chunk, offset, chunk.byteLength - offset, null, done),
    );
  }
}

/** Opens a fresh temp file for `file` (the final name is untouched until commit). */
export async function openAtomic(file: string): Promise<AtomicFile> {
  const tempPath = tempPathFor(file);
  const fd = await callback<number>((done) => open(tempPath, 'wx', 0o644, done));
  let state: 'open' | 'committed' | 'discarded' = 'open';
  const claim = (): void => {
    if (state !== 'open') throw new Error(`Atomic file ${file} already ${state}`);
    state = 'committed';
  };
  return {
    finalPath: file,
    tempPath,
    write: (chunk) => writeAll(fd, chunk),
    async commit(options = {}) {
      claim();
      try {
        if (options.syncFile !== false) await syncDescriptor(fd);
      } finally {
        await closeDescriptor(fd);
      }
      await renameFile(tempPath, file);
      if (options.syncDir !== false) await syncDirectory(path.dirname(file));
    },
    async commitOpen() {
      claim();
      try {
        await renameFile(tempPath, file);
      } catch (error) {
        await closeDescriptor(fd).catch(() => undefined);
        throw error;
      }
      return fd;
    },
    async discard() {
      if (state !== 'open') return;
      state = 'discarded';
      await closeDescriptor(fd).catch(() => undefined);
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
