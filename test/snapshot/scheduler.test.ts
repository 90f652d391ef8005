/**
 * The snapshot keeps its connections busy across phases: a project's summary is requested as soon as
 * an evaluation page naming it is stored, not only once the last page is in, and the first evaluation
 * page goes out with the config request instead of after its answer. Checked by order, not by time: a
 * loopback proxy holds back an answer until the request that should come meanwhile arrives (or, for a
 * client that waits for the answer first, until a bounded wait runs out), and the test asserts the
 * request came while the answer was held.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { takeSnapshot } from '../../src/snapshot/take-snapshot.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { SMALL, TOKEN } from './fixtures.js';

/** How long the proxy holds the last page at most: a client that waits for it still finishes. */
const HOLD_AT_MOST_MS = 4000;

let sim: RunningSimulator;
let server: Server;
let url: string;
let summaryWhileHeld: boolean | undefined;
let firstPageWhileConfigHeld: boolean | undefined;

/** Resolves true when `arrived` settles first, false after HOLD_AT_MOST_MS. */
function holdUntil(arrived: Promise<void>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const held = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), HOLD_AT_MOST_MS)));
  return Promise.race([arrived.then(() => true), held]).finally(() => clearTimeout(timer));
}

beforeAll(async () => {
  sim = await startSimulator(SMALL);
  const upstream = new URL(sim.url);
  let summarySeen: () => void = () => undefined;
  const summaryArrived = new Promise<void>((resolve) => (summarySeen = resolve));
  let firstPageSeen: () => void = () => undefined;
  const firstPageArrived = new Promise<void>((resolve) => (firstPageSeen = resolve));
  server = createServer((req, res) => {
    const pathAndQuery = req.url ?? '/';
    const forward = (): void => {
      const outbound = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: pathAndQuery,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      outbound.on('error', () => res.destroy());
      req.pipe(outbound);
    };
    if (pathAndQuery.includes('/summary')) summarySeen();
    if (pathAndQuery.includes('/evaluations') && /[?&]page=1(&|$)/.test(pathAndQuery)) firstPageSeen();
    if (pathAndQuery.endsWith('/config')) {
      void holdUntil(firstPageArrived).then((sawPage) => {
        firstPageWhileConfigHeld ??= sawPage;
        forward();
      });
      return;
    }
    // SMALL has 130 jobs: page 2 of 100 is the last one.
    if (pathAndQuery.includes('/evaluations') && /[?&]page=2(&|$)/.test(pathAndQuery)) {
      void holdUntil(summaryArrived).then((sawSummary) => {
        summaryWhileHeld ??= sawSummary;
        forward();
      });
      return;
    }
    forward();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await sim.close();
});

describe('snapshot scheduling', () => {
  it('requests summaries while the last evaluation page is still outstanding', async () => {
    const out = await makeTempDir('airt-scheduler-');
    const result = await takeSnapshot({ baseUrl: url, org: 'acme', workspace: 'main', token: TOKEN, out });
    expect(result.status).toBe('complete');
    expect(result.manifest.files.filter((file) => file.kind === 'evaluations_page')).toHaveLength(2);
    expect(result.manifest.projects.map((project) => project.status)).toEqual(['ok', 'ok']);
    expect(summaryWhileHeld).toBe(true);
    // The config answer was held until the first page was asked for: the two go out together.
    expect(firstPageWhileConfigHeld).toBe(true);
    expect(result.manifest.api_version).not.toBeNull();
  });
});
