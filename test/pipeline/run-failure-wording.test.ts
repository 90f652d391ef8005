/**
 * What `airt-report run` prints about failed requests comes from the snapshot's manifest, which is
 * data: it must not show the library's `options.baseUrl` (not a run setting, not a flag). A run names
 * the base URL by its config key, `connection.base_url`, and only once.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordingIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { EXIT } from '../../src/errors.js';
import { nothingFetched } from '../../src/pipeline/run-nothing-fetched.js';
import type { RunSummary } from '../../src/pipeline/run-summary.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import type { Manifest } from '../../src/snapshot/manifest.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { startProxy } from '../snapshot/fixtures.js';
import { writeFixtureSnapshot } from './snapshot-dir-fixture.js';
import { deadBaseUrl } from '../helpers/dead-base-url.js';
import { journalWithOneTriage } from '../helpers/triaged-journal.js';

const SCALE = { assessmentsPerProject: 3, attacksPerAssessment: 3, trialsPerAttack: 4, evaluationJobs: 20 };
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
  const sim = await startSimulator({ projects: 2, scale: SCALE });
  closers.push(() => sim.close());
  return sim;
}

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe('run, on a partial snapshot', () => {
  it("prints the failed requests without the library's option names", async () => {
    const sim = await simulator();
    const baseUrl = await resettingProxy(sim.url);
    const dir = await makeTempDir('airt-run-wording-partial-');
    const config = {
      connection: { base_url: baseUrl, org: sim.org, workspace: sim.workspace },
      snapshot: { max_attempts: 1 },
      reports: [],
      gates: [],
    };
    await writeFile(path.join(dir, 'run.json'), JSON.stringify(config));
    const io = recordingIO({ cwd: dir, env: { AIRT_TOKEN: sim.token } });
    const code = await main(['run', '--config', 'run.json', '--quiet'], io);
    const stderr = io.err.join('');
    expect(code, stderr).toBe(EXIT.partial);

    const lines = stderr.split('\n').filter((line) => line.includes('failed request:'));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).toMatch(/failed request: GET \S+\/traces\/trials\S* \(no response, 1 attempt\): /u);
      expect(line).toContain("Check the service's base URL");
      expect(line).not.toMatch(/options\.|--/u);
    }
    expect(stderr).not.toContain('options.');

    // run-summary.json keeps the manifest's text, in the same plain words.
    const summary = JSON.parse(await readFile(io.out.join('').trim(), 'utf8')) as RunSummary;
    expect(summary.failed_requests).toHaveLength(lines.length);
    for (const request of summary.failed_requests) expect(request.error).not.toMatch(/options\.|--/u);
  });
});

describe('run, when only the triage journal supplied files', () => {
  it('says why in its own words: connection.base_url, once, and never options.baseUrl', async () => {
    const sim = await simulator();
    const dir = await makeTempDir('airt-run-wording-journal-');
    const env = { AIRT_TOKEN: sim.token };
    const journal = await journalWithOneTriage(sim, dir);

    const config = {
      connection: { base_url: await deadBaseUrl(), org: sim.org, workspace: sim.workspace },
      snapshot: { triage_journal: journal, max_attempts: 1 },
      reports: [],
      gates: [],
    };
    await writeFile(path.join(dir, 'dead.json'), JSON.stringify(config));
    const io = recordingIO({ cwd: dir, env });
    const code = await main(['run', '--config', 'dead.json', '--quiet'], io);
    const stderr = io.err.join('');
    expect(code, stderr).toBe(EXIT.failure);

    const [first] = stderr.split('\n');
    expect(first).toMatch(/^run failed at snapshot: Could not reach the service: nothing was fetched/u);
    expect(first).toContain('ECONNREFUSED');
    expect(first).toContain('copied from the triage journal');
    expect(first).not.toContain('options.');
    expect(occurrences(first!, 'connection.base_url')).toBe(1);
    expect(first).not.toContain("the service's base URL");
    for (const line of stderr.split('\n').filter((l) => l.includes('failed request:'))) {
      expect(line).not.toMatch(/options\.|--/u);
    }
  });

  it("leaves the library's advice out of a quoted failure written by an earlier version too", async () => {
    const root = await makeTempDir('airt-run-wording-old-');
    await mkdir(path.join(root, 'acme', 'main', '20260101T000000Z'), { recursive: true });
    const { dir, manifest } = await writeFixtureSnapshot({ root, snapshotId: '20260101T000000Z', files: {} });
    const request = 'GET /api/v1/config failed: connect ECONNREFUSED 127.0.0.1:9 (ECONNREFUSED).';
    const failed: Manifest['failed_requests'][number] = {
      method: 'GET',
      path: '/api/v1/config',
      kind: 'config',
      file: 'config.json',
      status: null,
      attempts: 1,
      error: `${request} Check options.baseUrl and that the service is reachable, then try again.`,
    };
    const plain = { ...failed, error: failed.error.replace('options.baseUrl', "the service's base URL") };
    for (const failure of [failed, plain]) {
      const message = nothingFetched({ dir, manifest: { ...manifest, failed_requests: [failure] } });
      expect(message).toContain(`1 request(s) failed, the first: ${request.replace(/\.$/u, '')})`);
      expect(message).not.toContain('options.');
      expect(message).not.toContain("the service's base URL");
      expect(occurrences(message, 'connection.base_url')).toBe(1);
    }
  });
});
