/** Plain-fetch helpers for simulator tests (deliberately independent of the API client). */
import type { RunningSimulator } from '../../src/simulator/index.js';

export interface Fetched {
  status: number;
  headers: Headers;
  text: string;
}

export interface CallOptions {
  method?: string;
  token?: string | null;
  body?: unknown;
}

/** Calls `path` on the simulator; `token: null` sends no Authorization header. */
export async function call(sim: RunningSimulator, path: string, options: CallOptions = {}): Promise<Fetched> {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? sim.token : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${sim.url}${path}`, {
    method: options.method ?? 'GET',
    headers,
    ...(options.body === undefined
      ? {}
      : { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

export async function getJson<T = unknown>(
  sim: RunningSimulator,
  path: string,
  options: CallOptions = {},
): Promise<T> {
  const result = await call(sim, path, options);
  if (result.status !== 200)
    throw new Error(
      `${options.method ?? 'GET'} ${path} answered ${result.status}: ${result.text.slice(0, 300)}`,
    );
  return JSON.parse(result.text) as T;
}

export function wsPath(sim: RunningSimulator, rest: string): string {
  return `/api/v1/org/${sim.org}/ws/${sim.workspace}${rest}`;
}

export const summaryPath = (sim: RunningSimulator, project: string): string =>
  wsPath(sim, `/airt/projects/${encodeURIComponent(project)}/summary`);
export const trialsPath = (sim: RunningSimulator, assessmentId: string, query = ''): string =>
  wsPath(sim, `/airt/assessments/${assessmentId}/traces/trials${query}`);
export const findingPath = (sim: RunningSimulator, findingId: string): string =>
  wsPath(sim, `/airt/findings/${findingId}`);
export const evaluationsPath = (sim: RunningSimulator, query = ''): string =>
  wsPath(sim, `/evaluations${query}`);
export const autoRefillPath = (sim: RunningSimulator): string => `/api/v1/org/${sim.org}/credits/auto-refill`;
