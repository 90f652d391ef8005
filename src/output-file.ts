/**
 * Writing a file the user named (`--out`, a run's outputs, a bundle, triage's remaining rows): one
 * helper, so every command refuses the same paths with the same message and never leaves half a file.
 *
 *   check path ──▶ temp file beside the target ──▶ write (abortable) ──▶ fsync ──▶ rename ──▶ fsync dir
 *
 * - Only a regular file (or a new name) is replaced. A FIFO, a device, a socket, a directory or a
 *   symbolic link is refused, because rename would silently swap it for a regular file (as root,
 *   `--out /dev/full` replaced the device). Symlinks are refused rather than followed: writing
 *   through one lets whoever controls the link choose which file gets replaced.
 * - Paths under /proc, /sys and /dev are refused up front (after resolving symlinks of the
 *   directory): their files are not storage, and some block forever.
 * - The directory must exist and be a directory; it is never created here (a typo in `--out` should
 *   not grow a tree). Every refusal and failure is a typed error with one paragraph naming the path,
 *   never the temp file's name, and touches nothing.
 * - Writes are asynchronous in chunks and check the AbortSignal between them, so SIGINT/SIGTERM stop
 *   a large write promptly; a failed or aborted write removes its temp file. A SIGKILL cannot be
 *   caught: the hidden temp file it leaves (`.<name>.<pid>-<hex>.tmp`) is removed by the next write
 *   to the same target once its process is gone, and the target itself is always the old or the new
 *   complete content.
 */
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { lstat, mkdir, open, readdir, realpath, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { isProcessAlive } from './process-alive.js';
import { CliError, EXIT } from './errors.js';
import { terminalSafe } from './text-safety.js';

/** The path cannot be an output (wrong kind of file, missing directory, a system path): exit 2. */
export class OutputPathError extends CliError {
  override readonly name = 'OutputPathError';
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message, EXIT.usage);
  }
}

/** Writing failed (permission, read-only or full file system, I/O error): exit 1, target unchanged. */
export class OutputWriteError extends CliError {
  override readonly name = 'OutputWriteError';
  constructor(
    message: string,
    readonly path: string,
    readonly code: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, EXIT.failure, options);
  }
}

const SYSTEM_ROOTS = ['/proc', '/sys', '/dev'];
const CHUNK_BYTES = 1 << 20;
const TEMP_PATTERN = /^\.(.*)\.(\d+)-[0-9a-f]{12}\.tmp$/u;

function show(file: string): string {
  return terminalSafe(file);
}

function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

function kindOf(stats: Stats): string | null {
  if (stats.isFile()) return null;
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

function underSystemRoot(resolved: string): string | undefined {
  return SYSTEM_ROOTS.find((root) => resolved === root || resolved.startsWith(`${root}/`));
}

/** The directory holding `target`, resolved through symlinks; refuses a missing one and system paths. */
async function outputDirectory(target: string): Promise<string> {
  const dir = path.dirname(target);
  const early = underSystemRoot(target);
  if (early !== undefined) throw systemPath(target, early);
  let resolved: string;
  try {
    resolved = await realpath(dir);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT') {
      throw new OutputPathError(
        `Cannot write ${show(target)}: the directory ${show(dir)} does not exist. Create it first or choose another path.`,
        target,
      );
    }
    if (code === 'ENOTDIR') {
      throw new OutputPathError(
        `Cannot write ${show(target)}: a part of ${show(dir)} is a file, not a directory. Choose another path.`,
        target,
      );
    }
    throw writeFailure(error, target);
  }
  const root = underSystemRoot(resolved);
  if (root !== undefined) throw systemPath(target, root);
  if (!(await stat(resolved)).isDirectory()) {
    throw new OutputPathError(
      `Cannot write ${show(target)}: ${show(dir)} is a file, not a directory. Choose another path.`,
      target,
    );
  }
  return dir;
}

function systemPath(target: string, root: string): OutputPathError {
  return new OutputPathError(
    `Cannot write ${show(target)}: paths under ${root} are system files, not storage, and are refused. ` +
      'Choose a path in a normal directory.',
    target,
  );
}

/** Refuses `target` unless it is a regular file or a new name in an existing, ordinary directory. */
export async function checkOutputFile(target: string): Promise<void> {
  await outputDirectory(target);
  let stats: Stats;
  try {
    stats = await lstat(target);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return;
    throw writeFailure(error, target);
  }
  const kind = kindOf(stats);
  if (kind === null) return;
  const advice =
    kind === 'a symbolic link'
      ? 'Links are not followed, so a link cannot choose which file gets replaced; name the real file instead.'
      : 'Output replaces the file it is given, which would destroy it; name a regular file or a new path.';
  throw new OutputPathError(`Cannot write ${show(target)}: it is ${kind}. ${advice}`, target);
}

/**
 * Refuses `dir` as a directory for output files unless it is an existing directory (not a link or a
 * system path) or a new name in an existing directory. Returns whether it exists.
 */
export async function checkOutputDirectory(dir: string): Promise<boolean> {
  await outputDirectory(dir);
  let stats: Stats;
  try {
    stats = await lstat(dir);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false;
    throw writeFailure(error, dir);
  }
  if (stats.isDirectory()) return true;
  throw new OutputPathError(
    `Cannot write into ${show(dir)}: it is ${kindOf(stats) ?? 'a regular file'}, not a directory. Choose another path.`,
    dir,
  );
}

/** `checkOutputDirectory`, then creates the directory (one level) when it is new. Returns whether it existed. */
export async function ensureOutputDirectory(dir: string): Promise<boolean> {
  if (await checkOutputDirectory(dir)) return true;
  try {
    await mkdir(dir);
  } catch (error) {
    throw writeFailure(error, dir);
  }
  return false;
}

/** One paragraph for a failed write, naming the target (never the temp file) and the cause. */
function writeFailure(error: unknown, target: string): CliError {
  if (error instanceof CliError) return error;
  const code = errnoCode(error);
  const dir = show(path.dirname(target));
  const reasons: Record<string, string> = {
    EACCES: `permission denied in ${dir}. Choose a directory you can write to.`,
    EPERM: `the operation is not permitted in ${dir}. Choose a directory you can write to.`,
    EROFS: `${dir} is on a read-only file system. Choose another directory.`,
    ENOSPC: 'no space left on the device. Free some space and run again; the file was left as it was.',
    EDQUOT: 'the disk quota is exhausted. Free some space and run again; the file was left as it was.',
    ENOTDIR: `a part of ${dir} is a file, not a directory. Choose another path.`,
    ENOENT: `the directory ${dir} does not exist (any more). Create it first or choose another path.`,
    EISDIR: 'it is a directory. Name a file.',
    ENAMETOOLONG: 'the name is too long for the file system. Choose a shorter path.',
  };
  const reason =
    (code !== undefined ? reasons[code] : undefined) ?? `${code ?? 'an I/O error'} while writing.`;
  return new OutputWriteError(`Cannot write ${show(target)}: ${reason}`, target, code, { cause: error });
}

function tempName(target: string): string {
  // Truncated so the temp name stays within the file system's 255-byte limit for long targets.
  const base = path.basename(target).slice(0, 120);
  return `.${base}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
}

/** Removes temp files that a killed writer of `target` left (their process is gone). Best effort. */
async function removeStaleTemps(target: string): Promise<void> {
  const dir = path.dirname(target);
  const base = path.basename(target).slice(0, 120);
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const match = TEMP_PATTERN.exec(name);
    if (match?.[1] !== base || isProcessAlive(Number(match[2]))) continue;
    await rm(path.join(dir, name), { force: true }).catch(() => undefined);
  }
}

/** A file being written; invisible under its final name until `commit`. */
export interface OutputFile {
  readonly path: string;
  write(data: string | Uint8Array): Promise<void>;
  /**
   * fsync, close and rename into place (the target is re-checked just before). `check`, when given,
   * reads the written file (at the temp path it is handed) before it is renamed: its error discards
   * the file, leaving the target as it was, and is thrown as it is.
   */
  commit(check?: (written: string) => Promise<void>): Promise<void>;
  /** Close and delete the temp file; safe after commit or twice. */
  discard(): Promise<void>;
}

export interface OutputFileOptions {
  /** Aborting stops the write between chunks, removes the temp file and rejects with the reason. */
  signal?: AbortSignal | undefined;
}

/** Opens a temp file for `target` after checking it; use `writeOutputFile` for whole contents. */
export async function openOutputFile(target: string, options: OutputFileOptions = {}): Promise<OutputFile> {
  await checkOutputFile(target);
  await removeStaleTemps(target);
  const temp = path.join(path.dirname(target), tempName(target));
  let handle: FileHandle;
  try {
    handle = await open(temp, 'wx', 0o644);
  } catch (error) {
    throw writeFailure(error, target);
  }
  let state: 'open' | 'done' = 'open';
  const discard = async (): Promise<void> => {
    if (state !== 'open') return;
    state = 'done';
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true });
  };
  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      options.signal?.throwIfAborted();
      return await work();
    } catch (error) {
      await discard();
      if (options.signal?.aborted) throw options.signal.reason;
      throw writeFailure(error, target);
    }
  };
  return {
    path: target,
    write: (data) =>
      guard(async () => {
        const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
        for (let start = 0; start < bytes.byteLength; start += CHUNK_BYTES) {
          options.signal?.throwIfAborted();
          const chunk = bytes.subarray(start, Math.min(start + CHUNK_BYTES, bytes.byteLength));
          let offset = 0;
          while (offset < chunk.byteLength) {
            const { bytesWritten } = await handle.write(chunk, offset, chunk.byteLength - offset);
            offset += bytesWritten;
          }
        }
      }),
    commit: async (check) => {
      if (check !== undefined) {
        await guard(() => handle.sync());
        try {
          await check(temp);
        } catch (error) {
          await discard();
          throw error;
        }
      }
      return guard(async () => {
        if (state !== 'open') throw new Error(`${target} was already committed or discarded`);
        await handle.sync();
        // A FIFO or link swapped in while we wrote is refused too, not replaced.
        await checkOutputFile(target);
        options.signal?.throwIfAborted();
        state = 'done';
        await handle.close();
        try {
          await rename(temp, target);
        } catch (error) {
          await rm(temp, { force: true });
          throw error;
        }
        await syncDirectory(path.dirname(target));
      });
    },
    discard,
  };
}

/** Writes the whole of `data` to `target` (temp, fsync, rename): the target is old or new, never partial. */
export async function writeOutputFile(
  target: string,
  data: string | Uint8Array,
  options: OutputFileOptions = {},
): Promise<void> {
  const file = await openOutputFile(target, options);
  await file.write(data);
  await file.commit();
}

/** fsync a directory so the rename survives a power loss; best effort where directories cannot be synced. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // The rename is atomic either way; only its durability across a power loss is best effort here.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
