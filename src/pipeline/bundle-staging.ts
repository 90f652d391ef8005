/**
 * Where a bundle is written before it is published: a hidden file beside the target, checked there
 * (bundle.ts runs verifyBundle on it) and renamed over the target only when it passes, so a bundle
 * that its own `verify` would reject never appears under the target's name, nor replaces a good one.
 *
 *   staging name ─▶ zip written there (output-file: temp, fsync, rename) ─▶ verified ─▶ renamed into place
 *
 * The staging name has the shape output-file.ts gives its temp files (`.<name>.<pid>-<hex>.tmp`), so
 * one left by a killed process is removed by the next write to the same target, as theirs are.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { CliError } from '../errors.js';
import { checkOutputFile } from '../output-file.js';
import { terminalSafe } from '../text-safety.js';

/** A new hidden path beside `target` to write the bundle to before it is checked. */
export function stagingPath(target: string): string {
  const base = path.basename(target).slice(0, 120);
  return path.join(path.dirname(target), `.${base}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
}

/**
 * Renames the checked `staged` file over `target` (re-checked first: a FIFO, device or link swapped in
 * meanwhile is refused, not replaced), then syncs the directory so the rename survives a power loss.
 */
export async function publishStaged(staged: string, target: string): Promise<void> {
  await checkOutputFile(target);
  try {
    await rename(staged, target);
  } catch (error) {
    await rm(staged, { force: true });
    throw new CliError(`Cannot write ${terminalSafe(target)}: ${(error as Error).message}`, undefined, {
      cause: error,
    });
  }
  let handle: FileHandle | undefined;
  try {
    handle = await open(path.dirname(target), 'r');
    await handle.sync();
  } catch {
    // The rename is atomic either way; only its durability across a power loss is best effort here.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
