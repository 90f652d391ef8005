/**
 * Shared pieces of the snapshot integration tests: a small simulator workspace, a loopback proxy that
 * keeps failing chosen requests, and helpers that read a snapshot directory.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { SimulatorOptions } from '../../src/simulator/index.js';
import { MANIFEST_FILE, type Manifest } from '../../src/snapshot/manifest.js';

/** A distinctive token so a leak is easy to grep for. */
export const TOKEN = 'tok-SECRET-7f3a9c';

/** Small enough to keep the suite fast, big enough for 2 evaluation pages and several trial lists. */
export const SMALL: SimulatorOptions = {
  seed: 7,
  token: TOKEN,
  projects: 2,
  scale: { assessmentsPerProject: 3, attacksPerAssessment: 3, trialsPerAttack: 6, evaluationJobs: 130 },
};

/** Fast retries for fault tests (the simulator's faults are deterministic, so retries succeed). */
export const FAST_RETRY = { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 12 };

/** Every file of a snapshot except manifest.json, as path → sha256. */
export async function dataFileHashes(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const relative = path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/');
    if (relative === MANIFEST_FILE) continue;
    out.set(
      relative,
      createHash('sha256')
        .update(await readFile(path.join(dir, relative)))
        .digest('hex'),
    );
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

export async function readManifestFile(dir: string): Promise<Manifest> {
  return JSON.parse(await readFile(path.join(dir, MANIFEST_FILE), 'utf8')) as Manifest;
}

export async function readJson(file: string): Promise<unknown> {
  return JSON.parse(await readFile(file, 'utf8')) as unknown;
}

/** Every file below `dir` (relative paths), for containment and leak checks. */
export async function listAll(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort();
}

export interface ProxyBehaviour {
  /** Answer 502 (bad_gateway_error envelope) instead of forwarding: a request that keeps failing. */
  fail?: (pathAndQuery: string) => boolean;
  /** Drop the connection without an answer: a service that cannot be reached for these requests. */
  reset?: (pathAndQuery: string) => boolean;
  /** Replace a 200 body (return undefined to keep it): a service whose data changes under us. */
  rewrite?: (pathAndQuery: string, body: string) => string | undefined;
}

/** A loopback HTTP proxy in front of `target` that drops, fails or rewrites chosen requests. */
export async function startProxy(
  target: string,
  behaviour: ProxyBehaviour,
): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const pathAndQuery = req.url ?? '/';
    if (behaviour.reset?.(pathAndQuery)) {
      req.socket.destroy();
      return;
    }
    if (behaviour.fail?.(pathAndQuery)) {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 502, detail: 'upstream down (test proxy)', type: 'bad_gateway_error' }));
      return;
    }
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: pathAndQuery,
        headers: { ...req.headers, host: upstream.host, 'accept-encoding': 'identity' },
      },
      (upstreamRes) => {
        const rewrite = behaviour.rewrite;
        if (!rewrite || upstreamRes.statusCode !== 200) {
          res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
          upstreamRes.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        upstreamRes.on('data', (chunk: Buffer) => chunks.push(chunk));
        upstreamRes.on('end', () => {
          const original = Buffer.concat(chunks).toString('utf8');
          const body = Buffer.from(rewrite(pathAndQuery, original) ?? original, 'utf8');
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
          res.end(body);
        });
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A proxy whose chosen requests keep failing with 502. */
export function startFailingProxy(
  target: string,
  failing: (pathAndQuery: string) => boolean,
): Promise<{ url: string; close(): Promise<void> }> {
  return startProxy(target, { fail: failing });
}
