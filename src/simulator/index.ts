/**
 * A deterministic synthetic implementation of the red-teaming service (shared/seed/api-spec.md): the
 * only server the project can test against. All six operations at the spec's paths on a loopback
 * port, data derived lazily from the seed, optional fault injection, and a logical clock (epochs).
 *
 *   options ─▶ WorldPlanner (projects, assessments, runs) ─▶ RunStatsCache (per-run aggregates)
 *           └▶ Router (auth, 426, 422, 404, handlers) ─▶ server (faults, streaming) ─▶ client
 */
import type { AddressInfo } from 'node:net';
import { listenError } from '../listen-error.js';
import { resolveOptions, type SimulatorOptions } from './options.js';
import { Router } from './routes.js';
import { createSimulatorServer, type ServerStats } from './server.js';
import { SimulatedService } from './service.js';
import { createTruth, type SimulatorTruth } from './truth.js';

export type { SimulatorOptions, SimulatorScale, SimulatorPreset } from './options.js';
export { PRESETS } from './options.js';
export type { FaultSpec } from './faults.js';
export { parseFaultSpec } from './faults.js';
export type { SimulatorTruth } from './truth.js';
export { HOSTILE_SLUG } from './world.js';

/** A simulator listening on 127.0.0.1: its address, identity, ground truth, controls and close(). */
export interface RunningSimulator {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:41234 */
  url: string;
  org: string;
  workspace: string;
  token: string;
  /** Project slugs. */
  projectKeys: string[];
  /** Ground truth for tests, computed from the same generator. */
  truth: SimulatorTruth;
  /** Moves the logical clock (also: POST /_sim/epoch {"epoch":N} with the token). */
  setEpoch(epoch: number): void;
  /** Requests served (excluding /_sim/*), faults injected by kind, PATCHes received per finding id. */
  stats(): ServerStats;
  close(): Promise<void>;
}

/**
 * Starts the simulator; resolves once it listens. Throws UsageError on bad options, and one line
 * (listen-error.ts) when the port is taken or the host is not this machine's.
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const resolved = resolveOptions(options);
  const service = new SimulatedService(resolved);
  const { server, stats } = createSimulatorServer(resolved, new Router(service));
  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException): void =>
      reject(listenError(error, resolved.host, resolved.port));
    server.once('error', failed);
    server.listen(resolved.port, resolved.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closed: Promise<void> | null = null;
  return {
    url: `http://${host}:${address.port}`,
    org: resolved.org,
    workspace: resolved.workspace,
    token: resolved.token,
    projectKeys: service.projects().map((p) => p.key),
    truth: createTruth(service),
    setEpoch: (epoch) => service.setEpoch(epoch),
    stats,
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
