/**
 * A real HTTP server on 127.0.0.1, port 0, whose answers a test scripts request by request: status,
 * headers and body, or a connection that breaks (cut body, reset before answering, no answer at all).
 * It records every request it received (method, URL, headers, body, which socket).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else is JSON-encoded. */
  body?: unknown;
  /** Send the headers (with the full Content-Length) and half the body, then destroy the socket. */
  cut?: boolean;
  /** Destroy the socket without answering. */
  reset?: boolean;
  /** Never answer (the client's timeout must end it). */
  hang?: boolean;
  /** Send the body in `pieces` parts, `everyMs` apart (a slow link); `pieces: Infinity` never ends it. */
  drip?: { pieces: number; everyMs: number };
  /** Send the headers and half the body, then nothing more (the connection stays open). */
  stall?: boolean;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Same number = same TCP connection (keep-alive reuse). */
  connection: number;
}

export type Script = (request: RecordedRequest, index: number) => Reply | Promise<Reply>;

export interface ScriptServer {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Requests in flight right now, and the most seen at once. */
  maxInFlight: () => number;
  close(): Promise<void>;
}

export async function startScriptServer(script: Script, port = 0): Promise<ScriptServer> {
  const requests: RecordedRequest[] = [];
  const connections = new WeakMap<Socket, number>();
  let nextConnection = 1;
  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let connection = connections.get(req.socket);
      if (connection === undefined) {
        connection = nextConnection++;
        connections.set(req.socket, connection);
      }
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        connection,
      };
      requests.push(recorded);
      void Promise.resolve(script(recorded, requests.length - 1)).then((reply) => answer(req, res, reply));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    port: address.port,
    requests,
    maxInFlight: () => maxInFlight,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(req: http.IncomingMessage, res: http.ServerResponse, reply: Reply): void {
  if (reply.hang) return;
  if (reply.reset) {
    req.socket.destroy();
    return;
  }
  const body =
    reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  const bytes = Buffer.from(body, 'utf8');
  const headers: Record<string, string> = {
    'content-type': typeof reply.body === 'string' ? 'text/plain' : 'application/json',
    'content-length': String(bytes.length),
    ...reply.headers,
  };
  // A body that never ends has no length to announce (chunked).
  if (reply.drip && !Number.isFinite(reply.drip.pieces)) delete headers['content-length'];
  res.writeHead(reply.status ?? 200, headers);
  if (reply.stall) {
    res.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
    return;
  }
  if (reply.drip) {
    drip(res, bytes, reply.drip.pieces, reply.drip.everyMs);
    return;
  }
  if (reply.cut) {
    res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => {
      setImmediate(() => req.socket.destroy());
    });
    return;
  }
  res.end(bytes);
}

/**
 * Writes `bytes` in `pieces` parts `everyMs` apart, ending the response with the last; with
 * `pieces: Infinity` it writes one space at a time (whitespace JSON allows) until the socket closes.
 */
function drip(res: http.ServerResponse, bytes: Buffer, pieces: number, everyMs: number): void {
  const size = Number.isFinite(pieces) ? Math.ceil(bytes.length / pieces) : 1;
  let offset = 0;
  const timer = setInterval(() => {
    if (res.destroyed) {
      clearInterval(timer);
      return;
    }
    if (!Number.isFinite(pieces)) {
      res.write(' ');
      return;
    }
    const piece = bytes.subarray(offset, offset + size);
    offset += size;
    if (offset >= bytes.length) {
      clearInterval(timer);
      res.end(piece);
    } else res.write(piece);
  }, everyMs);
  res.on('close', () => clearInterval(timer));
}

/** A script that answers the n-th request with the n-th reply, and every later one with the last. */
export function sequence(...replies: Reply[]): Script {
  return (_request, index) => replies[Math.min(index, replies.length - 1)] ?? { status: 500 };
}

/** The service's error envelope. */
export function envelope(code: number, type: string, detail: string, errors?: unknown[]): Reply {
  return { status: code, body: { code, type, detail, ...(errors ? { errors } : {}) } };
}
