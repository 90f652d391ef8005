import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { takeSnapshot } from '../../src/snapshot/take-snapshot.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { runQuery } from '../../src/warehouse/query.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

// A project with hundreds of assessments means hundreds of small trial files. Staging them in one
// read_json scan ran out of the load's default memory limit; the loader now stages them in batches.
describe('a snapshot with hundreds of trial files', () => {
  it('loads under the default memory limit with every trial in file order', async () => {
    const work = await makeTempDir('airt-wh-many-');
    const sim = await startSimulator({
      seed: 3,
      projects: 1,
      scale: { assessmentsPerProject: 520, attacksPerAssessment: 1, trialsPerAttack: 2, evaluationJobs: 3 },
    });
    let expectedTrials = 0;
    let assessmentsWithTrials = 0;
    let snapshotDir: string;
    try {
      const project = sim.projectKeys[0] ?? '';
      for (const id of sim.truth.assessmentIds(project)) {
        const trials = sim.truth.trialCount(id);
        expectedTrials += trials;
        if (trials > 0) assessmentsWithTrials += 1;
      }
      const snapshot = await takeSnapshot({
        baseUrl: sim.url,
        org: sim.org,
        workspace: sim.workspace,
        token: sim.token,
        out: path.join(work, 'snapshots'),
        projects: [project],
      });
      snapshotDir = snapshot.dir;
    } finally {
      await sim.close();
    }
    const db = path.join(work, 'airt.duckdb');
    const result = await loadSnapshots(db, [snapshotDir]);
    expect(result.snapshots[0]?.outcome).toBe('loaded');
    const counts = await runQuery(
      db,
      'SELECT count(*), count(DISTINCT assessment_id), max(trial_ordinal) FROM trials',
    );
    expect(assessmentsWithTrials).toBeGreaterThan(500);
    expect(counts.rows[0]?.map(Number)).toEqual([expectedTrials, assessmentsWithTrials, expect.any(Number)]);
  }, 120_000);
});
