/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-assignment -- diff.json and the manifest are read untyped, as another tool would */
/**
 * A run on a partial night, when the summary request of one project failed (the service answered 500
 * to the fetch the run is given, by key and by UUID): the run's diff.json lists that project with
 * `compared: false` and the failed requests, as the README promises, instead of leaving it out; the
 * other project is compared as always. Once with every project of the workspace, once with both
 * projects named in the config. Two runs each against the simulator on 127.0.0.1 port 0: a healthy
 * one (the baseline), then the partial one. Figures are checked against the second snapshot's raw
 * manifest and summary JSON.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runConfigFromObject } from '../../src/pipeline/run-config.js';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { analyzedRuns, readRawSummary, severityBand, type RawJson } from '../helpers/raw-summary-findings.js';
import { failingSummaryFetch } from '../helpers/partial-snapshot-pair.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

const SCALE = { assessmentsPerProject: 3, attacksPerAssessment: 4, trialsPerAttack: 5, evaluationJobs: 4 };
const simulators: RunningSimulator[] = [];

afterEach(async () => {
  await Promise.all(simulators.splice(0).map((sim) => sim.close()));
});

const quiet = { stderr: (): void => undefined };

async function partialNight(configured: (keys: string[]) => string[]): Promise<void> {
  const sim = await startSimulator({ seed: 5, projects: 2, scale: SCALE });
  simulators.push(sim);
  const [first, second] = sim.truth.projects();
  if (first === undefined || second === undefined)
    throw new Error('the simulator has fewer than two projects');
  const [failingKey, fetchedKey] = [first.key, second.key];
  const dir = await makeTempDir('airt-run-diff-partial-');
  const env = { AIRT_TOKEN: sim.token };
  const config = runConfigFromObject(
    {
      connection: { base_url: sim.url, org: sim.org, workspace: sim.workspace },
      snapshot: { max_attempts: 1 },
      projects: configured([failingKey, fetchedKey]),
      reports: [],
      gates: [],
    },
    dir,
  );
  const healthy = await runPipeline(config, { ...quiet, env });
  expect(healthy.exitCode).toBe(0);
  const night = await runPipeline(config, {
    ...quiet,
    env,
    fetch: failingSummaryFetch([failingKey, first.id]),
  });
  // The repro: a partial snapshot (exit 3) that compared with the healthy run's snapshot.
  expect(night.exitCode).toBe(3);
  expect(night.summary.previous_snapshot_id).toBe(healthy.summary.snapshot.id);
  const snapshotDir = night.summary.snapshot.dir!;
  const manifest = JSON.parse(await readFile(path.join(snapshotDir, 'manifest.json'), 'utf8')) as RawJson;
  expect(manifest.status).toBe('partial');
  // A run of every project asks for them as the service lists them (here by UUID); the diff names
  // them by the key their summary gives (the simulator's key).
  const entry = (project: { key: string; id: string }): RawJson =>
    (manifest.projects as RawJson[]).find((p) => p.key === project.key || p.project_id === project.id)!;
  const [failing, fetched] = [failingKey, fetchedKey];
  expect(entry(first).status).toBe('failed');
  expect(entry(second).status).toBe('ok');
  const failedForIt = (manifest.failed_requests as RawJson[]).filter((r) =>
    /\/summary$/u.test(String(r.path)),
  );
  expect(failedForIt.length).toBeGreaterThan(0);

  const diff = JSON.parse(await readFile(night.summary.paths.diff_json!, 'utf8')) as RawJson;
  expect((diff.projects as RawJson[]).map((p) => p.project)).toEqual([failing, fetched].sort());
  const lacking = (diff.projects as RawJson[]).find((p) => p.project === failing)!;
  expect(lacking).toMatchObject({ compared: false, in_previous: true, in_current: true });
  expect(lacking.counts).toMatchObject({ new: 0, resolved: 0, regressed: 0, persisting: 0 });
  expect(lacking.data_quality).toEqual([
    {
      snapshot_id: night.summary.snapshot.id,
      side: 'to',
      kind: 'summary_missing',
      failed_requests: expect.any(Array),
    },
  ]);
  expect(lacking.data_quality[0].failed_requests).toHaveLength(failedForIt.length);
  expect(diff.partial_snapshots).toEqual([
    expect.objectContaining({ side: 'to', projects_without_summary: [failing] }),
  ]);
  // The other project is compared: nothing changed in the service, so every tracked finding persists.
  const summary = await readRawSummary(snapshotDir, String(entry(second).dir));
  expect(summary.project_key).toBe(fetched);
  const tracked = analyzedRuns(summary).filter(
    (run) => severityBand(run.best_score as number | null) !== 'info',
  );
  expect(tracked.length).toBeGreaterThan(0);
  const other = (diff.projects as RawJson[]).find((p) => p.project === fetched)!;
  expect(other).toMatchObject({
    compared: true,
    counts: { persisting: tracked.length, resolved: 0, new: 0 },
  });
  // The Markdown says the same.
  const markdown = await readFile(night.summary.paths.diff_md!, 'utf8');
  expect(markdown).toContain(`## Project ${failing}\n\nNot compared: `);
  // The run's warnings say what happened to it: its summary failed, not that it is missing.
  const aboutIt = night.summary.warnings.filter((w) => w.includes(failing));
  for (const warning of aboutIt) expect(warning).not.toContain('is not in snapshot');
  if (configured([failing]).length > 0)
    expect(aboutIt).toContainEqual(
      `project ${failing} has no summary in snapshot ${night.summary.snapshot.id}: its summary request failed (the manifest's failed_requests), so its figures are unknown`,
    );
}

describe("a run's diff on a night when one project's summary failed", () => {
  it('lists that project not compared when the config covers every project', async () => {
    await partialNight(() => []);
  }, 120_000);

  it('lists it not compared when the config names it', async () => {
    await partialNight((keys) => keys);
  }, 120_000);
});
