/**
 * A small warehouse for the viewer's tests: two snapshots (epochs 0 and 1, so the comparison page has
 * new, resolved and regressed findings) of the simulator's small data, with its planted hostile text
 * (script tags, alert() payloads, bidi controls, formulas) and the `../../etc` project slug.
 */
import path from 'node:path';
import { startSimulator } from '../../src/simulator/index.js';
import { takeSnapshot } from '../../src/snapshot/take-snapshot.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

export interface ViewerWarehouse {
  dir: string;
  db: string;
}

export async function buildViewerWarehouse(): Promise<ViewerWarehouse> {
  const dir = await makeTempDir('airt-viewer-');
  const snapshots: string[] = [];
  for (const epoch of [0, 1]) {
    const sim = await startSimulator({
      seed: 1,
      projects: 2,
      epoch,
      hostileSlug: true,
      scale: { assessmentsPerProject: 2, attacksPerAssessment: 3, trialsPerAttack: 4, evaluationJobs: 2 },
    });
    try {
      const snapshot = await takeSnapshot({
        baseUrl: sim.url,
        org: sim.org,
        workspace: sim.workspace,
        token: sim.token,
        out: path.join(dir, 'snapshots'),
        projects: sim.truth.projects().map((p) => p.key),
      });
      snapshots.push(snapshot.dir);
    } finally {
      await sim.close();
    }
  }
  const db = path.join(dir, 'airt.duckdb');
  await loadSnapshots(db, snapshots);
  return { dir, db };
}
