/**
 * The node:http server: reads each request, applies the fault plan (latency, 429, 502, 504, cut) at
 * the edge like a proxy would, asks the router for the reply and writes it. Trial lists are streamed
 * in chunks with backpressure; a cut reply announces the full Content-Length, sends part of the body
 * and destroys the socket. Nothing under `/_sim/` is ever faulted or delayed.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { decideFault, RequestCounter, type FaultDecision, type FaultKind } from './faults.js';
import { envelope } from './http-errors.js';
import type { Reply, Router } from './routes.js';
import type { ResolvedOptions } from './options.js';

const MAX_BODY_BYTES = 1024 * 1024;
const JSON_TYPE = 'application/json';
const PROXY_502_PAGE =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

export interface ServerStats {
  requests: number;
  faults: Record<string, number>;
  /**
   * PATCH requests received per finding id (last path segment), counted on arrival, before any fault:
   * lets tests check that a triage row reached the service exactly once.
   */
  patches: Record<string, number>;
}

const FINDING_PATH = /\/airt\/findings\/([^/]+)$/u;

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) parts.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function waitForDrainOrClose(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Writes chunks with backpressure; stops after `budget` bytes. Resolves when the last write is flushed. */
async function writeChunks(
  res: ServerResponse,
  chunks: Iterable<string>,
  budget = Number.POSITIVE_INFINITY,
): Promise<void> {
  let written = 0;
  for (const chunk of chunks) {
    if (res.destroyed) return;
    let buffer = Buffer.from(chunk, 'utf8');
    if (written + buffer.length > budget) buffer = buffer.subarray(0, budget - written);
    written += buffer.length;
    const last = written >= budget;
    if (last) {
      await new Promise<void>((resolve) => res.write(buffer, () => resolve()));
      return;
    }
    if (!res.write(buffer)) await waitForDrainOrClose(res);
  }
}

function sendBody(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
  type = JSON_TYPE,
): void {
  const buffer = Buffer.from(body, 'utf8');
  res.writeHead(status, {
    'Content-Type': `${type}; charset=utf-8`,
    'Content-Length': String(buffer.length),
    ...headers,
  });
  res.end(buffer);
}

async function sendReply(res: ServerResponse, reply: Reply): Promise<void> {
  if ('body' in reply) {
    sendBody(res, reply.status, reply.body, reply.headers);
    return;
  }
  res.writeHead(reply.status, { 'Content-Type': `${JSON_TYPE}; charset=utf-8`, ...reply.headers });
  await writeChunks(res, reply.chunks());
  if (!res.destroyed) res.end();
}

/** Announces the full length, writes a fraction of the body, then resets the connection. */
async function sendCut(res: ServerResponse, reply: Reply, fraction: number): Promise<void> {
  const chunks = 'body' in reply ? () => [reply.body] : reply.chunks;
  let total = 0;
  for (const chunk of chunks()) total += Buffer.byteLength(chunk, 'utf8');
  res.writeHead(reply.status, {
    'Content-Type': `${JSON_TYPE}; charset=utf-8`,
    'Content-Length': String(total),
    ...reply.headers,
  });
  await writeChunks(res, chunks(), Math.max(1, Math.floor(total * fraction)));
  res.destroy();
}

function sendFault(
  res: ServerResponse,
  kind: Exclude<FaultKind, 'cut'>,
  decision: FaultDecision,
  retryAfterS: number,
): void {
  if (kind === '429') {
    const reply = envelope(
      429,
      'usage_limit_exceeded_error',
      'Rate limited: too many requests; retry after the time in Retry-After.',
    );
    sendBody(res, 429, reply.body, { 'Retry-After': String(retryAfterS) });
  } else if (kind === '502') {
    if (decision.html) sendBody(res, 502, PROXY_502_PAGE, {}, 'text/html');
    else
      sendBody(
        res,
        502,
        envelope(502, 'bad_gateway_error', 'Bad gateway: the upstream service did not answer correctly.')
          .body,
      );
  } else {
    sendBody(
      res,
      504,
      envelope(504, 'gateway_timeout_error', 'Gateway timeout: the upstream service took too long to answer.')
        .body,
    );
  }
}

export function createSimulatorServer(
  options: ResolvedOptions,
  router: Router,
): { server: Server; stats: () => ServerStats } {
  const counter = new RequestCounter();
  const stats: ServerStats = { requests: 0, faults: {}, patches: {} };
  const { faults, seed } = options;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawUrl = req.url ?? '/';
    const method = req.method ?? 'GET';
    const url = new URL(rawUrl, 'http://simulator.invalid');
    const body = await readBody(req);
    if (body === null) {
      sendBody(
        res,
        400,
        envelope(400, 'invalid_error', `The request body exceeds ${MAX_BODY_BYTES} bytes.`).body,
      );
      return;
    }
    const simRequest = {
      method,
      pathname: url.pathname,
      query: url.searchParams,
      authorization: req.headers.authorization,
      body,
    };
    if (url.pathname.startsWith('/_sim/')) {
      await sendReply(res, router.handle(simRequest));
      return;
    }
    stats.requests++;
    const finding = method === 'PATCH' ? FINDING_PATH.exec(url.pathname)?.[1] : undefined;
    if (finding !== undefined) stats.patches[finding] = (stats.patches[finding] ?? 0) + 1;
    const decision = decideFault(faults, seed, method, rawUrl, counter.next(`${method} ${rawUrl}`));
    if (faults.latencyMs > 0) await delay(faults.latencyMs);
    if (decision.kind) stats.faults[decision.kind] = (stats.faults[decision.kind] ?? 0) + 1;
    // 429 and 502 are answered before the service sees the request; 504 and cut after it acted.
    if (decision.kind === '429' || decision.kind === '502') {
      sendFault(res, decision.kind, decision, faults.retryAfterS);
      return;
    }
    const reply = router.handle(simRequest);
    if (decision.kind === '504') sendFault(res, '504', decision, faults.retryAfterS);
    else if (decision.kind === 'cut') await sendCut(res, reply, decision.cutFraction);
    else await sendReply(res, reply);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      if (!res.headersSent)
        sendBody(res, 500, envelope(500, 'server_error', `Simulator error: ${message}`).body);
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 10_000;
  return {
    server,
    stats: () => ({ requests: stats.requests, faults: { ...stats.faults }, patches: { ...stats.patches } }),
  };
}
