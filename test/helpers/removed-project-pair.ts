/**
 * Two snapshots of one simulated world (127.0.0.1, port 0), the second taken after a project left the
 * service: the first holds the simulator's hostile project (key `../../etc`, a name with markup) and
 * one other, the second only the other. Not by asking the second snapshot for one project: a snapshot
 * finds the rest through the evaluation jobs, so the service itself must no longer list it.
 */
import { startSimulator, HOSTILE_SLUG } from '../../src/simulator/index.js';
import { snapshotSimulator } from './simulator-snapshot.js';

export interface TakenSnapshot {
  dir: string;
  id: string;
}

export interface RemovedProjectPair {
  /** The snapshot of both projects. */
  before: TakenSnapshot;
  /** The later snapshot, of the remaining project only. */
  after: TakenSnapshot;
  /** The project only `before` holds (its key), and the one both hold. */
  removed: string;
  remaining: string;
}

/** Takes the pair into `out` (snapshot directories below it). */
export async function takeRemovedProjectPair(out: string): Promise<RemovedProjectPair> {
  const taken: TakenSnapshot[] = [];
  let remaining = '';
  for (const hostileSlug of [true, false]) {
    const sim = await startSimulator({
      seed: 3,
      projects: 1,
      hostileSlug,
      scale: { assessmentsPerProject: 3, attacksPerAssessment: 4, trialsPerAttack: 5, evaluationJobs: 2 },
    });
    try {
      const keys = sim.truth.projects().map((p) => p.key);
      remaining = keys.find((key) => key !== HOSTILE_SLUG) ?? '';
      const snapshot = await snapshotSimulator(sim, { out, projects: keys, trialsLimit: 5 });
      taken.push({ dir: snapshot.dir, id: snapshot.snapshotId });
    } finally {
      await sim.close();
    }
  }
  const [before, after] = taken;
  if (before === undefined || after === undefined || remaining === '')
    throw new Error('the simulator gave no second project');
  return { before, after, removed: HOSTILE_SLUG, remaining };
}
