/**
 * DNS-rebinding defence: a page of another site that rebinds its name to 127.0.0.1 can reach the
 * viewer's port, but its requests carry its own name in the Host header. Only the address the viewer
 * serves (and, on a loopback address, `localhost`) with its port is answered.
 *
 * The Host checked must be the only name the request gives: Node's http module keeps the first of two
 * Host headers and ignores the name in an absolute-URI request line (`GET http://evil.example/`), so a
 * request with either would be judged by a name it does not go by. Browsers send neither (a request
 * line names a path, there is one Host): such a request is refused like a foreign Host.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/** The Host header values accepted for a server bound to `host`:`port`. */
export function allowedHosts(host: string, port: number): Set<string> {
  const name = isIP(host) === 6 ? `[${host}]` : host;
  const hosts = new Set([`${name}:${port}`.toLowerCase()]);
  if (isLoopback(host)) {
    hosts.add(`localhost:${port}`);
    hosts.add(`127.0.0.1:${port}`);
    hosts.add(`[::1]:${port}`);
  }
  return hosts;
}

/** True for 127.0.0.0/8, ::1 and `localhost`. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/u.test(host);
}

/**
 * The Host a request is judged by, lower-cased: its one Host header, when its request line names a
 * path (origin form). Undefined for a request without one, with several Host headers, or with an
 * absolute URI (or any other form) as its target.
 */
export function requestHost(request: Pick<IncomingMessage, 'rawHeaders' | 'url'>): string | undefined {
  // rawHeaders alternates names and values, each header as it was sent (duplicates kept).
  const values = request.rawHeaders.filter(
    (_, i, all) => i % 2 === 1 && all[i - 1]?.toLowerCase() === 'host',
  );
  if (values.length !== 1 || !(request.url ?? '').startsWith('/')) return undefined;
  return values[0]?.toLowerCase();
}
