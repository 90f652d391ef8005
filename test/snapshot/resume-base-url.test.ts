/**
 * `--resume` continues a snapshot from the service it was started against, never another one with the
 * same org and workspace slugs: the result would mix the data of both and its manifest would name only
 * the second. Base URLs are compared as requests are built from them, so a trailing slash is the same
 * service. A refused resume fetches nothing and leaves the directory as it was.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, InvalidOptionError } from '../../src/errors.js';
import { cliOptionName } from '../../src/cli/option-names.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { SnapshotStoppedError, takeSnapshot } from '../../src/snapshot/take-snapshot.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { dataFileHashes, FAST_RETRY, SMALL, startProxy, TOKEN } from './fixtures.js';

let sim: RunningSimulator;
let other: RunningSimulator;
let proxy: { url: string; close(): Promise<void> };
let failing = true;

beforeAll(async () => {
  sim = await startSimulator(SMALL);
  // Another service with the same org and workspace slugs (and other data).
  other = await startSimulator({ ...SMALL, seed: 8 });
  proxy = await startProxy(sim.url, { fail: (p) => failing && p.includes('/traces/trials') });
});

afterAll(async () => {
  await proxy.close();
  await other.close();
  await sim.close();
});

const options = (out: string, baseUrl: string, resume?: string) => ({
  baseUrl,
  org: 'acme',
  workspace: 'main',
  token: TOKEN,
  out,
  retry: { ...FAST_RETRY, maxAttempts: 2 },
  ...(resume !== undefined ? { resume } : {}),
});

/** A finished snapshot whose trial lists all failed (status partial), taken through the proxy. */
async function partialSnapshot(out: string): Promise<string> {
  failing = true;
  const result = await takeSnapshot(options(out, proxy.url));
  expect(result.status).toBe('partial');
  return result.dir;
}

/** An unfinished `<id>.partial` directory: the run is stopped as soon as it has one. */
async function interruptedSnapshot(out: string): Promise<string> {
  const controller = new AbortController();
  const error: unknown = await takeSnapshot(options(out, proxy.url), {
    signal: controller.signal,
    onWorkingDirectory: () => controller.abort(),
  }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SnapshotStoppedError);
  return (error as SnapshotStoppedError).partialDir;
}

describe('--resume against another base URL', () => {
  it.each([
    ['a partial snapshot', partialSnapshot],
    ['an interrupted .partial directory', interruptedSnapshot],
  ])('refuses %s, naming both addresses, and fetches nothing', async (_name, make) => {
    const out = await makeTempDir('airt-resume-url-');
    const dir = await make(out);
    const before = await dataFileHashes(dir);
    const listing = await readdir(path.dirname(dir));
    const requests = [sim.stats().requests, other.stats().requests];

    const error: unknown = await takeSnapshot(options(out, other.url, dir)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(InvalidOptionError);
    const refused = error as InvalidOptionError;
    expect(refused.exitCode).toBe(EXIT.usage);
    expect(refused.option).toBe('resume');
    expect(refused.message).toContain(
      `was fetched from ${proxy.url}, not from ${other.url} (options.baseUrl)`,
    );
    expect(refused.describeWith(cliOptionName)).toContain(
      `(set ${cliOptionName('baseUrl')} to ${proxy.url}), or start a new snapshot.`,
    );
    expect([sim.stats().requests, other.stats().requests]).toEqual(requests);
    expect(await readdir(path.dirname(dir))).toEqual(listing);
    expect(await dataFileHashes(dir)).toEqual(before);
  });

  it('resumes with the same address written differently (a trailing slash)', async () => {
    const out = await makeTempDir('airt-resume-url-same-');
    const dir = await partialSnapshot(out);
    failing = false;
    const resumed = await takeSnapshot(options(out, `${proxy.url}/`, dir));
    expect(resumed.status).toBe('complete');
    expect(resumed.manifest.failed_requests).toEqual([]);
  });
});
