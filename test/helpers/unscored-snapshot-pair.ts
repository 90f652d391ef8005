/**
 * Two snapshots of one simulator (127.0.0.1, port 0) with two projects, the second's summary of the
 * first project tampered as a user's proxy did: every `"best_score":` renamed `"best_score_v2":` (a
 * newer API's name), nothing else, and the manifest resealed. Its attack runs then lack their
 * required best_score: their severity is unknown, and the diff against the clean snapshot lists those
 * findings as not comparable.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startSimulator } from '../../src/simulator/index.js';
import { reseal } from '../warehouse/helpers.js';
import type { TakenSnapshot } from './partial-snapshot-pair.js';
import { snapshotSimulator } from './simulator-snapshot.js';

export interface UnscoredSnapshotPair {
  clean: TakenSnapshot;
  /** The later snapshot, whose summary of `tampered` lost every best_score. */
  renamed: TakenSnapshot;
  /** The project whose summary lost best_score in `renamed`, and the one left alone. */
  tampered: string;
  control: string;
}

/** Takes the pair into `out` (snapshot directories below it), the clean one first. */
export async function takeUnscoredSnapshotPair(out: string): Promise<UnscoredSnapshotPair> {
  const sim = await startSimulator({
    seed: 3,
    projects: 2,
    scale: { assessmentsPerProject: 3, attacksPerAssessment: 5, trialsPerAttack: 6, evaluationJobs: 4 },
  });
  let pair: UnscoredSnapshotPair;
  try {
    const [tampered, control] = sim.truth.projects().map((p) => p.key);
    if (tampered === undefined || control === undefined)
      throw new Error('the simulator has fewer than two projects');
    const take = async (): Promise<TakenSnapshot> => {
      const result = await snapshotSimulator(sim, { out, projects: [tampered, control], trialsLimit: 5 });
      return { dir: result.dir, id: result.snapshotId };
    };
    const clean = await take();
    pair = { clean, renamed: await take(), tampered, control };
  } finally {
    await sim.close();
  }
  const file = path.join(pair.renamed.dir, 'projects', pair.tampered, 'summary.json');
  const text = await readFile(file, 'utf8');
  if (!text.includes('"best_score":')) throw new Error(`${file} holds no "best_score": to rename`);
  await writeFile(file, text.replaceAll('"best_score":', '"best_score_v2":'));
  await reseal(pair.renamed.dir);
  return pair;
}
