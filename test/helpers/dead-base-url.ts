/** A loopback service address where nothing listens, for tests of what an unreachable service does. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** `http://127.0.0.1:PORT` for a port the OS just handed out and took back: connections are refused. */
export async function deadBaseUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  return `http://127.0.0.1:${port}`;
}
