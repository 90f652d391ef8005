/**
 * The last step of a snapshot: make the working directory hold exactly the listed files, make it
 * durable, publish it under its final name, and only then write the manifest. The order is what makes
 * a crash harmless:
 *
 * ```
 * <id>.partial/ (journal, data)  ──sweep + fsync──▶  rename to <id>/  ──▶  manifest.json  ──▶  journal removed
 *        resumable                                    resumable (journal, no manifest)     finished
 * ```
 * A directory without manifest.json is never a finished snapshot, whatever its name.
 */
import { readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { JOURNAL_FILE } from './journal.js';
import { MANIFEST_FILE, type Manifest } from './manifest.js';
import { syncDirectory, writeFileAtomic } from './write-atomic.js';

/** Stable, human-readable manifest text (2-space JSON, trailing newline). */
function serializeManifest(manifest: Manifest): string {
  return JSON.stringify(manifest, null, 2) + '\n';
}

/** Deletes every file below `dir` that is not listed (stale pages, temp files, unvouched leftovers). */
async function sweepUnlisted(dir: string, listed: ReadonlySet<string>): Promise<string[]> {
  const directories = new Set<string>([dir]);
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  for (const entry of entries) {
    const absolute = path.join(entry.parentPath, entry.name);
    if (entry.isDirectory()) {
      directories.add(absolute);
      continue;
    }
    const relative = path.relative(dir, absolute).split(path.sep).join('/');
    if (relative === JOURNAL_FILE || listed.has(relative)) continue;
    await rm(absolute, { force: true });
  }
  return [...directories];
}

/**
 * Publishes `partialDir` as `finalDir` with `manifest`. Every path in the manifest must already be a
 * finished file in `partialDir`.
 */
export async function publishSnapshot(
  partialDir: string,
  finalDir: string,
  manifest: Manifest,
): Promise<void> {
  const listed = new Set(manifest.files.map((file) => file.path));
  const directories = await sweepUnlisted(partialDir, listed);
  // Data files were renamed into place without a directory fsync each; one fsync per directory here
  // makes all of them durable before the snapshot is published.
  for (const directory of directories.sort().reverse()) await syncDirectory(directory);
  await rename(partialDir, finalDir);
  await syncDirectory(path.dirname(finalDir));
  await writeFileAtomic(path.join(finalDir, MANIFEST_FILE), serializeManifest(manifest));
  await rm(path.join(finalDir, JOURNAL_FILE), { force: true });
  await syncDirectory(finalDir);
}
