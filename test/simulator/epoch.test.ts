/**
 * Epochs: epoch 1 adds a completed assessment to each project, re-scores one completed assessment with
 * a regression (higher ASR, a new critical finding, later updated_at), completes the running one and
 * moves evaluation jobs on, while every other assessment keeps its updated_at and its trial list
 * byte for byte (snapshot `--since` relies on this).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssessmentDetail, EvaluationJob, ProjectSummary } from '../../src/api/schemas.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { call, evaluationsPath, getJson, summaryPath, trialsPath } from './helpers.js';

interface ProjectState {
  summary: ProjectSummary;
  trials: Map<string, string>;
}

async function capture(sim: RunningSimulator): Promise<Map<string, ProjectState>> {
  const out = new Map<string, ProjectState>();
  for (const key of sim.projectKeys) {
    const summary = await getJson<ProjectSummary>(sim, summaryPath(sim, key));
    const trials = new Map<string, string>();
    for (const a of summary.assessments)
      trials.set(a.id, (await call(sim, trialsPath(sim, a.id, '?limit=5000'))).text);
    out.set(key, { summary, trials });
  }
  return out;
}

async function allJobs(sim: RunningSimulator): Promise<EvaluationJob[]> {
  const jobs: EvaluationJob[] = [];
  for (let page = 1; page <= 20; page++) {
    const list = await getJson<{ items: EvaluationJob[]; total: number }>(
      sim,
      evaluationsPath(sim, `?page=${page}&page_size=100`),
    );
    jobs.push(...list.items);
    if (jobs.length >= list.total) break;
  }
  return jobs;
}

const critical = (a: AssessmentDetail): number => a.severity_breakdown?.critical ?? 0;

describe('epoch 1', () => {
  let sim: RunningSimulator;
  let before: Map<string, ProjectState>;
  let after: Map<string, ProjectState>;
  let jobsBefore: EvaluationJob[];
  let jobsAfter: EvaluationJob[];
  beforeAll(async () => {
    sim = await startSimulator({ seed: 9, scale: { trialsPerAttack: 12 } });
    before = await capture(sim);
    jobsBefore = await allJobs(sim);
    const moved = await call(sim, '/_sim/epoch', { method: 'POST', body: { epoch: 1 } });
    expect(JSON.parse(moved.text)).toEqual({ epoch: 1 });
    after = await capture(sim);
    jobsAfter = await allJobs(sim);
  });
  afterAll(() => sim.close());

  it('adds one new completed assessment to each project', () => {
    for (const key of sim.projectKeys) {
      const oldIds = new Set(before.get(key)?.summary.assessments.map((a) => a.id));
      const added = after.get(key)?.summary.assessments.filter((a) => !oldIds.has(a.id)) ?? [];
      expect(added).toHaveLength(1);
      expect(added[0]?.status).toBe('completed');
      expect(Date.parse(added[0]?.created_at ?? '')).toBeGreaterThanOrEqual(
        Date.parse('2026-01-05T00:00:00Z'),
      );
    }
  });

  it('re-scores exactly one completed assessment with a regression and completes the running ones', () => {
    const regressions: string[] = [];
    const completed: string[] = [];
    for (const key of sim.projectKeys) {
      const old = before.get(key) as ProjectState;
      const now = after.get(key) as ProjectState;
      for (const a of old.summary.assessments) {
        const b = now.summary.assessments.find((x) => x.id === a.id) as AssessmentDetail;
        if (a.updated_at === b.updated_at) continue;
        expect(Date.parse(b.updated_at)).toBeGreaterThan(Date.parse(a.updated_at));
        expect(now.trials.get(a.id)).not.toBe(old.trials.get(a.id));
        if (a.status === 'running') {
          expect(b.status).toBe('completed');
          expect(b.overall_asr).not.toBeNull();
          expect(b.total_trials).toBeGreaterThan(a.total_trials);
          completed.push(a.id);
          continue;
        }
        expect(a.status).toBe('completed');
        expect(b.overall_asr ?? 0).toBeGreaterThan(a.overall_asr ?? 0);
        expect(critical(b)).toBeGreaterThan(critical(a));
        const newlyCritical = b.attack_runs.filter(
          (r) =>
            (r.best_score ?? 0) >= 0.9 && (a.attack_runs.find((o) => o.id === r.id)?.best_score ?? 1) < 0.9,
        );
        expect(newlyCritical).toHaveLength(1);
        regressions.push(a.id);
      }
    }
    expect(regressions).toHaveLength(1);
    expect(completed.length).toBeGreaterThanOrEqual(1);
  });

  it('leaves every other assessment byte-identical (trial list, updated_at, detail)', () => {
    let untouched = 0;
    for (const key of sim.projectKeys) {
      const old = before.get(key) as ProjectState;
      const now = after.get(key) as ProjectState;
      for (const a of old.summary.assessments) {
        const b = now.summary.assessments.find((x) => x.id === a.id) as AssessmentDetail;
        if (a.updated_at !== b.updated_at) continue;
        untouched++;
        expect(now.trials.get(a.id)).toBe(old.trials.get(a.id));
        expect(JSON.stringify(b)).toBe(JSON.stringify(a));
      }
    }
    expect(untouched).toBeGreaterThan(10);
  });

  it('moves evaluation jobs on and adds new ones', () => {
    expect(jobsAfter.length).toBeGreaterThan(jobsBefore.length);
    const oldById = new Map(jobsBefore.map((j) => [j.id, j]));
    const changed = jobsAfter.filter(
      (j) => oldById.has(j.id) && oldById.get(j.id)?.job_status !== j.job_status,
    );
    expect(changed.length).toBeGreaterThan(0);
    for (const job of changed) expect(['queued', 'running']).toContain(oldById.get(job.id)?.job_status);
    const unchanged = jobsAfter.filter(
      (j) => oldById.has(j.id) && oldById.get(j.id)?.job_status === j.job_status,
    );
    for (const job of unchanged) expect(JSON.stringify(job)).toBe(JSON.stringify(oldById.get(job.id)));
  });

  it('serves the same bytes whether the epoch came from the option or from setEpoch', async () => {
    const direct = await startSimulator({ seed: 9, epoch: 1, scale: { trialsPerAttack: 12 } });
    try {
      for (const key of sim.projectKeys) {
        expect((await call(direct, summaryPath(direct, key))).text).toBe(
          JSON.stringify(after.get(key)?.summary),
        );
      }
      sim.setEpoch(0);
      const key = sim.projectKeys[0] ?? '';
      expect((await call(sim, summaryPath(sim, key))).text).toBe(JSON.stringify(before.get(key)?.summary));
    } finally {
      await direct.close();
    }
  });

  it('refuses /_sim/epoch without the token or with a bad epoch', async () => {
    expect((await call(sim, '/_sim/epoch', { method: 'POST', body: { epoch: 1 }, token: null })).status).toBe(
      401,
    );
    expect((await call(sim, '/_sim/epoch', { method: 'POST', body: { epoch: -1 } })).status).toBe(422);
  });
});
