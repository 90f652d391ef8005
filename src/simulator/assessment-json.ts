/**
 * AssessmentDetail (with its attack runs, reports and analytics slices) in the wire format, built from
 * the assessment's facts. Pending and running assessments have their analytics fields null. The
 * assessment named by `garbageField` carries that slice in an older, erroneous format and says so in
 * `analytics_warnings`.
 */
import { MINUTE, iso } from './clock.js';
import { complianceMatrix, complianceTags } from './compliance.js';
import { compareFindings, runDistance, type AssessmentFacts, type RunFacts } from './facts.js';
import { hexFor, uuidFor } from './ids.js';
import { round } from './prng.js';
import { severityRank } from './scoring.js';
import { trialAt, type TrialJson } from './trials.js';

export type Json = Record<string, unknown>;

/** The best trial of a run (the finding's evidence), or null when no trial finished. */
export function bestTrial(run: RunFacts): TrialJson | null {
  return run.stats.bestIndex === null ? null : trialAt(run.plan, run.stats.bestIndex);
}

function attackRunJson(run: RunFacts): Json {
  const p = run.plan;
  const best = bestTrial(run);
  const json: Json = {
    id: p.id,
    assessment_id: p.assessmentId,
    attack_name: p.attackName,
    goal: p.goal,
    goal_category: p.goalCategory,
    status: p.status,
    created_at: iso(p.createdAt),
    completed_at: p.completedAt === null ? null : iso(p.completedAt),
    best_score: run.best,
    execution_time_s: run.executionTimeS,
    transforms_applied: p.transforms,
    asr: run.asr,
    attacker_model: p.attackerModel,
    target_model: p.targetModel,
    best_candidate: best?.candidate ?? null,
    best_response: best?.response ?? null,
    compliance_tags: complianceTags(p),
    finished_trials: run.stats.finished,
    total_trials: run.stats.trials,
    risk_domain: p.riskDomain,
  };
  if (p.futureFields) json.x_future_field = { lineage: 'attack_run', v: 2 };
  return json;
}

interface Group {
  runs: RunFacts[];
}

function asrEntry(runs: RunFacts[]): Json {
  const evaluated = runs.filter((r) => r.evaluated);
  const bests = evaluated.map((r) => r.best ?? 0);
  const trials = runs.reduce((s, r) => s + r.stats.trials, 0);
  const execMs = runs.reduce((s, r) => s + r.stats.totalExecMs, 0);
  const successful = evaluated.filter((r) => r.successful).length;
  return {
    asr: evaluated.length ? round(successful / evaluated.length, 4) : 0,
    avg_best_score: bests.length ? round(bests.reduce((a, b) => a + b, 0) / bests.length, 4) : null,
    avg_execution_time_ms: trials ? round(execMs / trials, 1) : 0,
    best_score: bests.length ? Math.max(...bests) : 0,
    min_score: bests.length ? Math.min(...bests) : 0,
    successful_attacks: successful,
    total_attacks: evaluated.length,
    total_trials: trials,
  };
}

function breakdown(
  dimension: string,
  runs: RunFacts[],
  keysOf: (r: RunFacts) => string[],
  garbage: boolean,
): Json {
  const groups = new Map<string, Group>();
  for (const run of runs) {
    for (const key of keysOf(run)) {
      const group = groups.get(key) ?? { runs: [] };
      group.runs.push(run);
      groups.set(key, group);
    }
  }
  const entries: Record<string, Json> = {};
  for (const key of [...groups.keys()].sort()) {
    const entry = asrEntry(groups.get(key)?.runs ?? []);
    // The older format this slice is "stored" in: ASR in percent and the counts lost.
    entries[key] = garbage
      ? {
          ...entry,
          asr: round((entry.asr as number) * 100, 2),
          successful_attacks: 0,
          total_attacks: 0,
          total_trials: 0,
          avg_execution_time_ms: 0,
        }
      : entry;
  }
  return { dimension, entries };
}

function assessmentTopFindings(facts: AssessmentFacts): Json[] {
  const ranked = facts.runs
    .filter((r) => r.evaluated)
    .sort((a, b) => compareFindings(a, b, severityRank))
    .slice(0, 20);
  return ranked.map((run, i) => {
    const t = bestTrial(run);
    return {
      asr: run.asr ?? 0,
      attack_name: run.plan.attackName,
      attacker_model: run.plan.attackerModel,
      candidate: t?.candidate ?? '',
      category: run.plan.goalCategory,
      evaluator_model: run.plan.judgeModel,
      execution_time_s: t?.execution_time_s ?? 0,
      finding_type: run.effectiveFindingType,
      finished_trials: run.stats.finished,
      goal: run.plan.goal,
      goal_category: run.plan.goalCategory,
      is_jailbreak: run.successful,
      rank: i + 1,
      response: t?.response ?? '',
      score: run.best ?? 0,
      severity: run.effectiveSeverity,
      sub_category: run.plan.subCategory,
      target_model: run.plan.targetModel,
      tools_invoked: [...new Set((t?.tool_calls ?? []).map((c) => c.name))].sort(),
      total_trials: run.stats.trials,
      transformed_prompt: t?.transformed_prompt ?? null,
      transforms_applied: run.plan.transforms,
    };
  });
}

function recommendations(facts: AssessmentFacts): Json[] {
  const byCategory = new Map<string, RunFacts[]>();
  for (const run of facts.runs.filter((r) => r.successful)) {
    byCategory.set(run.plan.goalCategory, [...(byCategory.get(run.plan.goalCategory) ?? []), run]);
  }
  return [...byCategory.entries()]
    .map(([category, runs]) => {
      const high = runs.some((r) => r.severity === 'critical' || r.severity === 'high');
      return {
        category,
        priority: high ? 'high' : 'medium',
        title: `Harden the target against ${category.replace(/_/g, ' ')}`,
        detail: `${runs.length} attack(s) succeeded (${[...new Set(runs.map((r) => r.plan.attackName))].sort().join(', ')}). Add input filtering and re-test.`,
      };
    })
    .sort((a, b) =>
      a.priority === b.priority ? a.category.localeCompare(b.category) : a.priority === 'high' ? -1 : 1,
    );
}

function transformLift(facts: AssessmentFacts): Record<string, number> | null {
  const evaluated = facts.runs.filter((r) => r.evaluated);
  const baseline = evaluated.filter((r) => r.plan.transforms.length === 0);
  if (baseline.length === 0) return null;
  const rate = (runs: RunFacts[]): number => runs.filter((r) => r.successful).length / runs.length;
  const baseRate = rate(baseline);
  const lift: Record<string, number> = {};
  const transforms = [...new Set(evaluated.flatMap((r) => r.plan.transforms))].sort();
  for (const t of transforms)
    lift[t] = round(rate(evaluated.filter((r) => r.plan.transforms.includes(t))) - baseRate, 4);
  return lift;
}

function adversarialMetrics(facts: AssessmentFacts): Json {
  const runs = facts.runs.filter((r) => r.evaluated && r.plan.distanceNorm !== null);
  const distances = runs.map((r) => ({ run: r, d: runDistance(r.plan) ?? 0 }));
  const mean = (xs: number[]): number =>
    xs.length ? round(xs.reduce((a, b) => a + b, 0) / xs.length, 4) : 0;
  const byAttack: Record<string, number> = {};
  const byNorm: Record<string, number> = {};
  for (const attack of [...new Set(runs.map((r) => r.plan.attackName))].sort()) {
    byAttack[attack] = mean(distances.filter((x) => x.run.plan.attackName === attack).map((x) => x.d));
  }
  for (const norm of [...new Set(runs.map((r) => r.plan.distanceNorm ?? ''))].sort()) {
    byNorm[norm] = mean(distances.filter((x) => x.run.plan.distanceNorm === norm).map((x) => x.d));
  }
  return {
    avg_distance: mean(distances.map((x) => x.d)),
    distance_by_attack: byAttack,
    distance_by_norm: byNorm,
    evasion_rate: runs.length ? round(runs.filter((r) => r.successful).length / runs.length, 4) : 0,
    min_distance: distances.length ? Math.min(...distances.map((x) => x.d)) : 0,
  };
}

function executionStats(facts: AssessmentFacts): Json {
  const sum = (f: (r: RunFacts) => number): number => facts.runs.reduce((s, r) => s + f(r), 0);
  const trials = facts.totalTrials;
  const failed = sum((r) => r.stats.failed);
  const pruned = sum((r) => r.stats.pruned);
  const execMs = sum((r) => r.stats.totalExecMs);
  return {
    avg_trial_time_ms: trials ? round(execMs / trials, 1) : 0,
    failure_rate: trials ? round(failed / trials, 4) : 0,
    overall_asr: facts.overallAsr ?? 0,
    pruning_rate: trials ? round(pruned / trials, 4) : 0,
    successful_attacks: facts.successfulRuns,
    total_attacks: facts.evaluatedRuns,
    total_execution_time_s: round(execMs / 1000, 3),
    total_failed: failed,
    total_jailbreaks: sum((r) => r.stats.jailbreaks),
    total_pruned: pruned,
    total_trials: trials,
  };
}

export function assessmentJson(facts: AssessmentFacts, seed: number): Json {
  const a = facts.plan;
  const analyzed = facts.analyzed;
  const index = Number(/\d+$/.exec(a.key)?.[0] ?? 0);
  const withSandbox = index % 3 !== 0 && a.status !== 'pending';
  const reportTypes =
    a.status === 'completed'
      ? ['markdown', 'json', 'executive_summary']
      : a.status === 'failed'
        ? ['json']
        : [];
  const reports = reportTypes.map((type, i) => ({
    id: uuidFor(seed, `report/${a.key}/${type}`),
    assessment_id: a.id,
    created_at: iso((a.completedAt ?? a.createdAt) + (i + 1) * MINUTE),
    report_type: type,
    risk_score: facts.riskScore,
    risk_level: facts.riskLevel,
  }));
  const evaluatedRuns = facts.runs.filter((r) => r.evaluated);
  const complianceInputs = evaluatedRuns.map((r) => ({
    run: r.plan,
    successful: r.successful,
    severity: r.severity,
    trials: r.stats.trials,
  }));
  const findingTypeCounts: Record<string, number> = {};
  for (const r of facts.runs) findingTypeCounts[r.findingType] = (findingTypeCounts[r.findingType] ?? 0) + 1;
  const sortedTypeCounts = Object.fromEntries(
    Object.entries(findingTypeCounts).sort(([x], [y]) => x.localeCompare(y)),
  );

  const json: Json = {
    id: a.id,
    name: a.name,
    description: a.description,
    status: a.status,
    created_at: iso(a.createdAt),
    updated_at: iso(a.updatedAt),
    started_at: a.startedAt === null ? null : iso(a.startedAt),
    completed_at: a.completedAt === null ? null : iso(a.completedAt),
    duration_s:
      a.completedAt !== null && a.startedAt !== null ? round((a.completedAt - a.startedAt) / 1000, 3) : null,
    total_attacks: facts.runs.length,
    total_trials: facts.totalTrials,
    overall_asr: facts.overallAsr,
    attacker_model: a.attackerModel,
    judge_model: a.judgeModel,
    target_model: a.targetModel,
    attacker_config:
      index % 5 === 2 ? null : { model: a.attackerModel, temperature: 0.7, max_tokens: 1024, n_streams: 4 },
    target_config:
      index % 5 === 2
        ? null
        : {
            model: a.targetModel,
            endpoint_type: a.domain === 'adversarial_ml' ? 'classifier' : 'openai_chat',
            system_prompt_sha256: hexFor(seed, `sysprompt/${a.key}`, 8),
            rate_limit_rpm: 600,
          },
    attack_runs: facts.runs.map(attackRunJson),
    reports,
    attack_domains: [a.domain],
    finding_type_counts: analyzed ? sortedTypeCounts : null,
    severity_breakdown: facts.severityBreakdown,
    recommendations: analyzed ? recommendations(facts) : null,
    transform_lift: analyzed ? transformLift(facts) : null,
    runtime_id: withSandbox ? uuidFor(seed, `runtime/${a.key}`) : null,
    sandbox_id: withSandbox ? uuidFor(seed, `sandbox/${a.key}`) : null,
    sandbox_detail: withSandbox
      ? {
          provider: 'docker',
          provider_sandbox_id: `sbx-${hexFor(seed, `sbx/${a.key}`, 2)}`,
          state: a.status === 'running' ? 'running' : a.status === 'failed' ? 'error' : 'terminated',
          total_runtime_seconds:
            a.completedAt !== null && a.startedAt !== null
              ? round((a.completedAt - a.startedAt) / 1000, 1)
              : null,
        }
      : null,
    session_id: a.status === 'pending' ? null : uuidFor(seed, `session/${a.key}`),
    top_findings: analyzed ? assessmentTopFindings(facts) : null,
  };
  if (a.garbageField && analyzed) {
    json.analytics_warnings = [
      {
        field: a.garbageField,
        reason:
          'Stored analytics slice failed validation: legacy v1 format (ASR in percent, counts missing); treat as erroneous.',
      },
    ];
  }
  if (a.domain === 'adversarial_ml' && analyzed) json.adversarial_ml_metrics = adversarialMetrics(facts);
  json.asr_by_attack = analyzed
    ? breakdown('attack_name', facts.runs, (r) => [r.plan.attackName], a.garbageField === 'asr_by_attack')
    : null;
  json.asr_by_category = analyzed
    ? breakdown(
        'goal_category',
        facts.runs,
        (r) => [r.plan.goalCategory],
        a.garbageField === 'asr_by_category',
      )
    : null;
  json.asr_by_transform = analyzed
    ? breakdown('transform', facts.runs, (r) => r.plan.transforms, a.garbageField === 'asr_by_transform')
    : null;
  json.compliance_matrix = analyzed
    ? complianceMatrix(complianceInputs, a.roles.has('legacy_compliance'))
    : null;
  json.coverage_summary = analyzed
    ? {
        attack_names: [...new Set(facts.runs.map((r) => r.plan.attackName))].sort(),
        goal_categories: [...new Set(facts.runs.map((r) => r.plan.goalCategory))].sort(),
        sub_categories: [...new Set(facts.runs.map((r) => r.plan.subCategory))].sort(),
      }
    : null;
  json.execution_stats = analyzed ? executionStats(facts) : null;
  if (a.roles.has('future_fields')) json.x_future_field = { risk_model: 'v3-preview', weights: [0.6, 0.4] };
  return json;
}
