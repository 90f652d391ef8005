/**
 * Two snapshots of one simulator (127.0.0.1, port 0) with two projects: one complete, and one partial
 * because the summary request of the first project failed (the service answered 500 to the fetch the
 * snapshot is given, by key and by UUID, until retries gave up). By default the complete snapshot is
 * taken first; `partialFirst` takes the partial one first, as when the run before this one was partial.
 */
import { fetch as undiciFetch, Response } from 'undici';
import { startSimulator } from '../../src/simulator/index.js';
import { takeSnapshot } from '../../src/snapshot/take-snapshot.js';
import { snapshotSimulator } from './simulator-snapshot.js';

export interface TakenSnapshot {
  dir: string;
  id: string;
}

export interface PartialSnapshotPair {
  complete: TakenSnapshot;
  /** The partial snapshot and its manifest status (`partial` when the failure was kept). */
  partial: TakenSnapshot & { status: string };
  /** The project whose summary failed in the partial snapshot: its key and UUID. */
  failing: string;
  failingId: string;
  /** The project fetched in both. */
  fetched: string;
}

/**
 * A fetch that answers 500 ("summary store down") to the summary request of a project named by any
 * of `names` (the snapshot asks for a project by key and, found in evaluation jobs, by UUID) and
 * passes every other request to the network: a partial night for that project.
 */
export function failingSummaryFetch(names: readonly string[]): typeof undiciFetch {
  const summaryPath = new RegExp(`/projects/(${names.join('|')})/summary$`, 'u');
  return (input, init) => {
    const url = new URL(input instanceof URL ? input.href : typeof input === 'string' ? input : input.url);
    if (!summaryPath.test(url.pathname)) return undiciFetch(input, init);
    const body = JSON.stringify({ code: 500, detail: 'summary store down', type: 'internal_server_error' });
    return Promise.resolve(
      new Response(body, { status: 500, headers: { 'content-type': 'application/json' } }),
    );
  };
}

/** Takes the pair into `out` (snapshot directories below it). */
export async function takePartialSnapshotPair(
  out: string,
  options: { partialFirst?: boolean } = {},
): Promise<PartialSnapshotPair> {
  const sim = await startSimulator({
    seed: 5,
    projects: 2,
    scale: { assessmentsPerProject: 3, attacksPerAssessment: 4, trialsPerAttack: 6, evaluationJobs: 4 },
  });
  try {
    const [first, second] = sim.truth.projects();
    if (first === undefined || second === undefined)
      throw new Error('the simulator has fewer than two projects');
    const [failing, failingId, fetched] = [first.key, first.id, second.key];
    const snapshotOptions = { out, projects: [failing, fetched], trialsLimit: 5 };
    const takeComplete = async (): Promise<TakenSnapshot> => {
      const result = await snapshotSimulator(sim, snapshotOptions);
      return { dir: result.dir, id: result.snapshotId };
    };
    const takePartial = async (): Promise<PartialSnapshotPair['partial']> => {
      const result = await takeSnapshot(
        {
          ...snapshotOptions,
          baseUrl: sim.url,
          org: sim.org,
          workspace: sim.workspace,
          token: sim.token,
          retry: { baseDelayMs: 1, maxDelayMs: 2, maxAttempts: 2 },
        },
        { fetch: failingSummaryFetch([failing, failingId]) },
      );
      return { dir: result.dir, id: result.snapshotId, status: result.manifest.status };
    };
    if (options.partialFirst === true) {
      const partial = await takePartial();
      return { partial, complete: await takeComplete(), failing, failingId, fetched };
    }
    const complete = await takeComplete();
    return { complete, partial: await takePartial(), failing, failingId, fetched };
  } finally {
    await sim.close();
  }
}
