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

/** A simulated world taken once: its snapshot directory and project keys. */
export interface SimulatedWorld {
  snapshotDir: string;
  projects: string[];
}

/** A simulated world taken once and loaded: its snapshot directory, database and project keys. */
export interface LoadedWorld extends SimulatedWorld {
  db: string;
}

/**
 * Starts a simulator with `options`, snapshots every project into `dir/<name>` and stops it: for
 * tests that edit the snapshot (and reseal it) before they load it.
 */
export async function simulatorWorld(
  options: SimulatorOptions,
  dir: string,
  name = 'world',
): Promise<SimulatedWorld> {
  const sim = await startSimulator(options);
  try {
    const projects = sim.truth.projects().map((p) => p.key);
    const { dir: snapshotDir } = await snapshotSimulator(sim, { out: path.join(dir, name), projects });
    return { snapshotDir, projects };
  } finally {
    await sim.close();
  }
}

/**
 * Takes a simulatorWorld and loads its snapshot into `dir/<name>.duckdb`: for tests that recompute
 * figures from one world's raw JSON.
 */
export async function loadedSimulatorWorld(
  options: SimulatorOptions,
  dir: string,
  name = 'world',
): Promise<LoadedWorld> {
  const world = await simulatorWorld(options, dir, name);
  const db = path.join(dir, `${name}.duckdb`);
  await loadSnapshots(db, [world.snapshotDir]);
  return { ...world, db };
}
