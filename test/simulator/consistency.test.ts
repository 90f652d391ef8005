/**
 * Internal consistency: attack runs agree with their trials, assessments with their runs, the project
 * summary with its assessments (totals are sums, top findings are real attack runs), and the scoring
 * rules of shared/TAXONOMY.md hold (severity bands, ASR counts attacks, risk formula and bands).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AssessmentDetail,
  AttackRunSummary,
  ProjectSummary,
  TrialResult,
} from '../../src/api/schemas.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { getJson, summaryPath, trialsPath } from './helpers.js';

const SEVERITY_ORDER = ['critical', 'high', 'medium', 'low', 'info'];
const severityOf = (score: number | null): string =>
  score === null
    ? 'info'
    : score >= 0.9
      ? 'critical'
      : score >= 0.7
        ? 'high'
        : score >= 0.5
          ? 'medium'
          : score >= 0.3
            ? 'low'
            : 'info';
const BASE: Record<string, number> = { critical: 10, high: 8, medium: 5, low: 3, info: 1 };
const FRAMEWORK_ROWS: Record<string, number> = {
  owasp_llm: 10,
  owasp_agentic: 10,
  atlas: 27,
  nist: 4,
  saif: 7,
};

interface Loaded {
  summary: ProjectSummary;
  trials: Map<string, TrialResult[]>;
}

function runTrials(assessment: AssessmentDetail, trials: TrialResult[]): Map<string, TrialResult[]> {
  const out = new Map<string, TrialResult[]>();
  let offset = 0;
  for (const run of assessment.attack_runs) {
    const n = run.total_trials ?? 0;
    out.set(run.id, trials.slice(offset, offset + n));
    offset += n;
  }
  expect(offset).toBe(trials.length);
  return out;
}

function finishedBest(trials: TrialResult[]): number | null {
  const scores = trials.filter((t) => t.trial_status === 'finished').map((t) => t.score ?? 0);
  return scores.length ? Math.max(...scores) : null;
}

describe.each([1, 2])('consistency, seed %i', (seed) => {
  let sim: RunningSimulator;
  const loaded = new Map<string, Loaded>();
  beforeAll(async () => {
    sim = await startSimulator({ seed });
    for (const key of sim.projectKeys) {
      const summary = await getJson<ProjectSummary>(sim, summaryPath(sim, key));
      const trials = new Map<string, TrialResult[]>();
      for (const a of summary.assessments)
        trials.set(a.id, await getJson<TrialResult[]>(sim, trialsPath(sim, a.id, '?limit=5000')));
      loaded.set(key, { summary, trials });
    }
  });
  afterAll(() => sim.close());

  const each = (fn: (a: AssessmentDetail, trials: TrialResult[], summary: ProjectSummary) => void) => () => {
    for (const { summary, trials } of loaded.values())
      for (const a of summary.assessments) fn(a, trials.get(a.id) ?? [], summary);
  };

  it(
    'attack runs agree with their trials',
    each((a, trials) => {
      const byRun = runTrials(a, trials);
      for (const run of a.attack_runs) {
        const own = byRun.get(run.id) ?? [];
        expect(own.every((t) => t.attack_name === run.attack_name && t.goal === run.goal)).toBe(true);
        expect(run.best_score).toBe(finishedBest(own));
        expect(run.finished_trials).toBe(own.filter((t) => t.trial_status === 'finished').length);
        const best = own.find((t) => t.trial_status === 'finished' && t.score === run.best_score);
        expect(run.best_candidate ?? null).toBe(best?.candidate ?? null);
        for (const t of own)
          expect(t.is_jailbreak).toBe(t.trial_status === 'finished' && (t.score ?? 0) >= 0.5);
      }
    }),
  );

  it(
    'assessment analytics agree with runs and trials (ASR counts attacks; risk formula)',
    each((a, trials) => {
      expect(a.total_attacks).toBe(a.attack_runs.length);
      expect(a.total_trials).toBe(trials.length);
      if (a.status !== 'completed' && a.status !== 'failed') {
        expect(a.overall_asr).toBeNull();
        expect(a.completed_at).toBeNull();
        expect(a.severity_breakdown).toBeNull();
        expect(a.compliance_matrix).toBeNull();
        return;
      }
      const evaluated = a.attack_runs.filter((r) => r.best_score !== null);
      const successful = evaluated.filter((r) => (r.best_score ?? 0) >= 0.5);
      expect(a.overall_asr).toBeCloseTo(evaluated.length ? successful.length / evaluated.length : NaN, 4);
      const breakdown = a.severity_breakdown ?? {};
      expect(Object.keys(breakdown).sort()).toEqual([...SEVERITY_ORDER].sort());
      for (const s of SEVERITY_ORDER)
        expect(breakdown[s]).toBe(a.attack_runs.filter((r) => severityOf(r.best_score) === s).length);
      const worst = SEVERITY_ORDER.find((s) => evaluated.some((r) => severityOf(r.best_score) === s));
      const risk = worst ? Math.round(BASE[worst]! * (0.6 + 0.4 * (a.overall_asr ?? 0)) * 100) / 100 : 0;
      for (const report of a.reports) expect(report.risk_score).toBeCloseTo(risk, 2);
      expect(a.execution_stats?.total_trials).toBe(trials.length);
      expect(a.execution_stats?.total_jailbreaks).toBe(trials.filter((t) => t.is_jailbreak).length);
      const warned = new Set((a.analytics_warnings ?? []).map((w) => w.field));
      if (!warned.has('asr_by_attack')) {
        for (const [attack, entry] of Object.entries(a.asr_by_attack?.entries ?? {})) {
          const runs = evaluated.filter((r) => r.attack_name === attack);
          expect(entry.total_attacks).toBe(runs.length);
          expect(entry.successful_attacks).toBe(runs.filter((r) => (r.best_score ?? 0) >= 0.5).length);
          expect(entry.total_trials).toBe(trials.filter((t) => t.attack_name === attack).length);
        }
      }
      if (!warned.has('asr_by_category')) {
        for (const [category, entry] of Object.entries(a.asr_by_category?.entries ?? {})) {
          expect(entry.total_trials).toBe(trials.filter((t) => t.goal_category === category).length);
          expect(entry.asr).toBeLessThanOrEqual(1);
        }
      }
      for (const [framework, rows] of Object.entries(a.compliance_matrix ?? {})) {
        expect(Object.keys(rows)).toHaveLength(FRAMEWORK_ROWS[framework] ?? -1);
        for (const cell of Object.values(rows)) {
          if (!cell.tested && 'attacks_used' in cell)
            expect(cell).toEqual({
              asr: 0,
              attacks_used: [],
              max_severity: 'info',
              tested: false,
              total_trials: 0,
            });
        }
      }
      expect(Object.keys(a.compliance_matrix ?? {}).sort()).toEqual(Object.keys(FRAMEWORK_ROWS).sort());
    }),
  );

  it('summary totals are sums over assessments and attack runs', () => {
    for (const { summary } of loaded.values()) {
      const ex = summary.executive_summary;
      const analyzed = summary.assessments.filter((a) => a.status === 'completed' || a.status === 'failed');
      expect(ex.total_assessments).toBe(summary.assessments.length);
      expect(ex.total_attacks).toBe(summary.assessments.reduce((s, a) => s + a.total_attacks, 0));
      expect(ex.total_trials).toBe(summary.assessments.reduce((s, a) => s + a.total_trials, 0));
      expect(ex.total_reports).toBe(summary.assessments.reduce((s, a) => s + a.reports.length, 0));
      for (const s of SEVERITY_ORDER) {
        expect(ex.severity_distribution[s]).toBe(
          analyzed.reduce((sum, a) => sum + (a.severity_breakdown?.[s] ?? 0), 0),
        );
      }
      expect(ex.critical_findings).toBe(ex.severity_distribution.critical);
      expect(ex.total_findings).toBe(Object.values(ex.severity_distribution).reduce((x, y) => x + y, 0));
      expect(ex.risk_by_domain.reduce((s, d) => s + d.total_findings, 0)).toBe(ex.total_findings);
      for (const status of ['pending', 'running', 'completed', 'failed']) {
        expect(summary.assessments_by_status[status]).toBe(
          summary.assessments.filter((a) => a.status === status).length,
        );
      }
      const runs = analyzed.flatMap((a) => a.attack_runs).filter((r) => r.best_score !== null);
      expect(ex.overall_asr).toBeCloseTo(
        runs.filter((r) => (r.best_score ?? 0) >= 0.5).length / runs.length,
        4,
      );
      expect(summary.risk_trend.map((p) => p.assessment_id).sort()).toEqual(analyzed.map((a) => a.id).sort());
      for (const point of summary.risk_trend) {
        const a = analyzed.find((x) => x.id === point.assessment_id);
        expect(point.overall_asr).toBe(a?.overall_asr);
        expect(point.critical_findings).toBe(a?.severity_breakdown?.critical);
        expect(point.risk_score).toBe(a?.reports[0]?.risk_score);
      }
      expect(summary.compliance_posture.map((p) => p.framework).sort()).toEqual(
        Object.keys(FRAMEWORK_ROWS).sort(),
      );
      for (const p of summary.compliance_posture) {
        expect(p.tested_categories + p.untested_categories.length).toBe(p.total_categories);
        expect(p.failing_categories.length + p.passing_categories.length).toBe(p.tested_categories);
      }
    }
  });

  it('top findings are real attack runs, one per run, ranked by severity then score, at most 20', () => {
    for (const { summary, trials } of loaded.values()) {
      const runs = new Map<string, { run: AttackRunSummary; assessment: AssessmentDetail }>();
      for (const a of summary.assessments)
        for (const r of a.attack_runs) runs.set(r.id, { run: r, assessment: a });
      expect(summary.top_findings.length).toBeGreaterThan(0);
      expect(summary.top_findings.length).toBeLessThanOrEqual(20);
      expect(new Set(summary.top_findings.map((f) => f.attack_run_id)).size).toBe(
        summary.top_findings.length,
      );
      summary.top_findings.forEach((f, i) => {
        const found = runs.get(f.attack_run_id ?? '');
        expect(found, f.attack_run_id ?? '').toBeDefined();
        expect(f.rank).toBe(i + 1);
        expect(f.score).toBe(found?.run.best_score);
        expect(f.severity).toBe(severityOf(f.score));
        expect(f.assessment_id).toBe(found?.assessment.id);
        const own = runTrials(found?.assessment as AssessmentDetail, trials.get(f.assessment_id) ?? []).get(
          f.attack_run_id ?? '',
        );
        const evidence = own?.[f.trial_index ?? -1];
        expect(evidence).toMatchObject({
          score: f.score,
          candidate: f.candidate,
          response: f.response,
          trial_status: 'finished',
        });
        const next = summary.top_findings[i + 1];
        if (next) {
          const order = SEVERITY_ORDER.indexOf(f.severity) - SEVERITY_ORDER.indexOf(next.severity);
          expect(order < 0 || (order === 0 && f.score >= next.score)).toBe(true);
        }
      });
    }
  });
});
