/**
 * Retention: keep the newest N finished snapshots of one workspace on disk, delete older ones.
 *
 * Deleting is the only destructive thing a scheduled run does, so the rules are narrow. A directory
 * is a candidate only if it is a real directory (not a symlink) directly inside the workspace's
 * snapshot directory, its name is not a `.partial` working directory, and it holds a manifest.json
 * that parses as an airt-snapshot/1 manifest of this org and workspace whose snapshot_id is the
 * directory's name. Anything else — stray files, partial snapshots, other tools' data, unreadable
 * manifests — is never touched. Protected snapshot ids (the run's own and its baseline) are kept.
 *
 * Snapshots share unchanged files by hard link (see src/snapshot/link-file.ts), so deleting an old
 * one removes only its names for those files: every newer snapshot keeps its own and stays whole.
 * Sizes are therefore reported per inode, shared files once.
 */
import { lstat, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { bytesNotIn, inodesBelow, sumOf } from '../snapshot/disk-usage.js';
import { MANIFEST_FILE, ManifestSchema, type Manifest } from '../snapshot/manifest.js';

export interface RetentionOptions {
  /** `<snapshot out>/<org>/<workspace>`: the directory holding this workspace's snapshots. */
  workspaceDir: string;
  org: string;
  workspace: string;
  keepLast: number;
  /** Snapshot ids never deleted, whatever their age. */
  protect: readonly string[];
}

export interface RetentionResult {
  kept: string[];
  deleted: string[];
  /** Bytes the kept snapshots take on disk, files they share by hard link counted once. */
  keptBytes: number;
  /**
   * Bytes deleting freed: files of the deleted snapshots that no kept snapshot shares. A file a newer
   * snapshot links to is not freed (and not damaged): only one of its names was removed.
   */
  freedBytes: number;
}

/** A finished snapshot found on disk. */
export interface FinishedSnapshot {
  snapshotId: string;
  dir: string;
  manifest: Manifest;
}

/** Deletes the finished snapshots beyond the newest `keepLast`; returns what was kept and deleted. */
export async function applyRetention(options: RetentionOptions): Promise<RetentionResult> {
  if (!Number.isInteger(options.keepLast) || options.keepLast < 1) {
    throw new Error(`keepLast must be a positive integer, got ${options.keepLast}`);
  }
  const snapshots = await listFinishedSnapshots(options.workspaceDir, options.org, options.workspace);
  const newestFirst = [...snapshots].reverse();
  const kept: string[] = [];
  const deleted: string[] = [];
  newestFirst.forEach((snapshot, index) => {
    if (index < options.keepLast || options.protect.includes(snapshot.snapshotId))
      kept.push(snapshot.snapshotId);
    else deleted.push(snapshot.snapshotId);
  });
  const keptInodes = await inodesBelow(kept.map((id) => path.join(options.workspaceDir, id)));
  const deletedInodes = await inodesBelow(deleted.map((id) => path.join(options.workspaceDir, id)));
  for (const id of deleted) {
    const dir = path.join(options.workspaceDir, id);
    // Re-check right before deleting: the directory may have been replaced since it was listed.
    const info = await lstat(dir);
    if (!info.isDirectory() || path.dirname(dir) !== path.resolve(options.workspaceDir)) continue;
    await rm(dir, { recursive: true, force: false });
  }
  return {
    kept: kept.sort(),
    deleted: deleted.sort(),
    keptBytes: sumOf(keptInodes.values()),
    freedBytes: bytesNotIn(deletedInodes, keptInodes),
  };
}

/**
 * The finished snapshots of a workspace, oldest first (by finished_at, then id). Only directories
 * that pass every candidate rule above are listed; a missing workspace directory lists nothing.
 */
export async function listFinishedSnapshots(
  workspaceDir: string,
  org: string,
  workspace: string,
): Promise<FinishedSnapshot[]> {
  const root = path.resolve(workspaceDir);
  let names: string[];
  try {
    names = await readdir(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const found: FinishedSnapshot[] = [];
  for (const name of names) {
    if (name.endsWith('.partial') || name.startsWith('.')) continue;
    const dir = path.join(root, name);
    const manifest = await readOwnManifest(dir, name, org, workspace);
    if (manifest) found.push({ snapshotId: name, dir, manifest });
  }
  return found.sort(
    (a, b) =>
      compare(a.manifest.finished_at, b.manifest.finished_at) ||
      compare(a.manifest.started_at, b.manifest.started_at) ||
      compare(a.snapshotId, b.snapshotId),
  );
}

async function readOwnManifest(
  dir: string,
  name: string,
  org: string,
  workspace: string,
): Promise<Manifest | null> {
  try {
    const dirInfo = await lstat(dir);
    if (!dirInfo.isDirectory()) return null;
    const manifestPath = path.join(dir, MANIFEST_FILE);
    const manifestInfo = await lstat(manifestPath);
    if (!manifestInfo.isFile()) return null;
    const parsed = ManifestSchema.safeParse(JSON.parse(await readFile(manifestPath, 'utf8')));
    if (!parsed.success) return null;
    const manifest = parsed.data;
    if (manifest.org !== org || manifest.workspace !== workspace || manifest.snapshot_id !== name)
      return null;
    return manifest;
  } catch {
    // Unreadable or not JSON: not provably ours, so not a candidate.
    return null;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
