/**
 * DNS-rebinding defence: a page of another site that rebinds its name to 127.0.0.1 can reach the
 * viewer's port, but its requests carry its own name in the Host header. Only the address the viewer
 * serves (and, on a loopback address, `localhost`) with its port is answered.
 */
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
