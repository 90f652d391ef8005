/**
 * ProjectAirtSummaryResponse (operation 1): every project-level section derived from the facts of the
 * project's assessments, so totals are sums over assessments and attack runs by construction.
 *
 * Conventions: analytics (findings, ASR, risk, compliance, effectiveness, goals, trend) cover the
 * analyzed assessments (completed or failed); totals of assessments, attacks and trials cover all.
 * Every attack run is a finding; severities and ASR follow shared/TAXONOMY.md.
 */
import { iso } from './clock.js';
import { complianceTags, compliancePosture, type ComplianceMatrix } from './compliance.js';
import { assessmentJson, bestTrial, type Json } from './assessment-json.js';
import { compareFindings, type AssessmentFacts, type RunFacts } from './facts.js';
import type { ProjectPlan } from './plan-types.js';
import { round } from './prng.js';
import {
  emptySeverityBreakdown,
  riskLevel,
  riskScore,
  severityRank,
  worstSeverity,
  SEVERITIES,
} from './scoring.js';

const uniqueSorted = (values: Iterable<string>): string[] => [...new Set(values)].sort();
const mean = (xs: number[], decimals = 4): number | null =>
  xs.length ? round(xs.reduce((a, b) => a + b, 0) / xs.length, decimals) : null;
const successRate = (runs: RunFacts[]): number | null => {
  const evaluated = runs.filter((r) => r.evaluated);
  return evaluated.length ? round(evaluated.filter((r) => r.successful).length / evaluated.length, 4) : null;
};

function groupBy<T>(items: readonly T[], keysOf: (item: T) => string[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    for (const key of keysOf(item)) {
      const list = groups.get(key);
      if (list) list.push(item);
      else groups.set(key, [item]);
    }
  }
  return new Map([...groups.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

/** Picks the key with the highest value; ties go to the first key in sorted order. */
function argmax(entries: [string, number | null][]): [string, number] | null {
  let best: [string, number] | null = null;
  for (const [key, value] of entries)
    if (value !== null && (best === null || value > best[1])) best = [key, value];
  return best;
}

export function projectSummaryJson(
  project: ProjectPlan,
  all: AssessmentFacts[],
  seed: number,
  withFutureField: boolean,
): Json {
  const newestFirst = [...all].sort(
    (a, b) => b.plan.createdAt - a.plan.createdAt || a.plan.id.localeCompare(b.plan.id),
  );
  const assessmentJsons = newestFirst.map((f) => assessmentJson(f, seed));
  const analyzed = all.filter((f) => f.analyzed);
  const analyzedRuns = analyzed.flatMap((f) => f.runs);
  const evaluated = analyzedRuns.filter((r) => r.evaluated);
  const assessmentOf = new Map<string, AssessmentFacts>(all.map((f) => [f.plan.id, f]));

  const byStatus: Record<string, number> = { pending: 0, running: 0, completed: 0, failed: 0 };
  for (const f of all) byStatus[f.plan.status] = (byStatus[f.plan.status] ?? 0) + 1;

  const attackEffectiveness = [...groupBy(evaluated, (r) => [r.plan.attackName]).entries()].map(
    ([attack, runs]) => {
      const bests = runs.map((r) => r.best ?? 0);
      return {
        attack_name: attack,
        assessments_used_in: uniqueSorted(runs.map((r) => r.plan.assessmentId)),
        avg_best_score: mean(bests) ?? 0,
        times_used: runs.length,
        total_trials: runs.reduce((s, r) => s + r.stats.trials, 0),
        total_finished_trials: runs.reduce((s, r) => s + r.stats.finished, 0),
        goal_categories_targeted: uniqueSorted(runs.map((r) => r.plan.goalCategory)),
        avg_asr: mean(runs.flatMap((r) => (r.asr === null ? [] : [r.asr]))),
        avg_execution_time_s: mean(
          runs.flatMap((r) => (r.executionTimeS === null ? [] : [r.executionTimeS])),
          3,
        ),
        max_best_score: Math.max(...bests),
        min_best_score: Math.min(...bests),
        success_rate: successRate(runs),
      };
    },
  );

  const matrices = assessmentJsons
    .map((j) => j.compliance_matrix as ComplianceMatrix | null)
    .filter((m): m is ComplianceMatrix => m !== null && m !== undefined);
  const posture = analyzed.length ? compliancePosture(matrices) : [];

  const overallAsr = successRate(analyzedRuns);
  const worst = worstSeverity(evaluated.map((r) => r.severity));
  const overallRisk = analyzed.length ? riskScore(worst, overallAsr) : null;
  const severityDistribution = emptySeverityBreakdown();
  for (const f of analyzed)
    for (const s of SEVERITIES) severityDistribution[s] += f.severityBreakdown?.[s] ?? 0;
  const findingTypes: Record<string, number> = {};
  for (const r of analyzedRuns) findingTypes[r.findingType] = (findingTypes[r.findingType] ?? 0) + 1;

  const riskByDomain = [...groupBy(analyzedRuns, (r) => [r.plan.riskDomain]).entries()].map(
    ([domain, runs]) => {
      const scored = runs.filter((r) => r.evaluated).map((r) => r.best ?? 0);
      return {
        domain,
        categories: uniqueSorted(runs.map((r) => r.plan.goalCategory)),
        assessments_affected: uniqueSorted(runs.filter((r) => r.successful).map((r) => r.plan.assessmentId)),
        critical_findings: runs.filter((r) => r.severity === 'critical').length,
        high_findings: runs.filter((r) => r.severity === 'high').length,
        medium_findings: runs.filter((r) => r.severity === 'medium').length,
        total_findings: runs.length,
        avg_asr: successRate(runs),
        max_score: scored.length ? Math.max(...scored) : null,
      };
    },
  );

  const byAttacker = [...groupBy(evaluated, (r) => [r.plan.attackerModel]).entries()].map(
    ([m, runs]) => [m, successRate(runs)] as [string, number | null],
  );
  const byJudge = [...groupBy(evaluated, (r) => [r.plan.judgeModel]).entries()].map(
    ([m, runs]) => [m, runs.filter((r) => r.successful).length] as [string, number],
  );
  const byCategory = [...groupBy(evaluated, (r) => [r.plan.goalCategory]).entries()].map(
    ([c, runs]) => [c, successRate(runs)] as [string, number | null],
  );
  const bestAttacker = argmax(byAttacker);
  const bestJudge = argmax(byJudge);
  const mostEffective = argmax(attackEffectiveness.map((e) => [e.attack_name, e.success_rate]));
  const worstCategory = argmax(byCategory);
  const worstCoverage = posture.reduce<(typeof posture)[number] | null>(
    (w, p) => (w === null || p.coverage_pct < w.coverage_pct ? p : w),
    null,
  );
  const created = all.map((f) => f.plan.createdAt);

  const executiveSummary = {
    all_attacker_models: uniqueSorted(all.map((f) => f.plan.attackerModel)),
    all_judge_models: uniqueSorted(all.map((f) => f.plan.judgeModel)),
    all_target_models: uniqueSorted(all.map((f) => f.plan.targetModel)),
    avg_compliance_coverage_pct: mean(
      posture.map((p) => p.coverage_pct),
      1,
    ),
    best_attacker_model: bestAttacker?.[0] ?? null,
    best_attacker_model_asr: bestAttacker?.[1] ?? null,
    best_judge_model: bestJudge?.[0] ?? null,
    best_judge_model_findings: bestJudge?.[1] ?? null,
    compliance_frameworks_tested: posture.filter((p) => p.tested_categories > 0).map((p) => p.framework),
    critical_findings: severityDistribution.critical,
    high_findings: severityDistribution.high,
    medium_findings: severityDistribution.medium,
    low_findings: severityDistribution.low,
    finding_type_distribution: Object.fromEntries(
      Object.entries(findingTypes).sort(([a], [b]) => a.localeCompare(b)),
    ),
    first_assessment_date: created.length ? iso(Math.min(...created)) : null,
    last_assessment_date: created.length ? iso(Math.max(...created)) : null,
    most_effective_attack: mostEffective?.[0] ?? null,
    most_effective_attack_asr: mostEffective?.[1] ?? null,
    overall_asr: overallAsr,
    overall_risk_level: riskLevel(overallRisk ?? 0),
    overall_risk_score: overallRisk,
    risk_by_domain: riskByDomain,
    severity_distribution: severityDistribution,
    total_assessments: all.length,
    total_attacks: all.reduce((s, f) => s + f.runs.length, 0),
    total_findings: SEVERITIES.reduce((s, k) => s + severityDistribution[k], 0),
    total_reports: assessmentJsons.reduce((s, j) => s + (j.reports as unknown[]).length, 0),
    total_trials: all.reduce((s, f) => s + f.totalTrials, 0),
    total_execution_time_s: round(
      all.reduce((s, f) => s + f.runs.reduce((t, r) => t + r.stats.totalExecMs, 0), 0) / 1000,
      3,
    ),
    total_unique_transforms: uniqueSorted(all.flatMap((f) => f.runs.flatMap((r) => r.plan.transforms)))
      .length,
    worst_category: worstCategory?.[0] ?? null,
    worst_category_asr: worstCategory?.[1] ?? null,
    worst_compliance_coverage_pct: worstCoverage?.coverage_pct ?? null,
    worst_compliance_framework: worstCoverage?.framework ?? null,
  };

  const goals = [...groupBy(evaluated, (r) => [`${r.plan.goalCategory}\u0000${r.plan.goal}`]).values()]
    .map((runs) => {
      const first = runs[0] as RunFacts;
      const bests = runs.map((r) => r.best ?? 0);
      return {
        goal: first.plan.goal,
        goal_category: first.plan.goalCategory,
        assessments: uniqueSorted(runs.map((r) => r.plan.assessmentId)),
        attack_names_used: uniqueSorted(runs.map((r) => r.plan.attackName)),
        best_score: Math.max(...bests),
        total_trials: runs.reduce((s, r) => s + r.stats.trials, 0),
        asr: successRate(runs),
        avg_score: mean(bests),
        risk_domain: first.plan.riskDomain,
        transforms_used: uniqueSorted(runs.flatMap((r) => r.plan.transforms)),
      };
    })
    .sort(
      (a, b) =>
        b.best_score - a.best_score ||
        a.goal_category.localeCompare(b.goal_category) ||
        a.goal.localeCompare(b.goal),
    );

  const riskTrend = [...analyzed]
    .sort((a, b) => a.plan.createdAt - b.plan.createdAt || a.plan.id.localeCompare(b.plan.id))
    .map((f) => ({
      assessment_id: f.plan.id,
      assessment_name: f.plan.name,
      date: iso(f.plan.completedAt ?? f.plan.createdAt),
      overall_asr: f.overallAsr,
      risk_level: f.riskLevel ?? 'low',
      risk_score: f.riskScore ?? 0,
      status: f.plan.status,
      total_attacks: f.runs.length,
      critical_findings: f.severityBreakdown?.critical ?? 0,
      total_findings: f.runs.length,
      severity_breakdown: f.severityBreakdown ?? emptySeverityBreakdown(),
    }));

  const topFindings = [...evaluated]
    .sort((a, b) => compareFindings(a, b, severityRank))
    .slice(0, 20)
    .map((run, i) => {
      const t = bestTrial(run);
      return {
        assessment_id: run.plan.assessmentId,
        assessment_name: assessmentOf.get(run.plan.assessmentId)?.plan.name ?? run.plan.assessmentName,
        attack_name: run.plan.attackName,
        candidate: t?.candidate ?? '',
        goal: run.plan.goal,
        goal_category: run.plan.goalCategory,
        rank: i + 1,
        response: t?.response ?? '',
        score: run.best ?? 0,
        severity: run.effectiveSeverity,
        attack_run_id: run.plan.id,
        attacker_model: run.plan.attackerModel,
        evaluator_model: run.plan.judgeModel,
        target_model: run.plan.targetModel,
        risk_domain: run.plan.riskDomain,
        compliance_tags: complianceTags(run.plan),
        execution_time_ms: t ? Math.round(t.execution_time_s * 1000) : 0,
        finding_type: run.effectiveFindingType,
        secondary_scores: {
          harmfulness: round((run.best ?? 0) * 0.9, 2),
          refusal: round(1 - (run.best ?? 0), 2),
        },
        transforms_applied: run.plan.transforms,
        trial_index: t?.trial_index ?? null,
        trial_number: (t?.trial_index ?? -1) + 1,
      };
    });

  const vulnerabilities = [...groupBy(evaluated, (r) => [r.plan.goalCategory]).entries()]
    .filter(([, runs]) => runs.some((r) => r.successful))
    .map(([category, runs]) => {
      const successful = runs.filter((r) => r.successful);
      return {
        category,
        count: successful.length,
        assessments_affected: uniqueSorted(successful.map((r) => r.plan.assessmentId)),
        total_assessments: new Set(runs.map((r) => r.plan.assessmentId)).size,
        total_attacks: runs.length,
        total_trials: runs.reduce((s, r) => s + r.stats.trials, 0),
        attack_names_used: uniqueSorted(runs.map((r) => r.plan.attackName)),
        transforms_used: uniqueSorted(runs.flatMap((r) => r.plan.transforms)),
        avg_asr: successRate(runs),
        max_score: Math.max(...runs.map((r) => r.best ?? 0)),
        max_severity: worstSeverity(runs.map((r) => r.severity)),
        risk_domain: (runs[0] as RunFacts).plan.riskDomain,
      };
    })
    .sort((a, b) => b.count - a.count || a.category.localeCompare(b.category));

  const baseline = successRate(evaluated.filter((r) => r.plan.transforms.length === 0));
  const transformEffectiveness = [...groupBy(evaluated, (r) => r.plan.transforms).entries()].map(
    ([transform, runs]) => {
      const bests = runs.map((r) => r.best ?? 0);
      const asr = successRate(runs);
      return {
        transform,
        assessments_used_in: uniqueSorted(runs.map((r) => r.plan.assessmentId)),
        avg_best_score: mean(bests) ?? 0,
        times_used: runs.length,
        attack_names_used_with: uniqueSorted(runs.map((r) => r.plan.attackName)),
        avg_asr: asr,
        lift: asr === null || baseline === null ? null : round(asr - baseline, 4),
        max_best_score: Math.max(...bests),
      };
    },
  );

  const lastActivity = all.length ? Math.max(...all.map((f) => f.plan.updatedAt)) : project.createdAt;
  const analyzedAsr = analyzed.flatMap((f) => (f.overallAsr === null ? [] : [f.overallAsr]));
  const summary: Json = {
    assessments: assessmentJsons,
    assessments_by_status: byStatus,
    attack_effectiveness: attackEffectiveness,
    avg_asr: mean(analyzedAsr),
    avg_risk_score: mean(
      analyzed.map((f) => f.riskScore ?? 0),
      2,
    ),
    compliance_posture: posture,
    executive_summary: executiveSummary,
    goals,
    risk_trend: riskTrend,
    top_findings: topFindings,
    top_vulnerabilities: vulnerabilities,
    transform_effectiveness: transformEffectiveness,
    last_activity_at: iso(lastActivity),
    project_created_at: iso(project.createdAt),
    project_id: project.id,
    project_key: project.key,
    project_name: project.name,
    project_updated_at: iso(lastActivity),
  };
  if (withFutureField)
    summary.x_future_field = {
      portfolio_rank: project.index + 1,
      note: 'field added by a newer API version',
    };
  return summary;
}
