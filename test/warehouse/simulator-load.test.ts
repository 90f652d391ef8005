import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { takeSnapshot } from '../../src/snapshot/take-snapshot.js';
import { loadSnapshots, type SnapshotLoadResult } from '../../src/warehouse/loader.js';
import { runQuery } from '../../src/warehouse/query.js';

describe('loading a snapshot of the simulator', () => {
  let sim: RunningSimulator;
  let work: string;
  let db: string;
  let loaded: SnapshotLoadResult;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'airt-wh-sim-'));
    db = path.join(work, 'airt.duckdb');
    sim = await startSimulator({
      seed: 7,
      projects: 2,
      scale: { assessmentsPerProject: 2, attacksPerAssessment: 3, trialsPerAttack: 6, evaluationJobs: 30 },
    });
    const snapshot = await takeSnapshot({
      baseUrl: sim.url,
      org: sim.org,
      workspace: sim.workspace,
      token: sim.token,
      out: path.join(work, 'snapshots'),
      projects: sim.truth.projects().map((p) => p.key),
    });
    const result = await loadSnapshots(db, [snapshot.dir]);
    const first = result.snapshots[0];
    if (!first) throw new Error('nothing loaded');
    loaded = first;
  });

  afterAll(async () => {
    await sim.close();
    await rm(work, { recursive: true, force: true });
  });

  it("has the simulator's projects, assessments, attack runs and evaluation jobs", () => {
    const projects = sim.truth.projects();
    const assessments = projects.flatMap((p) => sim.truth.assessmentIds(p.key));
    const runs = projects.flatMap((p) => sim.truth.findingIds(p.key));
    expect(loaded.outcome).toBe('loaded');
    expect(loaded.rows.projects).toBe(projects.length);
    expect(loaded.rows.assessments).toBe(assessments.length);
    expect(loaded.rows.attack_runs).toBe(runs.length);
    expect(loaded.rows.evaluation_jobs).toBe(new Set(sim.truth.evaluationJobIds()).size);
  });

  it('has every trial of every assessment', async () => {
    const result = await runQuery(
      db,
      'SELECT assessment_id, count(*) AS n FROM trials GROUP BY ALL ORDER BY ALL',
    );
    const loadedCounts = Object.fromEntries(result.rows.map((row) => [String(row[0]), row[1]]));
    const expected: Record<string, number> = {};
    for (const project of sim.truth.projects()) {
      for (const id of sim.truth.assessmentIds(project.key)) {
        const n = sim.truth.trialCount(id);
        if (n > 0) expected[id] = n;
      }
    }
    expect(loadedCounts).toEqual(expected);
  });

  it("agrees with the service's own totals", async () => {
    const { readNamedQuery } = await import('../../src/warehouse/named-queries.js');
    const consistency = await runQuery(db, (await readNamedQuery('consistency')).sql);
    const status = consistency.columns.findIndex((column) => column.name === 'status');
    expect(consistency.rows.length).toBeGreaterThan(0);
    expect(consistency.rows.filter((row) => row[status] === 'disagrees')).toEqual([]);
    expect(consistency.rows.filter((row) => row[status] === 'agrees').length).toBeGreaterThan(0);
  });
});
