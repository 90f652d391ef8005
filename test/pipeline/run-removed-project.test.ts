/**
 * A scheduled run on the night a project left the service: diff.json lists it as no longer listed
 * (diff/removed-project.test.ts), and the run itself says so, in its diff step's detail and a warning,
 * instead of "0 new, 0 resolved, 0 regressed findings" alone. Two runs into one database, each against
 * the simulator on 127.0.0.1 port 0: the first world holds the hostile project `../../etc`, the
 * second the same world without it. The count is checked against the first snapshot's raw summary.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runConfigFromObject } from '../../src/pipeline/run-config.js';
import { runPipeline, type PipelineResult } from '../../src/pipeline/run-pipeline.js';
import { HOSTILE_SLUG, startSimulator } from '../../src/simulator/index.js';
import { analyzedRuns, severityBand, type RawJson } from '../helpers/raw-summary-findings.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

const SCALE = { assessmentsPerProject: 3, attacksPerAssessment: 4, trialsPerAttack: 5, evaluationJobs: 2 };

it('says a project is no longer listed and how many of its findings are no longer reported', async () => {
  const dir = await makeTempDir('airt-run-removed-');
  const outcomes: PipelineResult[] = [];
  let hostileId = '';
  for (const hostileSlug of [true, false]) {
    const sim = await startSimulator({ seed: 3, projects: 1, hostileSlug, scale: SCALE });
    try {
      if (hostileSlug) hostileId = sim.truth.projects().find((p) => p.key === HOSTILE_SLUG)?.id ?? '';
      const config = runConfigFromObject(
        {
          connection: { base_url: sim.url, org: sim.org, workspace: sim.workspace },
          snapshot: { max_attempts: 1 },
          reports: [],
          gates: [],
        },
        dir,
      );
      outcomes.push(await runPipeline(config, { stderr: () => undefined, env: { AIRT_TOKEN: sim.token } }));
    } finally {
      await sim.close();
    }
  }
  const [first, night] = outcomes;
  expect([first?.exitCode, night?.exitCode]).toEqual([0, 0]);
  // From the first snapshot's raw JSON: the removed project's tracked findings (low or worse).
  const firstDir = first!.summary.snapshot.dir!;
  const manifest = JSON.parse(await readFile(path.join(firstDir, 'manifest.json'), 'utf8')) as RawJson;
  const entry = (manifest.projects as RawJson[]).find(
    (p) => p.key === HOSTILE_SLUG || p.project_id === hostileId,
  )!;
  const summary = JSON.parse(
    await readFile(path.join(firstDir, 'projects', String(entry.dir), 'summary.json'), 'utf8'),
  ) as RawJson;
  const tracked = analyzedRuns(summary).filter(
    (run) => severityBand(run.best_score as number | null) !== 'info',
  ).length;
  expect(tracked).toBeGreaterThan(0);

  const diff = JSON.parse(await readFile(night!.summary.paths.diff_json!, 'utf8')) as RawJson;
  const removed = (diff.projects as RawJson[]).find((p) => p.project === HOSTILE_SLUG)!;
  expect(removed).toMatchObject({ in_current: false, counts: { no_longer_reported: tracked } });
  const step = night!.summary.steps.find((s) => s.name === 'diff');
  expect(step?.detail).toContain(`, 1 project(s) no longer listed (${tracked} findings no longer reported)`);
  expect(night!.summary.warnings).toContainEqual(
    `project ${HOSTILE_SLUG} is no longer listed (it was in ${first!.summary.snapshot.id}): ` +
      `${tracked} of its findings are no longer reported, none resolved (see diff.md)`,
  );
}, 120_000);
