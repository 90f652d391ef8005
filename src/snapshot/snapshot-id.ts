/**
 * Snapshot ids come from the injected clock: `20261122T090000Z` (UTC, second resolution, sorts as
 * text in time order). When that name is taken — two snapshots in the same second — a counter is
 * appended: `20261122T090000Z-2`.
 */
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';

/** Suffix of the working directory of a snapshot that is not finished. */
export const PARTIAL_SUFFIX = '.partial';
const MAX_SAME_SECOND = 1000;

/** `2026-11-22T09:00:00.123Z` → `20261122T090000Z`. */
export function formatSnapshotId(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/** True for names `formatSnapshotId` (plus an optional counter) produces. */
export function isSnapshotId(name: string): boolean {
  return /^\d{8}T\d{6}Z(-\d+)?$/.test(name);
}

/** True when `file` exists (any type); other errors than ENOENT are thrown. */
export async function pathExists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/**
 * Picks a free id under `parent` and creates its `<id>.partial` working directory. Creating the
 * directory is the reservation (mkdir fails if another run got there first), so two concurrent runs
 * never share one.
 */
export async function reserveSnapshotDir(
  parent: string,
  now: Date,
): Promise<{ snapshotId: string; partialDir: string }> {
  await mkdir(parent, { recursive: true });
  const base = formatSnapshotId(now);
  for (let n = 1; n <= MAX_SAME_SECOND; n++) {
    const snapshotId = n === 1 ? base : `${base}-${n}`;
    const partialDir = path.join(parent, snapshotId + PARTIAL_SUFFIX);
    if (await pathExists(path.join(parent, snapshotId))) continue;
    try {
      await mkdir(partialDir);
      return { snapshotId, partialDir };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  throw new Error(`More than ${MAX_SAME_SECOND} snapshots named ${base}* in ${parent}`);
}
