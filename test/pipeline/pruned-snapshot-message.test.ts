/**
 * Asking for a snapshot retention pruned. A new user's pass over ten nightly runs with
 * `retention.keep_last` asked `diff --from` and `report --snapshot` for an older night's id and got
 * "not in the database; load it first" (diff) and a usage error (report): nothing said retention had
 * deleted it, so a typo and a pruned night read the same. Now diff, report and gates say when and by
 * which run it was pruned; a typo keeps the old message; loading the snapshot's directory again (a
 * copy) makes it an ordinary snapshot again.
 */
import { cp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { runConfigFromObject } from '../../src/pipeline/run-config.js';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

const SCALE = { assessmentsPerProject: 2, attacksPerAssessment: 2, trialsPerAttack: 2, evaluationJobs: 1 };
const NIGHT = (n: number): Date => new Date(Date.UTC(2026, 10, 1 + n, 2, 0, 0));

let sim: RunningSimulator;
let dir: string;
let db: string;
let pruned: string;
let pruner: string;
let kept: string;
let baseline: string;
let copy: string;

async function cli(args: string[]): Promise<{ code: number; err: string; out: string }> {
  const io = recordingIO({ cwd: dir });
  const code = await main(args, io);
  return { code, err: io.err.join(''), out: io.out.join('') };
}

beforeAll(async () => {
  sim = await startSimulator({ projects: 1, scale: SCALE });
  dir = await makeTempDir('airt-pruned-message-');
  db = path.join(dir, 'airt.duckdb');
  const config = runConfigFromObject(
    {
      connection: { base_url: sim.url, org: sim.org, workspace: sim.workspace },
      reports: [],
      retention: { keep_last: 1 },
    },
    dir,
  );
  const ids: string[] = [];
  for (const night of [0, 1, 2]) {
    sim.setEpoch(night);
    const run = await runPipeline(config, {
      stderr: () => undefined,
      env: { AIRT_TOKEN: sim.token },
      now: () => NIGHT(night),
    });
    expect(run.exitCode).toBe(0);
    ids.push(run.summary.snapshot.id ?? '');
    // A copy of the first night's directory before retention deletes it (reloaded below).
    if (night === 0) {
      copy = path.join(dir, 'kept-copy', ids[0]!);
      await cp(run.summary.snapshot.dir ?? '', copy, { recursive: true });
    }
  }
  // keep_last 1: night 1's run keeps night 0 as its baseline; night 2's run prunes it.
  [pruned, baseline, kept] = ids as [string, string, string];
  pruner = kept;
});

afterAll(async () => {
  await sim?.close();
});

/** What every command says about the pruned night: when, by which run, under which setting. */
function expectPrunedMessage(err: string): void {
  expect(err).toContain(
    `Snapshot ${pruned} is not in the database any more: the retention of run ${pruner} pruned it on 2026-11-03 02:00 UTC`,
  );
  expect(err).toContain(`retention.keep_last 1 for ${sim.org}/${sim.workspace}`);
  // It names what the database still holds of the workspace, newest first (the run kept its baseline).
  expect(err).toContain(
    `The database holds 2 snapshots of ${sim.org}/${sim.workspace}: ${kept}, ${baseline}.`,
  );
  expect(err).not.toContain('load it first');
  expect(err).not.toMatch(/\n\s+at /); // no stack trace
}

describe('a snapshot retention pruned', () => {
  it('diff, report and gates say retention pruned it, and when', async () => {
    const diff = await cli(['diff', '--db', db, '--from', pruned, '--to', kept]);
    expect(diff.code).toBe(1);
    expectPrunedMessage(diff.err);

    // An executive report of the pruned night's project, and a portfolio of the pruned night.
    const project = ['--kind', 'executive', '--project', sim.projectKeys[0] ?? ''];
    for (const [scope, out] of [
      [project, 'report-out'],
      [['--kind', 'portfolio'], 'portfolio-out'],
    ] as const) {
      const report = await cli([
        'report',
        '--db',
        db,
        ...scope,
        '--snapshot',
        pruned,
        '--format',
        'md',
        '--out',
        path.join(dir, out),
      ]);
      expect(report.code).toBe(2);
      expectPrunedMessage(report.err);
    }

    const gatesConfig = path.join(dir, 'gates.json');
    await writeFile(
      gatesConfig,
      JSON.stringify({
        connection: { base_url: sim.url, org: sim.org, workspace: sim.workspace },
        gates: ['open_critical_findings <= 100'],
      }),
    );
    const gates = await cli(['gates', '--config', gatesConfig, '--db', db, '--snapshot', pruned]);
    expect(gates.code).toBe(2);
    expectPrunedMessage(gates.err);
  });

  it('keeps the old message for an id that was never loaded', async () => {
    const typo = `${kept}x`;
    const diff = await cli(['diff', '--db', db, '--from', typo, '--to', kept]);
    expect(diff.code).toBe(1);
    expect(diff.err).toContain(`Snapshot ${typo} is not in the database; load it first`);
    expect(diff.err).not.toContain('retention');
  });

  it('is an ordinary snapshot again once its directory is loaded again', async () => {
    const load = await cli(['load', copy, '--db', db]);
    expect(load.code, load.err).toBe(0);
    const diff = await cli(['diff', '--db', db, '--from', pruned, '--to', kept, '--format', 'json']);
    expect(diff.code, diff.err).toBe(0);
    expect(diff.err).not.toContain('retention pruned');
  });
});
