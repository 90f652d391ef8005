/**
 * A manifest's failed requests are data read later by every interface (the CLI, a run, load, reports),
 * so their error text names no interface's spelling of a setting: not the library's `options.baseUrl`,
 * not the CLI's `--base-url`, not a run's `connection.base_url`, but plain words ("the service's base
 * URL"). Live errors keep each caller's wording (test/snapshot/connection-wording.test.ts).
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { describedOptionName } from '../../src/errors.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { takeSnapshot } from '../../src/snapshot/take-snapshot.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { FAST_RETRY, readManifestFile, SMALL } from './fixtures.js';

const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/**
 * A loopback proxy in front of `target` that drops the connection of chosen requests without an
 * answer, so the client fails them with a network error (the kind that says to check the base URL).
 */
async function startResettingProxy(
  target: string,
  reset: (pathAndQuery: string) => boolean,
): Promise<string> {
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const pathAndQuery = req.url ?? '/';
    if (reset(pathAndQuery)) {
      req.socket.destroy();
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
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function simulator(): Promise<RunningSimulator> {
  const sim = await startSimulator(SMALL);
  closers.push(() => sim.close());
  return sim;
}

/** No interface's spelling of a setting: library option, CLI flag, run config key. */
const INTERFACE_SPELLING = /options\.|--|connection\.|AIRT_/u;

describe('describedOptionName', () => {
  it('names the settings API errors point at in plain words, and any other one as a setting', () => {
    expect(describedOptionName('baseUrl')).toBe("the service's base URL");
    expect(describedOptionName('token')).toBe('the access token');
    expect(describedOptionName('tokenFile')).toBe('the access token file');
    expect(describedOptionName('trialsLimit')).toBe('the trials limit setting');
    for (const option of ['baseUrl', 'token', 'tokenFile', 'trialsLimit', 'lockTimeoutMs']) {
      expect(describedOptionName(option)).not.toMatch(INTERFACE_SPELLING);
    }
  });
});

describe("a partial snapshot's failed requests", () => {
  it('say what to check in plain words, not as the library spells its options', async () => {
    const sim = await simulator();
    const baseUrl = await startResettingProxy(sim.url, (p) => p.includes('/traces/trials'));
    const result = await takeSnapshot({
      baseUrl,
      org: sim.org,
      workspace: sim.workspace,
      token: sim.token,
      out: await makeTempDir('airt-manifest-wording-'),
      retry: { ...FAST_RETRY, maxAttempts: 1 },
    });
    expect(result.status).toBe('partial');
    const onDisk = await readManifestFile(result.dir);
    expect(onDisk.failed_requests).toEqual(result.manifest.failed_requests);
    const failed = onDisk.failed_requests;
    expect(failed.length).toBeGreaterThan(0);
    for (const request of failed) {
      expect(request).toMatchObject({ kind: 'trials', status: null, attempts: 1 });
      expect(request.error).toContain(`${request.method} ${request.path} failed`);
      expect(request.error).toContain("Check the service's base URL and that the service is reachable");
      expect(request.error).not.toMatch(INTERFACE_SPELLING);
    }
  });
});
