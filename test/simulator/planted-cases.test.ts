/**
 * The special cases the simulator plants on purpose, so downstream code is exercised against them:
 * running/pending assessments, an analytics warning over a garbage slice, legacy compliance entries,
 * adversarial-ML metrics and evasion findings, multimodal parts and tool calls, hostile text, unknown
 * future keys, truncation beyond the default trial limit, varied evaluation jobs; and the scale of
 * the large preset.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvaluationJob, ProjectSummary, TrialResult } from '../../src/api/schemas.js';
import { HOSTILE_20KB, HOSTILE_STRINGS } from '../../src/simulator/hostile.js';
import { HOSTILE_SLUG, startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { resolveOptions } from '../../src/simulator/options.js';
import { SimulatedService } from '../../src/simulator/service.js';
import { createTruth } from '../../src/simulator/truth.js';
import { call, evaluationsPath, getJson, summaryPath, trialsPath } from './helpers.js';

let sim: RunningSimulator;
const summaries = new Map<string, ProjectSummary>();
const allTrials: TrialResult[] = [];
beforeAll(async () => {
  sim = await startSimulator({ seed: 1, hostileSlug: true });
  for (const key of sim.projectKeys) {
    const summary = await getJson<ProjectSummary>(sim, summaryPath(sim, key));
    summaries.set(key, summary);
    for (const a of summary.assessments)
      allTrials.push(...(await getJson<TrialResult[]>(sim, trialsPath(sim, a.id, '?limit=5000'))));
  }
});
afterAll(() => sim.close());

const assessments = () => [...summaries.values()].flatMap((s) => s.assessments);

describe('planted assessments', () => {
  it('has pending and running assessments with their nullable fields null', () => {
    const pending = assessments().find((a) => a.status === 'pending');
    const running = assessments().find((a) => a.status === 'running');
    for (const a of [pending, running]) {
      expect(a).toMatchObject({
        overall_asr: null,
        completed_at: null,
        duration_s: null,
        compliance_matrix: null,
        top_findings: null,
      });
    }
    expect(pending).toMatchObject({ started_at: null, session_id: null, total_trials: 0 });
    expect(running?.attack_runs.some((r) => r.status === 'running')).toBe(true);
    expect(running?.attack_runs.some((r) => r.status === 'pending' && r.best_score === null)).toBe(true);
  });

  it('has an assessment whose analytics_warnings names a slice holding schema-valid garbage', () => {
    const warned = assessments().filter((a) => (a.analytics_warnings ?? []).length > 0);
    expect(warned.map((a) => a.analytics_warnings?.[0]?.field).sort()).toEqual([
      'asr_by_category',
      'asr_by_transform',
    ]);
    const byCategory = warned.find((a) => a.analytics_warnings?.[0]?.field === 'asr_by_category');
    const entries = Object.values(byCategory?.asr_by_category?.entries ?? {});
    expect(entries.every((e) => e.total_attacks === 0 && e.total_trials === 0)).toBe(true);
    expect(entries.some((e) => e.asr > 1)).toBe(true);
  });

  it('has an older assessment with legacy compliance entries (tested, asr, max_severity only)', () => {
    const legacy = assessments().filter((a) =>
      Object.values(a.compliance_matrix?.owasp_llm ?? {}).some((c) => !('attacks_used' in c)),
    );
    expect(legacy.length).toBeGreaterThan(0);
    for (const cell of Object.values(legacy[0]?.compliance_matrix?.atlas ?? {}))
      expect(Object.keys(cell).sort()).toEqual(['asr', 'max_severity', 'tested']);
  });

  it('has an adversarial-ML assessment with metrics and evasion findings', () => {
    const ml = assessments().find((a) => a.adversarial_ml_metrics);
    expect(ml?.attack_domains).toEqual(['adversarial_ml']);
    expect(ml?.finding_type_counts?.evasion).toBeGreaterThan(0);
    expect(Object.keys(ml?.adversarial_ml_metrics?.distance_by_norm ?? {}).length).toBeGreaterThan(0);
  });

  it('has a failed assessment with error findings', () => {
    const failed = assessments().find((a) => a.status === 'failed');
    expect(failed?.finding_type_counts?.error).toBeGreaterThan(0);
  });
});

describe('planted content', () => {
  it('trials carry image parts with media references and tool calls', () => {
    const refs = new Set(
      allTrials.flatMap((t) =>
        (t.candidate_parts ?? []).filter((p) => p.kind === 'image').map((p) => p.source?.ref),
      ),
    );
    expect([...refs].sort()).toEqual(['artifact', 'file_id', 'url']);
    expect(allTrials.some((t) => (t.tool_calls ?? []).length > 0)).toBe(true);
  });

  it('carries every hostile string and a 20 KB string in trials and summaries', () => {
    const text = allTrials.map((t) => `${t.candidate}\n${t.response}`).join('\n');
    for (const hostile of HOSTILE_STRINGS) expect(text).toContain(hostile);
    expect(allTrials.some((t) => t.response === HOSTILE_20KB)).toBe(true);
    const summaryText = JSON.stringify([...summaries.values()]);
    expect(summaryText).toContain(JSON.stringify(HOSTILE_20KB).slice(1, -1));
    expect(summaryText).toContain('<img src=x onerror=alert(1)>');
  });

  it('adds keys a future API version might send', async () => {
    const summary = summaries.get(sim.projectKeys[1] ?? '') as unknown as Record<string, unknown>;
    expect(summary.x_future_field).toBeDefined();
    expect(assessments().some((a) => 'x_future_field' in a)).toBe(true);
    expect(allTrials.some((t) => 'x_future_field' in t)).toBe(true);
    const page = await getJson<{ items: Record<string, unknown>[] }>(
      sim,
      evaluationsPath(sim, '?page_size=100&page=3'),
    );
    expect(page.items.some((j) => 'x_future_field' in j)).toBe(true);
  });

  it('serves the hostile-slug project when asked', async () => {
    expect(sim.projectKeys).toContain(HOSTILE_SLUG);
    const summary = await getJson<ProjectSummary>(sim, summaryPath(sim, HOSTILE_SLUG));
    expect(summary.project_key).toBe('../../etc');
  });
});

describe('trial list parameters', () => {
  it('truncates at the default limit of 500 and filters jailbreaks', async () => {
    const big = assessments().find((a) => a.total_trials > 500);
    expect(big).toBeDefined();
    const id = big?.id ?? '';
    expect(sim.truth.trialCount(id)).toBe(big?.total_trials);
    expect(await getJson<unknown[]>(sim, trialsPath(sim, id))).toHaveLength(500);
    expect(await getJson<unknown[]>(sim, trialsPath(sim, id, '?limit=7'))).toHaveLength(7);
    const jailbreaks = await getJson<TrialResult[]>(
      sim,
      trialsPath(sim, id, '?jailbreaks_only=true&limit=5000'),
    );
    expect(jailbreaks.length).toBeGreaterThan(0);
    expect(jailbreaks.every((t) => t.is_jailbreak)).toBe(true);
  });
});

describe('evaluation jobs', () => {
  it('spans 3+ pages across every project with varied states, skipped members and legacy task set refs', async () => {
    const jobs: EvaluationJob[] = [];
    let total = 0;
    for (let page = 1; page <= 10; page++) {
      const list = await getJson<{ items: EvaluationJob[]; total: number }>(
        sim,
        evaluationsPath(sim, `?page=${page}&page_size=100`),
      );
      total = list.total;
      jobs.push(...list.items);
      if (jobs.length >= total) break;
    }
    expect(total).toBeGreaterThanOrEqual(250);
    expect(new Set(jobs.map((j) => j.id)).size).toBe(total);
    expect(new Set(jobs.map((j) => j.project_id))).toEqual(new Set(sim.truth.projects().map((p) => p.id)));
    expect(new Set(jobs.map((j) => j.job_status)).size).toBeGreaterThanOrEqual(5);
    expect(new Set(jobs.map((j) => j.kind)).size).toBeGreaterThanOrEqual(3);
    expect(jobs.some((j) => (j.skipped_members ?? []).length > 0)).toBe(true);
    expect(jobs.some((j) => j.task_set_ref && j.task_set_ref.org_key === null)).toBe(true);
    expect(jobs.some((j) => j.task_set_ref?.org_key === `${sim.org}/${j.task_set_ref?.name}`)).toBe(true);
    expect(jobs.some((j) => j.created_by_user)).toBe(true);
    for (const job of jobs.filter((j) => j.job_status === 'completed')) {
      expect(job.analytics?.pass_rate).toBeCloseTo((job.item_counts.passed ?? 0) / job.dataset_size, 4);
    }
    const sorted = [...jobs].sort((a, b) => b.queued_at.localeCompare(a.queued_at));
    expect(jobs.map((j) => j.id)).toEqual(sorted.map((j) => j.id));
  });

  it('filters by project_id and status', async () => {
    const projectId = sim.truth.projects()[1]?.id ?? '';
    const byProject = await getJson<{ items: EvaluationJob[]; total: number }>(
      sim,
      evaluationsPath(sim, `?project_id=${projectId}&page_size=100`),
    );
    expect(byProject.total).toBeGreaterThan(0);
    expect(byProject.items.every((j) => j.project_id === projectId)).toBe(true);
    const failed = await getJson<{ items: EvaluationJob[] }>(
      sim,
      evaluationsPath(sim, '?status=failed&page_size=100'),
    );
    expect(failed.items.length).toBeGreaterThan(0);
    expect(failed.items.every((j) => j.job_status === 'failed')).toBe(true);
    expect((await call(sim, evaluationsPath(sim, '?page=99'))).text).toContain('"items":[]');
  });
});

describe('large preset', () => {
  it('holds at least 1,000,000 trial spans with at most 5000 per assessment', () => {
    const service = new SimulatedService(resolveOptions({ preset: 'large' }));
    const truth = createTruth(service);
    expect(truth.totalTrialCount()).toBeGreaterThanOrEqual(1_000_000);
    for (const project of truth.projects()) {
      for (const id of truth.assessmentIds(project.key))
        expect(truth.trialCount(id)).toBeLessThanOrEqual(5000);
    }
  });
});
