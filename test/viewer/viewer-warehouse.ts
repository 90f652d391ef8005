/**
 * A small warehouse for the viewer's tests: two snapshots (epochs 0 and 1, so the comparison page has
 * new, resolved and regressed findings) of the simulator's small data, with its planted hostile text
 * (script tags, alert() payloads, bidi controls, formulas) and the `../../etc` project slug. Before
 * the second snapshot one finding is triaged through the real client with a triage journal, so its
 * page has a triage history (the service's review event and the journal line).
 */
import path from 'node:path';
import { createApiClient } from '../../src/api/client.js';
import { startSimulator } from '../../src/simulator/index.js';
import { triageFinding } from '../../src/triage/triage-finding.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { snapshotSimulator } from '../helpers/simulator-snapshot.js';

export interface ViewerWarehouse {
  dir: string;
  db: string;
  /** The finding triaged before the second snapshot, and the notes sent with it. */
  triaged: { run: string; snapshotId: string; notes: string };
}

/** Notes with markup in them: the finding page must show them as text. */
export const TRIAGE_NOTES = 'Fixed in prompt v5 <b onmouseover=alert(1)>see ticket</b>';

export async function buildViewerWarehouse(): Promise<ViewerWarehouse> {
  const dir = await makeTempDir('airt-viewer-');
  const snapshots: string[] = [];
  const journal = path.join(dir, 'triage.jsonl');
  let triaged: ViewerWarehouse['triaged'] | undefined;
  for (const epoch of [0, 1]) {
    const sim = await startSimulator({
      seed: 1,
      projects: 2,
      epoch,
      hostileSlug: true,
      scale: { assessmentsPerProject: 2, attacksPerAssessment: 3, trialsPerAttack: 4, evaluationJobs: 2 },
    });
    try {
      let run: string | undefined;
      if (epoch === 1) {
        run = sim.truth.findingIds(sim.truth.projects()[0]!.key)[0];
        const client = createApiClient({ baseUrl: sim.url, token: sim.token });
        try {
          await triageFinding({
            client,
            target: { org: sim.org, workspace: sim.workspace },
            change: { findingId: run!, request: { finding_status: 'remediated', notes: TRIAGE_NOTES } },
            journalPath: journal,
            cwd: dir,
          });
        } finally {
          await client.close();
        }
      }
      const snapshot = await snapshotSimulator(sim, {
        out: path.join(dir, 'snapshots'),
        projects: sim.truth.projects().map((p) => p.key),
        ...(epoch === 1 ? { journal } : {}),
      });
      snapshots.push(snapshot.dir);
      if (run !== undefined) triaged = { run, snapshotId: snapshot.snapshotId, notes: TRIAGE_NOTES };
    } finally {
      await sim.close();
    }
  }
  const db = path.join(dir, 'airt.duckdb');
  await loadSnapshots(db, snapshots, { journal });
  if (triaged === undefined) throw new Error('no finding was triaged');
  return { dir, db, triaged };
}
