/**
 * Makes the tampered summary of an unscored snapshot pair (unscored-snapshot-pair.ts) lack best_score
 * on some attack runs only: the runs `keep` picks get their `best_score` back (from the renamed
 * `best_score_v2`), the others keep lacking it, and the manifest is resealed. A project then holds
 * findings of known and of unknown severity side by side.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { reseal } from '../warehouse/helpers.js';

type Json = Record<string, unknown>;

/** The attack runs of the summary's assessments (every status), as parsed JSON objects. */
function attackRuns(summary: Json): Json[] {
  const assessments = Array.isArray(summary.assessments) ? (summary.assessments as Json[]) : [];
  return assessments.flatMap((a) => (Array.isArray(a.attack_runs) ? (a.attack_runs as Json[]) : []));
}

/**
 * Gives back best_score to the runs of `project`'s summary in `snapshotDir` that `keep` picks (by the
 * score the API sent); returns the ids of the runs left without it.
 */
export async function restoreBestScores(
  snapshotDir: string,
  project: string,
  keep: (score: unknown) => boolean,
): Promise<string[]> {
  const file = path.join(snapshotDir, 'projects', project, 'summary.json');
  const summary = JSON.parse(await readFile(file, 'utf8')) as Json;
  const unscored: string[] = [];
  for (const run of attackRuns(summary)) {
    if (!Object.hasOwn(run, 'best_score_v2')) throw new Error(`run ${String(run.id)} was not renamed`);
    if (keep(run.best_score_v2)) {
      run.best_score = run.best_score_v2;
      delete run.best_score_v2;
    } else unscored.push(String(run.id));
  }
  await writeFile(file, JSON.stringify(summary));
  await reseal(snapshotDir);
  return unscored;
}
