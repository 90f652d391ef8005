/**
 * A snapshot of a running simulator through the library, the simulator's own address, org, workspace
 * and token filled in: tests name only what they vary (output folder, projects, trial limit, journal).
 */
import type { RunningSimulator } from '../../src/simulator/index.js';
import { takeSnapshot, type SnapshotOptions } from '../../src/snapshot/take-snapshot.js';

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
