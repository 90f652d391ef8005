/**
 * A snapshot of a service that does not answer says to check the base URL in the caller's words: the
 * library names its option (`options.baseUrl`), the CLI its flag and variable (`--base-url /
 * AIRT_BASE_URL`), a run its config key (`connection.base_url`). Only a closed loopback port is used.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordingIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { CliError, EXIT } from '../../src/errors.js';
import { runOptionName } from '../../src/pipeline/run-config.js';
import { stoppedRequestsOf, takeSnapshot } from '../../src/snapshot/take-snapshot.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { FAST_RETRY, TOKEN } from './fixtures.js';
import { deadBaseUrl } from '../helpers/dead-base-url.js';

describe('a snapshot of a service that does not answer', () => {
  it('names the library option in the library, and the caller can word it its own way', async () => {
    const error = await takeSnapshot({
      baseUrl: await deadBaseUrl(),
      org: 'acme',
      workspace: 'main',
      token: TOKEN,
      out: await makeTempDir('airt-wording-lib-'),
      retry: { ...FAST_RETRY, maxAttempts: 1 },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    const { message } = error as CliError;
    expect(message).toMatch(/^Nothing was fetched, so there is no snapshot: .*ECONNREFUSED/u);
    expect(message).toContain('Check options.baseUrl and that the service is reachable');
    expect(message).not.toContain('--base-url');

    // The requests of the run summary: the library's words by default, a run's config key on request.
    const library = stoppedRequestsOf(error);
    expect(library.length).toBeGreaterThan(0);
    for (const request of library) expect(request.error).toContain('Check options.baseUrl');
    const run = stoppedRequestsOf(error, runOptionName);
    expect(run.map((request) => request.status)).toEqual(library.map((request) => request.status));
    for (const request of run) {
      expect(request.error).toContain('Check connection.base_url');
      expect(request.error).not.toContain('options.baseUrl');
    }
  });

  it('names --base-url / AIRT_BASE_URL in the CLI, never the library option', async () => {
    const out = await makeTempDir('airt-wording-cli-');
    const io = recordingIO({ env: { AIRT_TOKEN: TOKEN }, cwd: out });
    const args = ['--base-url', await deadBaseUrl(), '--org', 'acme'];
    const code = await main(
      ['snapshot', ...args, '--workspace', 'main', '--out', path.join(out, 'snaps'), '--quiet'],
      io,
    );
    expect(code).toBe(EXIT.failure);
    const stderr = io.err.join('');
    expect(stderr).toContain('ECONNREFUSED');
    expect(stderr).toContain('Check --base-url / AIRT_BASE_URL and that the service is reachable');
    expect(stderr).not.toContain('options.baseUrl');
  });
});
