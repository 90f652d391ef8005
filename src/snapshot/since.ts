/**
 * `--since PREV`: trial lists of assessments that have not changed since the previous snapshot are
 * taken from it instead of fetched again — hard-linked (link-file.ts), copied only where a link is
 * impossible. "Unchanged" is strict: the same request (path, `limit`, `jailbreaks_only`), the same
 * `updated_at`, and a final status (completed or failed) in both — a running assessment keeps gaining
 * trials, so its list is always fetched. PREV's manifest vouches for the bytes: a file that is still
 * the listed size and whose inode has not changed since PREV was published (ctime, see link-file.ts)
 * is linked without being read; any other file is hashed first, and a damaged one is fetched instead.
 * A file PREV's validation found is not valid JSON is never shared: it was no answer, so it is fetched.
 *
 * Every file of PREV (not only trial lists) is also known by path, so a freshly fetched body that is
 * byte-identical to PREV's file at the same path is linked to it too (the request is still sent).
 */
import path from 'node:path';
import { isInvalidJson, type AssessmentRef } from './check-body.js';
import type { ManifestFile } from './manifest.js';
import { resolveInside } from './safe-path.js';
import { readManifest } from './verify.js';

/** Assessment statuses after which the trial list no longer changes. */
export const TERMINAL_STATUSES: readonly string[] = ['completed', 'failed'];

export interface PreviousSnapshot {
  dir: string;
  snapshotId: string;
  /** Trial files of PREV by assessment id. */
  trials: Map<string, ManifestFile>;
  /** Every file of PREV by its snapshot-relative path. */
  files: Map<string, ManifestFile>;
  /** PREV's finished_at in ms: files not modified since are as its manifest lists them. */
  publishedAtMs: number;
  /** The airt-report version that validated PREV's files (their issues are reused only from the same). */
  toolVersion: string;
}

/** Reads PREV's manifest (it must be a finished snapshot, complete or partial). */
export async function loadPreviousSnapshot(dir: string): Promise<PreviousSnapshot> {
  const root = path.resolve(dir);
  const manifest = await readManifest(root);
  const trials = new Map<string, ManifestFile>();
  const files = new Map<string, ManifestFile>();
  for (const file of manifest.files) {
    // A body that is not JSON was no answer (earlier versions stored such bodies and listed them with
    // an invalid_json issue): it is never shared, so its request is sent again.
    if (isInvalidJson(file.issues)) continue;
    files.set(file.path, file);
    if (file.kind === 'trials' && file.assessment_id !== undefined) trials.set(file.assessment_id, file);
  }
  return {
    dir: root,
    snapshotId: manifest.snapshot_id,
    trials,
    files,
    publishedAtMs: Date.parse(manifest.finished_at),
    toolVersion: manifest.tool_version,
  };
}

/**
 * The PREV file to reuse for `assessment`, or undefined when it must be fetched. `requestPath` is the
 * path and query this run would send.
 */
export function reusableTrialFile(
  previous: PreviousSnapshot,
  assessment: AssessmentRef,
  requestPath: string,
): { file: ManifestFile; source: string } | undefined {
  const file = previous.trials.get(assessment.id);
  if (!file || file.request?.path !== requestPath) return undefined;
  if (assessment.updatedAt === null || assessment.status === null) return undefined;
  if (!TERMINAL_STATUSES.includes(assessment.status)) return undefined;
  if (file.assessment_updated_at !== assessment.updatedAt || file.assessment_status !== assessment.status) {
    return undefined;
  }
  return { file, source: resolveInside(previous.dir, file.path) };
}

/** PREV's file at `relative` with its absolute path, when PREV lists one. */
export function previousFileAt(
  previous: PreviousSnapshot,
  relative: string,
): { file: ManifestFile; source: string } | undefined {
  const file = previous.files.get(relative);
  return file ? { file, source: resolveInside(previous.dir, file.path) } : undefined;
}
