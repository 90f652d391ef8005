/**
 * Snapshot ids: `20261124T021500Z-acme-prod-3f9a`, the injected clock's UTC second, then the org and
 * workspace as a readable slug, then a short random suffix.
 *
 * - Sortable: the fixed-width timestamp comes first, so ids sort as text in time order (to the second).
 * - Unique in one warehouse: the slug tells acme/prod from acme/staging started in the same second (a
 *   nightly cron starting both at 02:00); the suffix tells apart two runs of one workspace in the
 *   same second writing to different directories. Within one directory, creating the `.partial`
 *   directory is the reservation, so concurrent runs there never share an id.
 *
 * Older versions wrote `20261122T090000Z` and `20261122T090000Z-2`; those ids stay valid wherever an
 * existing snapshot or database is read (nothing parses an id, they are compared as whole strings).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';

/** Suffix of the working directory of a snapshot that is not finished. */
export const PARTIAL_SUFFIX = '.partial';
/** Draws of a suffix before giving up; only a broken random source exhausts this. */
const MAX_ATTEMPTS = 100;
/** Longest org or workspace part of the slug, so ids stay short enough to read and to be file names. */
const MAX_SLUG_PART = 24;

/** `2026-11-22T09:00:00.123Z` → `20261122T090000Z`: the timestamp every id starts with. */
export function formatSnapshotId(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/**
 * `Acme Corp`, `Prod/EU` → `acme-corp-prod-eu`: lower-case letters and digits, other runs of
 * characters become one '-', so the slug is safe as a path segment and in every output.
 */
export function snapshotSlug(org: string, workspace: string): string {
  const part = (text: string): string =>
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, MAX_SLUG_PART)
      .replace(/-+$/, '') || 'x';
  return `${part(org)}-${part(workspace)}`;
}

/** Four lower-case hex characters from the system's random source. */
export function randomSnapshotSuffix(): string {
  return randomBytes(2).toString('hex');
}

/** `20261124T021500Z-acme-prod-3f9a`. */
export function buildSnapshotId(date: Date, org: string, workspace: string, suffix: string): string {
  return `${formatSnapshotId(date)}-${snapshotSlug(org, workspace)}-${suffix}`;
}

/** True for ids this version writes and for the older `20261122T090000Z[-N]` form. */
export function isSnapshotId(name: string): boolean {
  return /^\d{8}T\d{6}Z(-\d+|-[a-z0-9]+(-[a-z0-9]+)*-[0-9a-f]{4})?$/.test(name);
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

export interface ReserveSnapshotOptions {
  /** `<out>/<org>/<workspace>`: the directory the snapshot goes into. */
  parent: string;
  now: Date;
  org: string;
  workspace: string;
  /** Suffix source, injectable for tests. Default: {@link randomSnapshotSuffix}. */
  suffix?: (() => string) | undefined;
}

/** A reserved snapshot id and its working directory (see reserveSnapshotDir). */
export interface SnapshotReservation {
  snapshotId: string;
  /** `<parent>/<id>.partial`, created. */
  partialDir: string;
  /**
   * The outermost folder the reservation created to make `parent` (`<out>`, `<out>/<org>`, …), or
   * undefined when `parent` already existed: what releaseSnapshotDir removes again, when empty.
   */
  createdFolder: string | undefined;
}

/**
 * Picks a free id under `parent` and creates its `<id>.partial` working directory. Creating the
 * directory is the reservation (mkdir fails if another run got there first), so two concurrent runs
 * never share one; a taken id draws another suffix.
 */
export async function reserveSnapshotDir(options: ReserveSnapshotOptions): Promise<SnapshotReservation> {
  const { parent, now, org, workspace } = options;
  const suffix = options.suffix ?? randomSnapshotSuffix;
  const createdFolder = await mkdir(parent, { recursive: true });
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const snapshotId = buildSnapshotId(now, org, workspace, suffix());
    const partialDir = path.join(parent, snapshotId + PARTIAL_SUFFIX);
    if (await pathExists(path.join(parent, snapshotId))) continue;
    try {
      await mkdir(partialDir);
      return { snapshotId, partialDir, createdFolder };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // ENOENT: a failed run of the same workspace gave back the folders it had created (see
      // releaseSnapshotDir) between our mkdir of the parent and this one; make them again.
      if (code === 'ENOENT') await mkdir(parent, { recursive: true });
      else if (code !== 'EEXIST') throw error;
    }
  }
  throw new Error(
    `No free snapshot id ${formatSnapshotId(now)}-${snapshotSlug(org, workspace)}-… in ${parent} after ${MAX_ATTEMPTS} attempts`,
  );
}

/**
 * Gives back a reservation that came to nothing (a refused token, an unreachable service): removes
 * its `.partial` directory, then the folders the reservation created (`createdFolder` and those below
 * it on the way to the snapshot's parent), deepest first and each only while empty, so the output
 * tree is as it was before. A folder that existed before, or that another run has put something in
 * meanwhile, is kept.
 */
export async function releaseSnapshotDir(
  reservation: Pick<SnapshotReservation, 'partialDir' | 'createdFolder'>,
): Promise<void> {
  const { partialDir, createdFolder } = reservation;
  await rm(partialDir, { recursive: true, force: true });
  if (createdFolder === undefined) return;
  for (let dir = path.dirname(partialDir); ; dir = path.dirname(dir)) {
    try {
      // rmdir removes only an empty folder: one another run uses now (ENOTEMPTY) stops the walk.
      await rmdir(dir);
    } catch {
      return;
    }
    if (dir === createdFolder || dir === path.dirname(dir)) return;
  }
}
