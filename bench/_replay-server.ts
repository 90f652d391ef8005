/**
 * A trivial loopback server that answers every request of a finished snapshot with the exact bytes
 * that snapshot stored for it (status 200, application/json) after a fixed delay, and does nothing
 * else: no computation per request, no auth, no paging logic.
 *
 * It is the baseline of bench/snapshot.ts. Measuring the snapshot and a bare client against this one
 * server compares the two clients on the same bytes, sizes, latency and concurrency; the simulator
 * would add its own CPU per request (and a server serving `[]` would leave out the body bytes the
 * client must receive), so either would measure the server rather than the client.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Manifest } from '../src/snapshot/manifest.js';

export interface ReplayServer {
  url: string;
  /** Request paths (path and query, as the snapshot sent them), in manifest order. */
  paths: string[];
  /** Body bytes served over all paths. */
  bytes: number;
  /** Requests answered so far (any status). */
  served(): number;
  close(): Promise<void>;
}

/** Serves `dir`'s files by their manifest's request paths, each after `latencyMs`. */
export async function startReplayServer(dir: string, latencyMs: number): Promise<ReplayServer> {
  const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  const bodies = new Map<string, Buffer>();
  for (const file of manifest.files) {
    if (!file.request) continue;
    bodies.set(file.request.path, await readFile(path.join(dir, file.path)));
  }
  let served = 0;
  const server = createServer((request, response) => {
    served++;
    const body = bodies.get(request.url ?? '');
    setTimeout(() => {
      if (!body) {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"not found"}');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.byteLength });
      response.end(body);
    }, latencyMs);
  });
  // Keep-alive connections stay open between the runs that reuse the server.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    paths: [...bodies.keys()],
    bytes: [...bodies.values()].reduce((sum, body) => sum + body.byteLength, 0),
    served: () => served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
