/**
 * The findings of a project summary as the raw snapshot JSON gives them, for tests that recompute a
 * figure without the warehouse: the attack runs of analyzed assessments, and the severity band of a
 * score written here from TAXONOMY.md (not src/severity.ts), so a change there cannot pass unseen.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export type RawJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** `projects/<project>/summary.json` of a snapshot, parsed. */
export async function readRawSummary(snapshotDir: string, project: string): Promise<RawJson> {
  return JSON.parse(
    await readFile(path.join(snapshotDir, 'projects', project, 'summary.json'), 'utf8'),
  ) as RawJson;
}

/**
 * A project's summary found through the snapshot's manifest (its `dir`), for keys that are not a safe
 * path (`../../etc`).
 */
export async function readRawSummaryOf(snapshotDir: string, key: string): Promise<RawJson> {
  const manifest = JSON.parse(await readFile(path.join(snapshotDir, 'manifest.json'), 'utf8')) as RawJson;
  const entry = (manifest.projects as RawJson[]).find((p) => p.key === key);
  if (entry === undefined) throw new Error(`the manifest lists no project ${key}`);
  return readRawSummary(snapshotDir, String(entry.dir));
}

/** The attack runs of a summary's analyzed (completed or failed) assessments: the findings. */
export function analyzedRuns(summary: RawJson): RawJson[] {
  return (summary.assessments as RawJson[])
    .filter((a) => a.status === 'completed' || a.status === 'failed')
    .flatMap((a) => (a.attack_runs ?? []) as RawJson[]);
}

/** TAXONOMY's band of a score (a run sent with a null score: no finished trial, info). */
export function severityBand(score: number | null): string {
  if (score === null) return 'info';
  if (score >= 0.9) return 'critical';
  if (score >= 0.7) return 'high';
  if (score >= 0.5) return 'medium';
  if (score >= 0.3) return 'low';
  return 'info';
}
