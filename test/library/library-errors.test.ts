/**
 * A library caller tells failures apart by type, and library messages carry facts, not CLI flags:
 * takeSnapshot passes the API client's typed errors on unchanged (a wrong token is an
 * AuthenticationError), names its own options as the library spells them, and never tells the caller
 * to run a command. The CLI adds flags and hints at its boundary (test/snapshot/cli.test.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CliError,
  InvalidOptionError,
  isApiError,
  isAuthenticationError,
  takeSnapshot,
} from '../../src/index.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { SMALL, TOKEN } from '../snapshot/fixtures.js';

let out: string;
let sim: RunningSimulator;

beforeAll(async () => {
  out = await mkdtemp(path.join(tmpdir(), 'airt-liberr-'));
  sim = await startSimulator(SMALL);
});

afterAll(async () => {
  await sim.close();
  await rm(out, { recursive: true, force: true });
});

/** The rejection of `promise`, which must reject. */
async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Error) return error;
    throw new Error(`rejected with a non-Error: ${String(error)}`);
  }
  throw new Error('expected a rejection');
}

const CLI_WORDS = /--[a-z]|airt-report (snapshot|config)|AIRT_TOKEN/u;

describe('library errors', () => {
  it('a wrong token rejects with the typed AuthenticationError, not a CLI error', async () => {
    const error = await rejectionOf(
      takeSnapshot({ baseUrl: sim.url, org: sim.org, workspace: sim.workspace, token: 'wrong-token', out }),
    );
    expect(isAuthenticationError(error)).toBe(true);
    expect(isApiError(error)).toBe(true);
    expect(error).not.toBeInstanceOf(CliError);
    expect(error.message).toMatch(/401/u);
    expect(error.message).not.toMatch(CLI_WORDS);
  });

  it('an option out of range names the option, not a flag', async () => {
    const error = await rejectionOf(
      takeSnapshot({
        baseUrl: sim.url,
        org: sim.org,
        workspace: sim.workspace,
        token: TOKEN,
        out,
        concurrency: 0,
      }),
    );
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as InvalidOptionError).option).toBe('concurrency');
    expect(error.message).toContain('concurrency must be a whole number from 1 to 64, got 0');
    expect(error.message).not.toMatch(CLI_WORDS);
  });

  it('a base URL with a query string is refused before anything is written, without flag names', async () => {
    const error = await rejectionOf(
      takeSnapshot({ baseUrl: `${sim.url}?x=1`, org: sim.org, workspace: sim.workspace, token: TOKEN, out }),
    );
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as InvalidOptionError).option).toBe('baseUrl');
    expect(error.message).toMatch(/query string/u);
    expect(error.message).not.toMatch(CLI_WORDS);
  });

  it('an interrupted run says where the unfinished snapshot is, without telling the caller a command', async () => {
    const controller = new AbortController();
    const run = takeSnapshot(
      { baseUrl: sim.url, org: sim.org, workspace: sim.workspace, token: TOKEN, out, concurrency: 1 },
      {
        signal: controller.signal,
        onWorkingDirectory: () => controller.abort(),
      },
    );
    const error = await rejectionOf(run);
    expect(error.message).toMatch(/before the snapshot was finished/u);
    expect(error.message).toMatch(/\.partial/u);
    expect(error.message).not.toMatch(CLI_WORDS);
    expect((error as { partialDir?: string }).partialDir).toMatch(/\.partial$/u);
  });
});
