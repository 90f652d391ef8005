/**
 * `snapshot --timeout SECONDS` and a run config's `snapshot.timeout_seconds`: the request timeout a
 * user can raise for a slow service (the library's `timeoutMs`), checked before anything is sent.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConfigFromObject } from '../../src/pipeline/run-config.js';
import { runMain } from '../helpers/run-main.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'airt-timeout-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const connection = [
  '--base-url',
  'http://127.0.0.1:9',
  '--org',
  'acme',
  '--workspace',
  'main',
  '--token-file',
];

describe('snapshot --timeout', () => {
  it.each(['0', '-1', '3601', 'soon'])('refuses %s before any request', async (value) => {
    const run = await runMain(work, ['snapshot', ...connection, 'no-such-token-file', '--timeout', value]);
    expect(run.code).toBe(2);
    expect(run.err).toContain('--timeout must be a number of seconds above 0 and at most 3600');
  });
});

describe('snapshot.timeout_seconds in a run config', () => {
  const config = (snapshot: Record<string, unknown>) => ({
    connection: { base_url: 'http://127.0.0.1:9', org: 'acme', workspace: 'main' },
    database: 'w.duckdb',
    snapshot,
  });

  it('is taken in seconds', () => {
    expect(runConfigFromObject(config({ timeout_seconds: 90 }), work).snapshot.timeout_seconds).toBe(90);
    expect(runConfigFromObject(config({}), work).snapshot.timeout_seconds).toBeUndefined();
  });

  it.each([0, -5, 7200, '30'])('refuses %s', (value) => {
    expect(() => runConfigFromObject(config({ timeout_seconds: value }), work)).toThrow(
      /snapshot\.timeout_seconds/,
    );
  });
});
