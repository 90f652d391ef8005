/**
 * The last step of a snapshot: make the working directory hold exactly the published content and
 * make it durable, all under the `.partial` name, and only then give it its final name. The order is
 * what makes a crash harmless:
 *
 * ```
 * <id>.partial/ (journal, data)  ─sweep + fsync─▶  + manifest.json  ─▶  journal removed  ─▶  rename to <id>/
 *      resumable (journal)              resumable (publish it)     resumable (publish it)     finished
 * ```
 * The final name only ever appears with exactly what the manifest lists, so a directory under a
 * snapshot id is either absent or finished. `--resume` of a `.partial` that already holds a manifest
 * checks it and finishes these steps (see resume.ts).
 */
import { readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import pLimit from 'p-limit';
import { JOURNAL_FILE } from './journal.js';
import { MANIFEST_FILE, type Manifest, type ManifestFile } from './manifest.js';
import { syncDirectory, syncFileAt, writeFileAtomic } from './write-atomic.js';

/** The steps of `publishSnapshot`, in order; each is durable once reported. */
export const PUBLISH_STEPS = ['swept', 'manifest_written', 'journal_removed', 'renamed'] as const;
export type PublishStep = (typeof PUBLISH_STEPS)[number];

export interface PublishOptions {
  /**
   * Called after each step has been made durable. Tests throw here to stand in for a crash at that
   * point; an error stops publishing exactly as a crash would (nothing is undone).
   */
  afterStep?: (step: PublishStep) => void | Promise<void>;
  /** Paths of data files already fsynced since they were written (the snapshot's background flushes). */
  synced?: ReadonlySet<string>;
}

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
    // The journal stays until the manifest is durable: until then it is what makes the run resumable.
    if (relative === JOURNAL_FILE || listed.has(relative)) continue;
    await rm(absolute, { force: true });
  }
  return [...directories];
}

/** Files fsynced at once when publishing: enough to keep the disk queue full, few enough handles. */
const SYNC_CONCURRENCY = 16;

/**
 * fsyncs the data of every listed file this run wrote. Data files are renamed into place without an
 * fsync each (one per request kept the thread pool busy with disk flushes while requests waited);
 * here they are made durable together, before the manifest vouches for them. Linked files are
 * skipped: their bytes were made durable when the earlier snapshot was published, and the link itself
 * is a directory entry, made durable by the directory fsyncs that follow. So are files in `synced`,
 * flushed in the background as they were validated (while the run still waited on the network).
 */
async function syncDataFiles(
  dir: string,
  files: readonly ManifestFile[],
  synced: ReadonlySet<string> = new Set(),
): Promise<void> {
  const limit = pLimit(SYNC_CONCURRENCY);
  await Promise.all(
    files
      .filter((file) => file.stored !== 'linked' && !synced.has(file.path))
      .map((file) => limit(() => syncFileAt(path.join(dir, file.path)))),
  );
}

/**
 * The tail of publishing, shared with `--resume` of a `.partial` whose manifest is already written:
 * drop the journal, then rename `partialDir` to `finalDir` and make the rename durable.
 */
export async function finishPublishing(
  partialDir: string,
  finalDir: string,
  options: PublishOptions = {},
): Promise<void> {
  await rm(path.join(partialDir, JOURNAL_FILE), { force: true });
  await syncDirectory(partialDir);
  await options.afterStep?.('journal_removed');
  await rename(partialDir, finalDir);
  await syncDirectory(path.dirname(finalDir));
  await options.afterStep?.('renamed');
}

/**
 * Publishes `partialDir` as `finalDir` with `manifest`. Every path in the manifest must already be a
 * finished file in `partialDir`.
 */
export async function publishSnapshot(
  partialDir: string,
  finalDir: string,
  manifest: Manifest,
  options: PublishOptions = {},
): Promise<void> {
  const listed = new Set(manifest.files.map((file) => file.path));
  const directories = await sweepUnlisted(partialDir, listed);
  await syncDataFiles(partialDir, manifest.files, options.synced);
  // Data files were renamed into place without a directory fsync each; one fsync per directory here
  // makes all of them durable before the manifest vouches for them. The directories are independent
  // of each other (all exist since the run made them), so they are synced together, not in turn.
  await Promise.all(directories.map((directory) => syncDirectory(directory)));
  await options.afterStep?.('swept');
  await writeFileAtomic(path.join(partialDir, MANIFEST_FILE), serializeManifest(manifest));
  await options.afterStep?.('manifest_written');
  await finishPublishing(partialDir, finalDir, options);
}
