/**
 * The defaults the API spec states ("default 0", "default jailbreak", "default empty"), one table per
 * object kind, applied when a field is absent from the body. Absent then means the stated value, not
 * unknown: an evaluation job whose item_counts omit `queued` has 0 queued items.
 *
 * Only what the spec states is here. A field the spec marks nullable or leaves without a default stays
 * NULL when absent, and so do the fields of the older compliance format (`attacks_used`,
 * `total_trials`, absent from legacy ComplianceCategory entries): those are unknown, not 0. A whole
 * object that is absent (or excluded by an analytics warning) gets no defaults: there is no row.
 *
 * Keys are the body's field names after any rename (row-builder.ts `MapOptions.rename`); a key that is
 * not a column of the table is ignored by the row builder, never added to `extra`.
 */
import { ITEM_STATES } from './schema.js';

type Defaults = Readonly<Record<string, unknown>>;

/** AsrEntry: every count and score defaults to 0 (`avg_best_score` is nullable: no default). */
export const ASR_ENTRY_DEFAULTS: Defaults = {
  asr: 0,
  avg_execution_time_ms: 0,
  best_score: 0,
  min_score: 0,
  successful_attacks: 0,
  total_attacks: 0,
  total_trials: 0,
};

/** AsrBreakdown.dimension: default empty string. */
export const ASR_BREAKDOWN_DIMENSION_DEFAULT = '';

/** ComplianceCategory in the current format. */
export const COMPLIANCE_CATEGORY_DEFAULTS: Defaults = { asr: 0, max_severity: 'info', total_trials: 0 };

/**
 * ComplianceCategory in the older format (neither attacks_used nor total_trials present): only the
 * fields that format carries get their defaults; total_trials stays unknown.
 */
export const LEGACY_COMPLIANCE_CATEGORY_DEFAULTS: Defaults = { asr: 0, max_severity: 'info' };

/** AssessmentTopFinding: every field optional with the default shown (finding_type is nullable). */
export const ASSESSMENT_TOP_FINDING_DEFAULTS: Defaults = {
  asr: 0,
  attack_name: '',
  attacker_model: '',
  candidate: '',
  category: '',
  evaluator_model: '',
  execution_time_s: 0,
  finished_trials: 0,
  goal: '',
  goal_category: '',
  rank: 0,
  response: '',
  score: 0,
  severity: 'info',
  sub_category: '',
  target_model: '',
  total_trials: 0,
};

/** FindingSummary (a project's top finding). */
export const FINDING_SUMMARY_DEFAULTS: Defaults = {
  execution_time_ms: 0,
  finding_type: 'jailbreak',
  transforms_applied: [],
  trial_number: 0,
};

/** FindingDetail (review_events default empty: the review_event_count of an absent list is 0). */
export const FINDING_DETAIL_DEFAULTS: Defaults = { finding_status: 'open', finding_type: 'jailbreak' };

/** Project summary arrays, by the summary key they come from. */
export const PROJECT_ARRAY_DEFAULTS: Readonly<Record<string, Defaults>> = {
  attack_effectiveness: { total_finished_trials: 0, goal_categories_targeted: [] },
  goals: { transforms_used: [] },
  risk_trend: { critical_findings: 0, total_findings: 0 },
  top_vulnerabilities: { attack_names_used: [], transforms_used: [] },
  transform_effectiveness: { attack_names_used_with: [] },
};

/** ExecutiveSummary. */
export const EXECUTIVE_SUMMARY_DEFAULTS: Defaults = {
  all_attacker_models: [],
  all_judge_models: [],
  all_target_models: [],
  total_unique_transforms: 0,
};

/** EvaluationControlPlaneSummary: counts of items per state, each default 0. */
export const ITEM_COUNT_DEFAULTS: Defaults = Object.fromEntries(ITEM_STATES.map((state) => [state, 0]));
