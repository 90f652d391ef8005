/**
 * A manifest's failed requests are data read later by every interface (the CLI, a run, load, reports),
 * so their error text names no interface's spelling of a setting: not the library's `options.baseUrl`,
 * not the CLI's `--base-url`, not a run's `connection.base_url`, but plain words ("the service's base
 * URL"). Live errors keep each caller's wording (test/snapshot/connection-wording.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { describedOptionName } from '../../src/errors.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { takeSnapshot } from '../../src/snapshot/take-snapshot.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { FAST_RETRY, readManifestFile, SMALL, startProxy } from './fixtures.js';

const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A proxy in front of `target` that drops the connection of every trial-list request. */
async function resettingProxy(target: string): Promise<string> {
  const proxy = await startProxy(target, {
    reset: (pathAndQuery) => pathAndQuery.includes('/traces/trials'),
  });
  closers.push(() => proxy.close());
  return proxy.url;
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
    const baseUrl = await resettingProxy(sim.url);
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
