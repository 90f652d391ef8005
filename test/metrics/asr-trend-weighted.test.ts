/**
 * `@asr_trend`'s attack_weighted_asr weighted each assessment's ASR by its total_attacks, attacks
 * without a result included, so it was the plain mean of the service's assessment ASRs and disagreed
 * with overall_asr beside it (0.6637 against 0.6591 on the demo). Weighted by attacks it is pooled
 * successes ÷ attacks with a result, the metrics layer's overall_asr: checked against a
 * plain-TypeScript recomputation over the raw snapshot JSON (raw-recompute.ts), on a simulated world
 * where some attacks have no result, so the old weighting differs.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readNamedQuery } from '../../src/warehouse/named-queries.js';
import { loadedSimulatorWorld } from '../helpers/simulator-snapshot.js';
import { rows } from '../warehouse/helpers.js';
import { recomputeFromRaw } from './raw-recompute.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const round4 = (value: number): number => Math.round(value * 1e4) / 1e4;

/** The old column's arithmetic over the raw summary: Σ overall_asr × total_attacks ÷ Σ total_attacks. */
async function weightedByTotalAttacks(snapshotDir: string, project: string): Promise<number> {
  const summary = JSON.parse(
    await readFile(path.join(snapshotDir, 'projects', project, 'summary.json'), 'utf8'),
  ) as Json;
  const known = (summary.assessments as Json[]).filter(
    (a) => typeof a.overall_asr === 'number' && typeof a.total_attacks === 'number',
  );
  const attacks = known.reduce((sum, a) => sum + (a.total_attacks as number), 0);
  return known.reduce((sum, a) => sum + a.overall_asr * a.total_attacks, 0) / attacks;
}

describe('@asr_trend attack_weighted_asr', () => {
  let dir: string;
  let snapshotDir: string;
  let db: string;
  let projects: string[];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'airt-trend-'));
    ({ snapshotDir, db, projects } = await loadedSimulatorWorld(
      {
        seed: 5,
        projects: 3,
        scale: { assessmentsPerProject: 4, attacksPerAssessment: 8, trialsPerAttack: 4, evaluationJobs: 2 },
      },
      dir,
    ));
  }, 60_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('is pooled successes over attacks with a result, the same as overall_asr', async () => {
    const sql = (await readNamedQuery('asr_trend')).sql.trim().replace(/;$/u, '');
    const trend = await rows(db, sql);
    let differsFromOldWeighting = 0;
    for (const project of projects) {
      const raw = await recomputeFromRaw(snapshotDir, project);
      const row = trend.find((r) => r.project_key === project)!;
      const at = (label: string, value: unknown) => [project, label, value];
      expect(raw.attacks).toBeGreaterThan(0);
      expect(at('attack_weighted_asr', row.attack_weighted_asr)).toEqual(
        at('attack_weighted_asr', round4(raw.successful / raw.attacks)),
      );
      expect(at('counts', [row.successful_attacks, row.evaluated_attacks])).toEqual(
        at('counts', [raw.successful, raw.attacks]),
      );
      expect(at('overall_asr', row.overall_asr)).toEqual(at('overall_asr', row.attack_weighted_asr));
      expect(at('excluded_assessments', row.excluded_assessments)).toEqual(at('excluded_assessments', 0));
      if (round4(await weightedByTotalAttacks(snapshotDir, project)) !== row.attack_weighted_asr)
        differsFromOldWeighting += 1;
    }
    // The world has attacks without a result, so the old weighting would have failed above.
    expect(differsFromOldWeighting).toBeGreaterThan(0);
  });
});
