/**
 * Sharing unchanged bytes between snapshots: a file an earlier snapshot already holds is hard-linked
 * into the new one instead of copied, so an unchanged night costs directory entries, not gigabytes.
 *
 * A link is made under a hidden temp name and renamed into place, like every other write of a
 * snapshot, so the final name appears whole or not at all, and a linked inode is never opened for
 * writing: whatever replaces the file later does so by rename, which leaves the other snapshots'
 * names untouched. Deleting either snapshot only drops one name of the inode; the other stays whole.
 */
import { link as fsLink, lstat, rename, rm } from 'node:fs/promises';
import { tempPathFor } from './write-atomic.js';

/** Makes `target` a new name of `source`'s inode (fs.link semantics); injectable for tests. */
export type LinkFunction = (source: string, target: string) => Promise<void>;

export const defaultLink: LinkFunction = (source, target) => fsLink(source, target);

/**
 * Errors after which a hard link cannot be made there but a copy can: another filesystem (EXDEV),
 * a filesystem or policy without hard links (EPERM, ENOTSUP, EOPNOTSUPP, ENOSYS, EACCES), or the
 * inode's link-count limit (EMLINK).
 */
const LINK_IMPOSSIBLE = new Set(['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EACCES', 'EMLINK']);

export type LinkOutcome = 'linked' | 'impossible' | 'missing';

/**
 * Puts a hard link to `source` at `target` (replacing whatever is there, atomically). Resolves
 * 'impossible' when linking cannot work there (the caller copies instead) and 'missing' when
 * `source` is gone; other errors reject. Not fsynced: the snapshot syncs each directory before its
 * manifest vouches for the file, and the inode's data was made durable when it was first written.
 */
export async function linkAtomic(
  source: string,
  target: string,
  link: LinkFunction = defaultLink,
): Promise<LinkOutcome> {
  const temp = tempPathFor(target);
  try {
    await link(source, temp);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'ENOENT') return 'missing';
    if (LINK_IMPOSSIBLE.has(code)) return 'impossible';
    throw error;
  }
  try {
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return 'linked';
}

/**
 * True when `file` is still what a finished snapshot's manifest says about it without reading it: a
 * regular file of the listed size, not modified after that snapshot was published (`publishedAtMs`,
 * its manifest's finished_at). Every write to a snapshot file moves its mtime, so this catches edits
 * and truncation at the cost of one lstat; a file that fails it is hashed before it is shared. An edit
 * that also forges the mtime is still caught by `verify`, which re-hashes every file.
 */
export async function unchangedSincePublished(
  file: string,
  bytes: number,
  publishedAtMs: number,
): Promise<boolean> {
  const stats = await lstat(file).catch(() => undefined);
  if (!stats?.isFile() || stats.size !== bytes) return false;
  return Number.isFinite(publishedAtMs) && stats.mtimeMs <= publishedAtMs;
}
