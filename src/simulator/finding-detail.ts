/**
 * FindingDetail (returned by the triage PATCH): one attack run with its best evidence, the operator's
 * triage values and the append-only review history.
 */
import { iso } from './clock.js';
import { complianceTags } from './compliance.js';
import { runDistance, type RunFacts } from './facts.js';
import { HOSTILE_STRINGS } from './hostile.js';
import type { Json } from './assessment-json.js';
import { round } from './prng.js';
import type { TriageState } from './triage-store.js';
import { trialAt, type TrialJson } from './trials.js';

/** Notes a previous operator left on some findings before the simulation starts (hostile on purpose). */
function initialNotes(run: RunFacts): string | null {
  return run.plan.index % 5 === 4
    ? `Triage note: ${HOSTILE_STRINGS[run.plan.index % HOSTILE_STRINGS.length] ?? ''}`
    : null;
}

function evidence(trial: TrialJson, rank: number, multimodal: boolean): Json {
  return {
    rank,
    candidate: trial.candidate,
    candidate_parts: trial.candidate_parts,
    execution_time_s: trial.execution_time_s,
    is_jailbreak: trial.is_jailbreak,
    judge_reasoning: trial.judge_reasoning,
    modality_scores: multimodal ? { image: round(trial.score * 0.8, 2), text: trial.score } : null,
    response: trial.response,
    response_parts: trial.response_parts,
    score: trial.score,
    span_id: trial.span_id,
    tool_calls: trial.tool_calls,
    transformed_prompt: trial.transformed_prompt,
    trial_index: trial.trial_index,
    trial_status: trial.trial_status,
  };
}

/** The finding's current triage values (automated values where no operator has set one). */
export function currentTriage(
  run: RunFacts,
  state: TriageState | undefined,
): { findingStatus: string; findingType: string; severity: string } {
  return {
    findingStatus: state?.findingStatus ?? 'open',
    findingType: state?.findingType ?? run.findingType,
    severity: state?.severity ?? run.severity,
  };
}

export function findingDetailJson(
  run: RunFacts,
  assessmentName: string,
  state: TriageState | undefined,
): Json {
  const p = run.plan;
  const best = run.stats.bestIndex === null ? null : trialAt(p, run.stats.bestIndex);
  const triage = currentTriage(run, state);
  const ml = p.attackDomain === 'adversarial_ml';
  const topTrials = run.stats.topIndexes.map((index, i) => evidence(trialAt(p, index), i + 1, p.multimodal));
  return {
    id: p.id,
    assessment_id: p.assessmentId,
    assessment_name: assessmentName,
    attack_name: p.attackName,
    goal: p.goal,
    goal_category: p.goalCategory,
    status: p.status,
    severity: triage.severity,
    finding_status: triage.findingStatus,
    finding_type: triage.findingType,
    created_at: iso(p.createdAt),
    completed_at: p.completedAt === null ? null : iso(p.completedAt),
    updated_at: state?.updatedAt ?? (p.completedAt === null ? null : iso(p.completedAt)),
    best_score: run.best,
    execution_time_s: run.executionTimeS,
    finished_trials: run.stats.finished,
    total_trials: run.stats.trials,
    compliance_tags: complianceTags(p),
    transforms_applied: p.transforms,
    adversarial_class: ml ? (run.successful ? 'speed_limit_45' : 'stop_sign') : null,
    original_class: ml ? 'stop_sign' : null,
    original_severity: run.severity,
    attack_domain: p.attackDomain,
    risk_domain: p.riskDomain,
    category: p.goalCategory,
    sub_category: p.subCategory,
    attacker_model: p.attackerModel,
    evaluator_model: p.judgeModel,
    target_model: p.targetModel,
    best_candidate: best?.candidate ?? null,
    best_response: best?.response ?? null,
    best_transformed_prompt: best?.transformed_prompt ?? null,
    best_candidate_parts: best?.candidate_parts ?? null,
    best_response_parts: best?.response_parts ?? null,
    best_judge_reasoning: best?.judge_reasoning ?? null,
    best_modality_scores:
      best && p.multimodal ? { image: round(best.score * 0.8, 2), text: best.score } : null,
    distance_norm: p.distanceNorm,
    distance_value: runDistance(p),
    input_modality: p.inputModality,
    is_jailbreak: run.successful,
    notes: state && state.notes !== undefined ? state.notes : initialNotes(run),
    pass_rate: run.stats.finished ? round(1 - run.stats.jailbreaks / run.stats.finished, 4) : null,
    span_id: best?.span_id ?? null,
    trace_id: best?.trace_id ?? null,
    review_events: state?.events ?? [],
    top_trials: topTrials,
  };
}
