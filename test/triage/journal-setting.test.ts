/**
 * The triage journal's location is one setting: `--journal` or AIRT_TRIAGE_JOURNAL, and for `run` the
 * config's snapshot.triage_journal. What `triage` writes with the variable set is what `snapshot` and
 * `load` read with the same variable set, and a `run` that would leave journaled triage out warns.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { journalForRun, JOURNAL_ENV } from '../../src/triage/journal-setting.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { readJournalLines } from './helpers.js';

let sim: RunningSimulator;
let findingId: string;

beforeAll(async () => {
  sim = await startSimulator({
    seed: 3,
    projects: 1,
    scale: { assessmentsPerProject: 1, attacksPerAssessment: 2 },
  });
  findingId = sim.projectKeys.flatMap((key) => sim.truth.findingIds(key))[0] ?? '';
});
afterAll(async () => {
  await sim.close();
});

async function cli(cwd: string, argv: string[], extraEnv: Record<string, string> = {}) {
  const io = recordingIO({
    cwd,
    env: {
      AIRT_BASE_URL: sim.url,
      AIRT_ORG: sim.org,
      AIRT_WORKSPACE: sim.workspace,
      AIRT_TOKEN: sim.token,
      ...extraEnv,
    },
  });
  const code = await main(argv, io);
  return { code, out: io.out.join(''), err: io.err.join('') };
}

describe(`${JOURNAL_ENV}`, () => {
  it('is where triage writes and what snapshot and load read', async () => {
    const dir = await makeTempDir('airt-journal-env-');
    const env = { [JOURNAL_ENV]: 'team-journals/journal.jsonl' };
    const triaged = await cli(dir, ['triage', findingId, '--status', 'false_positive'], env);
    expect(triaged.code).toBe(0);
    expect(existsSync(path.join(dir, 'triage', 'journal.jsonl'))).toBe(false);
    expect(await readJournalLines(path.join(dir, 'team-journals', 'journal.jsonl'))).toMatchObject([
      { finding_id: findingId, outcome: 'applied' },
    ]);

    const snap = await cli(dir, ['snapshot', '--out', 'snaps', '--quiet'], env);
    expect(snap.code, snap.err).toBe(0);
    const snapshotDir = snap.out.trim().split('\n').at(-1) ?? '';
    expect(await readdir(path.join(snapshotDir, 'findings'))).toEqual([`${findingId}.json`]);

    const load = await cli(dir, ['load', '--db', 'w.duckdb', '--quiet'], env);
    expect(load.code, load.err).toBe(0);
    // One change: its "sending" marker and its applied line (the marker used to read "1 not applied").
    expect(load.out).toContain(
      '2 line(s): 1 applied change(s) loaded, 0 already loaded, 0 failed or of unknown outcome, 1 request marker(s) ("sending")',
    );
  });

  it('pointing at a file that does not exist yet means nothing was triaged', async () => {
    const dir = await makeTempDir('airt-journal-env-');
    const load = await cli(dir, ['load', '--db', 'w.duckdb'], { [JOURNAL_ENV]: 'none-yet.jsonl' });
    expect(load.code).toBe(2);
    expect(load.err).toContain('Name at least one snapshot directory or a --journal file.');
  });
});

describe('run', () => {
  const target = { org: 'acme', workspace: 'main', configDir: null };

  it('warns when the default journal holds triage of its workspace but none is configured', async () => {
    const dir = await makeTempDir('airt-journal-run-');
    await mkdir(path.join(dir, 'triage'));
    const line = (workspace: string) =>
      JSON.stringify({
        journal: 'airt-triage/1',
        time: '2026-01-01T00:00:00.000Z',
        org: 'acme',
        workspace,
        finding_id: findingId,
        request: { finding_status: 'false_positive' },
        outcome: 'applied',
        http_status: 200,
        error: null,
        finding: { id: findingId },
        source: 'cli',
      });
    await writeFile(path.join(dir, 'triage', 'journal.jsonl'), `${line('main')}\n`);
    const io = { cwd: dir, env: {} };
    const unset = await journalForRun(undefined, target, io);
    expect(unset.path).toBeUndefined();
    expect(unset.warnings).toHaveLength(1);
    expect(unset.warnings[0]).toContain('records triage of 1 finding(s) in acme/main, but this run has no');
    // Configured (either way), or journaled triage of another workspace only: no warning.
    expect(await journalForRun('/j.jsonl', target, io)).toEqual({ path: '/j.jsonl', warnings: [] });
    const fromEnv = await journalForRun(undefined, target, {
      cwd: dir,
      env: { [JOURNAL_ENV]: 'triage/journal.jsonl' },
    });
    expect(fromEnv).toEqual({ path: path.join(dir, 'triage', 'journal.jsonl'), warnings: [] });
    await writeFile(path.join(dir, 'triage', 'journal.jsonl'), `${line('staging')}\n`);
    expect((await journalForRun(undefined, target, io)).warnings).toEqual([]);
  });

  it('says which wins when the config and the environment disagree', async () => {
    const result = await journalForRun('/from-config.jsonl', target, {
      cwd: '/',
      env: { [JOURNAL_ENV]: '/from-env.jsonl' },
    });
    expect(result.path).toBe('/from-config.jsonl');
    expect(result.warnings[0]).toContain(`${JOURNAL_ENV} (/from-env.jsonl) is ignored`);
  });
});
