/**
 * `--since PREV`: trial lists of assessments that have not changed since the previous snapshot are
 * copied from it instead of fetched again. "Unchanged" is strict: the same request (path, `limit`,
 * `jailbreaks_only`), the same `updated_at`, and a final status (completed or failed) in both — a
 * running assessment keeps gaining trials, so its list is always fetched. The copy is hash-checked
 * against PREV's manifest; a damaged file is fetched instead.
 */
import path from 'node:path';
import type { AssessmentRef } from './check-body.js';
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
}

/** Reads PREV's manifest (it must be a finished snapshot, complete or partial). */
export async function loadPreviousSnapshot(dir: string): Promise<PreviousSnapshot> {
  const root = path.resolve(dir);
  const manifest = await readManifest(root);
  const trials = new Map<string, ManifestFile>();
  for (const file of manifest.files) {
    if (file.kind === 'trials' && file.assessment_id !== undefined) trials.set(file.assessment_id, file);
  }
  return { dir: root, snapshotId: manifest.snapshot_id, trials };
}

/**
 * The PREV file to copy for `assessment`, or undefined when it must be fetched. `requestPath` is the
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
