/**
 * A snapshot of a running simulator through the library, the simulator's own address, org, workspace
 * and token filled in: tests name only what they vary (output folder, projects, trial limit, journal).
 */
import path from 'node:path';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../src/simulator/index.js';
import { takeSnapshot, type SnapshotOptions } from '../../src/snapshot/take-snapshot.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';

export function snapshotSimulator(
  sim: RunningSimulator,
  options: Omit<SnapshotOptions, 'baseUrl' | 'org' | 'workspace' | 'token'>,
): ReturnType<typeof takeSnapshot> {
  return takeSnapshot({
    baseUrl: sim.url,
    org: sim.org,
    workspace: sim.workspace,
    token: sim.token,
    ...options,
  });
}

/** A simulated world taken once and loaded: its snapshot directory, database and project keys. */
export interface LoadedWorld {
  snapshotDir: string;
  db: string;
  projects: string[];
}

/**
 * Starts a simulator with `options`, snapshots every project into `dir`, stops it and loads the
 * snapshot into `dir/<name>.duckdb`: for tests that recompute figures from one world's raw JSON.
 */
export async function loadedSimulatorWorld(
  options: SimulatorOptions,
  dir: string,
  name = 'world',
): Promise<LoadedWorld> {
  const sim = await startSimulator(options);
  let snapshotDir: string;
  let projects: string[];
  try {
    projects = sim.truth.projects().map((p) => p.key);
    snapshotDir = (await snapshotSimulator(sim, { out: path.join(dir, name), projects })).dir;
  } finally {
    await sim.close();
  }
  const db = path.join(dir, `${name}.duckdb`);
  await loadSnapshots(db, [snapshotDir]);
  return { snapshotDir, db, projects };
}
