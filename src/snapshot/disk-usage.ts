/**
 * Bytes snapshot directories take on disk, each file counted once however many snapshots share it:
 * snapshots share unchanged files by hard link, so adding up each directory's file sizes would count
 * a year of unchanged trial lists 365 times. Files are identified by (device, inode).
 */
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

export interface DiskUsage {
  /** Distinct files (inodes) below the directories. */
  files: number;
  /** Their sizes, each inode once. */
  bytes: number;
  /** What the same files would take if nothing were shared (every name counted). */
  apparentBytes: number;
}

/** Every regular file below `dirs`: inode key (`dev:ino`) → size. Missing directories hold nothing. */
export async function inodesBelow(dirs: readonly string[]): Promise<Map<string, number>> {
  const inodes = new Map<string, number>();
  await walk(dirs, (key, size) => inodes.set(key, size));
  return inodes;
}

/** Disk usage of `dirs` together, shared files counted once. */
export async function diskUsage(dirs: readonly string[]): Promise<DiskUsage> {
  const inodes = new Map<string, number>();
  let apparentBytes = 0;
  await walk(dirs, (key, size) => {
    apparentBytes += size;
    inodes.set(key, size);
  });
  return { files: inodes.size, bytes: sumOf(inodes.values()), apparentBytes };
}

/** Bytes of the inodes in `inodes` that are not in `except` (what deleting only `inodes`' names frees). */
export function bytesNotIn(inodes: ReadonlyMap<string, number>, except: ReadonlyMap<string, number>): number {
  let bytes = 0;
  for (const [key, size] of inodes) if (!except.has(key)) bytes += size;
  return bytes;
}

/** Human-readable size for progress and summaries (KiB below 1 MiB, then MiB). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

export function sumOf(sizes: Iterable<number>): number {
  let total = 0;
  for (const size of sizes) total += size;
  return total;
}

async function walk(dirs: readonly string[], visit: (key: string, size: number) => void): Promise<void> {
  for (const dir of dirs) {
    const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return [];
        throw error;
      },
    );
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const stats = await lstat(path.join(entry.parentPath, entry.name), { bigint: true });
      visit(`${stats.dev}:${stats.ino}`, Number(stats.size));
    }
  }
}
