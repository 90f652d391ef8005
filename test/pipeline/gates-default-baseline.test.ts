/**
 * `airt-report gates` without `--previous` compares with the snapshot a run of it compared with (the
 * gated baseline), never simply the one loaded before it: after a good run A, a partial run B and a
 * good run C, re-checking C compares with A, as C's own gate report did, not with the partial B (which
 * would count B's changes as persisting and turn C's failed gate into a pass).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import type { GateReport } from '../../src/pipeline/gate-report.js';
import { gatedBaselinePath } from '../../src/pipeline/gated-baseline.js';
import { runConfigFromObject } from '../../src/pipeline/run-config.js';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

// Seed 5 with a 20% 502 rate and a single attempt loses exactly one trial list (deterministic) in a
// world of three assessments per project (as in run-baseline.test.ts); epoch 1 re-scores a completed
// assessment to critical (a regression).
const SCALE = { assessmentsPerProject: 3, attacksPerAssessment: 4, trialsPerAttack: 5, evaluationJobs: 20 };
const GATES = ['new_critical_findings <= 0', 'regressed_findings <= 0'];
const simulators: RunningSimulator[] = [];

afterEach(async () => {
  await Promise.all(simulators.splice(0).map((sim) => sim.close()));
});

async function simulator(faults?: string): Promise<RunningSimulator> {
  const sim = await startSimulator({
    projects: 2,
    seed: 5,
    scale: SCALE,
    ...(faults === undefined ? {} : { faults }),
  });
  simulators.push(sim);
  return sim;
}

const quiet = { stderr: (): void => undefined };

describe('gates: the default previous snapshot', () => {
  it('is the one the run compared with, never a partial snapshot loaded in between', async () => {
    const clean = await simulator();
    const faulty = await simulator('502=0.2');
    const dir = await makeTempDir('airt-gates-baseline-');
    const env = { AIRT_TOKEN: clean.token };
    const object = (sim: RunningSimulator): Record<string, unknown> => ({
      connection: { base_url: sim.url, org: sim.org, workspace: sim.workspace },
      // The faulty run keeps its snapshots apart, so it fetches every trial list instead of reusing them.
      snapshot: { max_attempts: 1, out_dir: sim === clean ? 'snapshots' : 'snapshots-faulty' },
      reports: [],
      gates: GATES,
    });
    const run = (sim: RunningSimulator): ReturnType<typeof runPipeline> =>
      runPipeline(runConfigFromObject(object(sim), dir), { ...quiet, env });

    await writeFile(path.join(dir, 'cfg.json'), JSON.stringify(object(clean)));
    const gates = async (
      ...args: string[]
    ): Promise<{ code: number; report: GateReport; markdown: string }> => {
      const io = recordingIO({ cwd: dir, env });
      const json = path.join(dir, `gates-${args.join('-') || 'default'}.json`);
      const code = await main(['gates', '--config', 'cfg.json', '--json', json, ...args], io);
      const report = JSON.parse(await readFile(json, 'utf8')) as GateReport;
      return { code, report, markdown: io.out.join('').replaceAll('\\', '') };
    };

    // The first run has no baseline (every open finding is new, so it may trip); it still advances.
    const a = await run(clean);
    expect(a.summary.baseline.advanced).toBe(true);
    clean.setEpoch(1);
    faulty.setEpoch(1);
    const b = await run(faulty);
    expect(b.summary.snapshot.status).toBe('partial');
    // Re-checking the partial B (the newest now) compares with the gated baseline its run used.
    const partial = await gates();
    expect(partial.report.snapshot_id).toBe(b.summary.snapshot.id);
    expect(partial.report.previous_snapshot_id).toBe(a.summary.snapshot.id);
    expect(partial.report.previous_snapshot_reason).toContain('the gated baseline (');
    const c = await run(clean);
    const [aId, bId, cId] = [a.summary.snapshot.id!, b.summary.snapshot.id!, c.summary.snapshot.id!];
    // C's own gates compared with A (the gated baseline): what epoch 1 brought trips them.
    expect(c.summary.previous_snapshot_id).toBe(aId);
    expect(c.exitCode).toBe(4);
    // Markdown escapes punctuation: compared without the backslashes.
    const runReport = (await readFile(c.summary.paths.gate_report_md!, 'utf8')).replaceAll('\\', '');
    expect(runReport).toContain(
      `compared with \`${aId}\`: the gated baseline (the snapshot of the last run whose every step ` +
        'succeeded on a complete snapshot).',
    );

    // Re-checking C (the newest) gives C's verdict, compared with the same snapshot, and says why.
    const again = await gates();
    expect(again.report.snapshot_id).toBe(cId);
    expect(again.report.previous_snapshot_id).toBe(aId);
    expect(again.code).toBe(4);
    expect(again.report.results.map((r) => [r.gate, r.status])).toEqual(
      c.summary.gates.map((g) => [g.gate, g.status]),
    );
    expect(again.markdown).toContain(
      `compared with \`${aId}\`: the gated baseline its run compared with (recorded with it when that run ` +
        'became the baseline).',
    );

    // B, older than the recorded baseline C now: the newest complete snapshot loaded before it.
    const older = await gates('--snapshot', bId);
    expect(older.report.previous_snapshot_id).toBe(aId);
    expect(older.report.previous_snapshot_reason).toContain('the newest complete, verified snapshot');

    // A record from before it said what the run compared with: the newest complete snapshot before C.
    const recordFile = gatedBaselinePath(path.join(dir, 'airt.duckdb'));
    const record = JSON.parse(await readFile(recordFile, 'utf8')) as {
      workspaces: Record<string, { previous_snapshot_id?: string | null }>;
    };
    for (const entry of Object.values(record.workspaces)) delete entry.previous_snapshot_id;
    await writeFile(recordFile, JSON.stringify(record));
    const oldRecord = await gates();
    expect(oldRecord.report.previous_snapshot_id).toBe(aId);
    expect(oldRecord.code).toBe(4);
    expect(oldRecord.markdown).toContain(
      `compared with \`${aId}\`: the newest complete, verified snapshot loaded before it`,
    );

    // An explicit choice still wins, and the report says it was asked for. Compared with the partial B,
    // what epoch 1 brought is "persisting": the verdict the old default gave, a pass.
    const explicit = await gates('--previous', bId);
    expect(explicit.report.previous_snapshot_id).toBe(bId);
    expect(explicit.code).toBe(0);
    expect(explicit.markdown).toContain(`compared with \`${bId}\`: the snapshot asked for.`);
  });
});
