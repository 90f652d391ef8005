/**
 * `airt-report serve`: a read-only web view of the warehouse, rendered on the server with no script.
 *
 *   request ─▶ method (GET/HEAD, else 405) ─▶ Host check (one Host header, a path as the target;
 *   else 421) ─▶ route ─▶ page (SQL, one turn on the read-only connection) ─▶ HTML in the page shell,
 *   or one table as CSV (`download=`)
 *
 * Every response carries the reports' Content-Security-Policy as a header (no script can run even
 * if text escaped the escaping), no caching, no referrer, and no framing.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidOptionError, UsageError, WordedError } from '../errors.js';
import { listenError } from '../listen-error.js';
import { allowedHosts, isLoopback, requestHost } from './host-check.js';
import { markup } from './html.js';
import { layout, VIEWER_CSP } from './layout.js';
import { filterChoices } from './pages/findings.js';
import { overviewPage } from './pages/overview.js';
import { route } from './routes.js';
import { PageError, type PageContext, type QueryLimits } from './pages/page.js';
import { tableCsv } from './table.js';
import {
  openViewerDatabase,
  QueryTimeoutError,
  WarehouseBusyError,
  type ViewerDatabase,
} from './viewer-database.js';

export interface ViewerOptions {
  /** The warehouse (DuckDB file), opened read-only. */
  db: string;
  /** Address to listen on; default 127.0.0.1 (loopback). */
  host?: string | undefined;
  /** TCP port; 0 picks a free one. Default 0. */
  port?: number | undefined;
  /** Rows the query page shows at most (default 1,000). */
  queryRowCap?: number | undefined;
  /** Time a query-page SELECT may run before DuckDB interrupts it (default 5,000 ms). */
  queryTimeLimitMs?: number | undefined;
}

const DEFAULT_LIMITS: QueryLimits = { rowCap: 1000, timeLimitMs: 5000 };

export interface RunningViewer {
  url: string;
  host: string;
  port: number;
  /** True when the address is not a loopback one: other machines may reach the viewer. */
  exposed: boolean;
  /** Stops accepting requests, ends open connections, closes the database. */
  close(): Promise<void>;
}

const BASE_HEADERS = {
  'content-security-policy': VIEWER_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'cross-origin-resource-policy': 'same-origin',
} as const;

/** Starts the viewer; resolves once it listens. A port in use or an unreadable database throws. */
export async function startViewer(options: ViewerOptions): Promise<RunningViewer> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new InvalidOptionError('port', (name) => `${name('port')} must be a whole number from 0 to 65535.`);
  }
  const limits: QueryLimits = {
    rowCap: options.queryRowCap ?? DEFAULT_LIMITS.rowCap,
    timeLimitMs: options.queryTimeLimitMs ?? DEFAULT_LIMITS.timeLimitMs,
  };
  const db = await openViewerDatabase(options.db);
  const server = createServer();
  try {
    await listen(server, host, port);
  } catch (error) {
    await db.close();
    throw error;
  }
  const bound = (server.address() as AddressInfo).port;
  const hosts = allowedHosts(host, bound);
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    void handle(request, response, { db, hosts, limits });
  });
  // The overview and the findings filters are what a browser opens first: compute them now, while the
  // user reads the URL (a failure here is the page's to report when it is asked for).
  void overviewPage({ db, pathname: '/', params: new URLSearchParams(), download: null, limits })
    .then(() => filterChoices(db))
    .catch(() => undefined);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${bound}/`,
    host,
    port: bound,
    exposed: !isLoopback(host),
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await db.close();
    },
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException): void => {
      server.off('listening', listening);
      reject(listenError(error, host, port));
    };
    const listening = (): void => {
      server.off('error', failed);
      resolve();
    };
    server.once('error', failed);
    server.once('listening', listening);
    server.listen(port, host);
  });
}

function send(
  response: ServerResponse,
  status: number,
  type: string,
  body: string,
  head: boolean,
  extra: Record<string, string> = {},
): void {
  response.writeHead(status, {
    ...BASE_HEADERS,
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    ...extra,
  });
  response.end(head ? undefined : body);
}

async function errorPage(
  response: ServerResponse,
  status: number,
  title: string,
  message: string,
  head: boolean,
  extra: Record<string, string> = {},
): Promise<void> {
  const body = await layout(title, markup`<p class="error-box">${message}</p>`);
  send(response, status, 'text/html; charset=utf-8', body, head, extra);
}

interface Served {
  db: ViewerDatabase;
  /** Host header values answered. */
  hosts: Set<string>;
  limits: QueryLimits;
}

async function handle(request: IncomingMessage, response: ServerResponse, served: Served): Promise<void> {
  const { db, hosts, limits } = served;
  const head = request.method === 'HEAD';
  try {
    if (request.method !== 'GET' && !head) {
      send(
        response,
        405,
        'text/plain; charset=utf-8',
        'Method not allowed: the viewer only reads (GET, HEAD).\n',
        false,
        { allow: 'GET, HEAD' },
      );
      return;
    }
    const host = requestHost(request);
    if (host === undefined || !hosts.has(host)) {
      // 421 Misdirected Request: this server does not serve that name (a DNS-rebinding page, a proxy),
      // or the request names more than its Host (two Host headers, an absolute URI): no browser's.
      send(response, 421, 'text/plain; charset=utf-8', 'This viewer does not answer for that Host.\n', head);
      return;
    }
    const url = new URL(request.url ?? '/', 'http://viewer.invalid');
    const page = route(url.pathname);
    if (page === undefined) {
      await errorPage(response, 404, 'Not found', `No page at ${url.pathname}.`, head);
      return;
    }
    const context: PageContext = {
      db,
      pathname: url.pathname,
      params: url.searchParams,
      download: url.searchParams.get('download'),
      limits,
    };
    const result = await page(context);
    if (context.download !== null) {
      const table = result.tables.find((t) => t.id === context.download);
      if (table === undefined) {
        await errorPage(response, 404, 'Not found', `This page has no table ${context.download}.`, head);
        return;
      }
      send(response, 200, 'text/csv; charset=utf-8', tableCsv(table), head, {
        'content-disposition': `attachment; filename="${table.id}.csv"`,
      });
      return;
    }
    const document = result.document ?? (await layout(result.title, result.body));
    send(response, 200, 'text/html; charset=utf-8', document, head);
  } catch (error) {
    if (response.headersSent) {
      response.destroy();
      return;
    }
    if (error instanceof PageError)
      await errorPage(
        response,
        error.status,
        error.status === 404 ? 'Not found' : 'Bad request',
        error.message,
        head,
      );
    else if (error instanceof UsageError || error instanceof WordedError)
      // The library's wording, with its option names spoken as this page's parameters.
      await errorPage(
        response,
        400,
        'Bad request',
        error.describeWith((name) => `the ${name} parameter`),
        head,
      );
    else if (error instanceof QueryTimeoutError)
      await errorPage(response, 503, 'Too slow', error.message, head);
    else if (error instanceof WarehouseBusyError)
      await errorPage(response, 503, 'Being loaded', error.message, head, { 'retry-after': '5' });
    else {
      const message = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
      await errorPage(response, 500, 'Error', `The page failed: ${message}`, head).catch(() =>
        response.destroy(),
      );
    }
  }
}
