/**
 * Zod schemas for every resource, enumeration and request body of the service API
 * (`shared/seed/api-spec.md`), field for field.
 *
 * Conventions, mirroring the spec's tables:
 * - `req`                → the key must be present (`z.X()`), `req, nullable` → `.nullable()`
 * - `opt`                → `.optional()`, `opt, nullable` → `.nullable().optional()`
 * - `default V`          → `.default(V)` (absent means V)
 * - where the spec leaves requiredness open ("not shown"), the key is optional and nullable.
 *
 * Objects are "loose": keys a newer API adds are kept, never dropped, so snapshots and the warehouse
 * can surface schema drift (see `unknownKeys` in parse.ts). Types come only from `z.infer`.
 */
import { z } from 'zod';

// z.guid accepts any 8-4-4-4-12 hex id; services do emit ids outside RFC 9562's version bits.
const uuid = z.guid();
const dateTime = z.iso.datetime({ offset: true, local: true });
const anyMap = z.record(z.string(), z.unknown());
const intMap = z.record(z.string(), z.int());
const numberMap = z.record(z.string(), z.number());
const strings = z.array(z.string());

// ---------------------------------------------------------------------------------------------
// Enumerations
// ---------------------------------------------------------------------------------------------

/** Status of attack runs, findings and assessments. */
export const RunStatusSchema = z.enum(['pending', 'running', 'completed', 'failed']);
export const EvaluationSummaryStatusSchema = z.enum(['pending', 'completed', 'failed']);
export const FindingStatusSchema = z.enum([
  'open',
  'false_positive',
  'accepted_risk',
  'remediated',
  'incorrect_scoring',
]);
export const FindingTypeSchema = z.enum([
  'jailbreak',
  'partial',
  'refusal',
  'error',
  'evasion',
  'degradation',
  'robust',
]);
/** The severities a PATCH may set. Severities inside summaries are free strings in the spec. */
export const SeveritySchema = z.enum(['critical', 'high', 'medium', 'low', 'info']);
export const ReportTypeSchema = z.enum(['markdown', 'json', 'executive_summary']);
export const EvaluationItemStateSchema = z.enum([
  'agent_finished',
  'agent_running',
  'cancelled',
  'claiming',
  'errored',
  'failed',
  'infra_error',
  'passed',
  'provisioning',
  'queued',
  'timed_out',
  'verifying',
]);
export const SkippedReasonSchema = z.enum(['not_found', 'no_verification']);

/** Every `type` the error envelope may carry (spec, "Errors"). */
export const ERROR_TYPES = [
  'already_exists_error',
  'app_error',
  'authentication_error',
  'conflict_error',
  'cloud_error',
  'configuration_error',
  'database_error',
  'keyvalue_store_error',
  'sandbox_provider_error',
  'sandbox_provider_rate_limit_error',
  'expired_signature_error',
  'expired_token_error',
  'forbidden_error',
  'group_error',
  'invalid_error',
  'invalid_flag_error',
  'invalid_username_error',
  'mail_error',
  'member_exists_error',
  'member_limit_exceeded_error',
  'migration_lock_timeout_error',
  'not_found_error',
  'oauth_config_error',
  'org_sandbox_capacity_exceeded_error',
  'bad_gateway_error',
  'gateway_timeout_error',
  'object_store_error',
  'server_error',
  'task_error',
  'payment_provider_error',
  'task_set_not_found',
  'token_error',
  'upgrade_required_error',
  'usage_limit_exceeded_error',
  'user_suspended',
  'user_verification_error',
  'validation_error',
] as const;
export const ErrorTypeSchema = z.enum(ERROR_TYPES);
export const ERROR_STATUSES = [400, 401, 403, 404, 409, 422, 426, 429, 500, 502, 504] as const;

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

export const ValidationErrorItemSchema = z.looseObject({
  loc: z.array(z.union([z.string(), z.int()])),
  msg: z.string(),
  type: z.string(),
});

/** APIErrorPayload: the body of every error response. */
export const ErrorEnvelopeSchema = z.looseObject({
  code: z.int(),
  detail: z.string(),
  errors: z.array(ValidationErrorItemSchema).nullable().optional(),
  type: ErrorTypeSchema,
});

// ---------------------------------------------------------------------------------------------
// Messages, media, tool calls, trials
// ---------------------------------------------------------------------------------------------

export const MediaSourceSchema = z.looseObject({
  ref: z.string().default('artifact'),
  artifact_oid: z.string().nullable().optional(),
  byte_size: z.int().nullable().optional(),
  detail: z.string().nullable().optional(),
  file_id: z.string().nullable().optional(),
  filename: z.string().nullable().optional(),
  media_type: z.string().nullable().optional(),
  url: z.string().nullable().optional(),
});

export const MessagePartSchema = z.looseObject({
  kind: z.string(),
  caption: z.string().nullable().optional(),
  source: MediaSourceSchema.nullable().optional(),
  text: z.string().nullable().optional(),
  transform: z.string().nullable().optional(),
  variant: z.string().nullable().optional(),
});

export const ToolCallEvidenceSchema = z.looseObject({
  agent: z.string().default(''),
  arguments: z.string().default(''),
  name: z.string().default(''),
  result: z.string().default(''),
});

/**
 * One element of the trial-spans array (operation 5). The spec lists the keys and their types but not
 * which are required or nullable, so each is optional and nullable here.
 */
export const TrialResultSchema = z.looseObject({
  attack_name: z.string().nullable().optional(),
  candidate: z.string().nullable().optional(),
  candidate_parts: z.array(MessagePartSchema).nullable().optional(),
  execution_time_s: z.number().nullable().optional(),
  goal: z.string().nullable().optional(),
  goal_category: z.string().nullable().optional(),
  is_jailbreak: z.boolean().nullable().optional(),
  judge_reasoning: z.string().nullable().optional(),
  response: z.string().nullable().optional(),
  response_parts: z.array(MessagePartSchema).nullable().optional(),
  score: z.number().nullable().optional(),
  span_id: z.string().nullable().optional(),
  target_model: z.string().nullable().optional(),
  timestamp: z.string().nullable().optional(),
  tool_calls: z.array(ToolCallEvidenceSchema).nullable().optional(),
  trace_id: z.string().nullable().optional(),
  transformed_prompt: z.string().nullable().optional(),
  transforms: strings.nullable().optional(),
  trial_index: z.int().nullable().optional(),
  trial_status: z.string().nullable().optional(),
});
/** The keys the spec lists for a trial; the simulator always sends all of them. */
export const TRIAL_KEYS = Object.keys(TrialResultSchema.shape) as (keyof typeof TrialResultSchema.shape)[];
export const TrialListSchema = z.array(TrialResultSchema);

export const TrialEvidenceSchema = z.looseObject({
  rank: z.int(),
  candidate: z.string().default(''),
  candidate_parts: z.array(MessagePartSchema).nullable().optional(),
  execution_time_s: z.number().default(0),
  is_jailbreak: z.boolean().optional(),
  judge_reasoning: z.string().default(''),
  modality_scores: numberMap.nullable().optional(),
  response: z.string().default(''),
  response_parts: z.array(MessagePartSchema).nullable().optional(),
  score: z.number().default(0),
  span_id: z.string().default(''),
  tool_calls: z.array(ToolCallEvidenceSchema).optional(),
  transformed_prompt: z.string().default(''),
  trial_index: z.int().default(0),
  trial_status: z.string().default(''),
});

// ---------------------------------------------------------------------------------------------
// Assessment and its parts
// ---------------------------------------------------------------------------------------------

export const AnalyticsWarningSchema = z.looseObject({ field: z.string(), reason: z.string() });

export const AdversarialMLMetricsSchema = z.looseObject({
  avg_distance: z.number().default(0),
  distance_by_attack: numberMap.optional(),
  distance_by_norm: numberMap.optional(),
  evasion_rate: z.number().default(0),
  min_distance: z.number().default(0),
});

export const AsrEntrySchema = z.looseObject({
  asr: z.number().default(0),
  avg_best_score: z.number().nullable().optional(),
  avg_execution_time_ms: z.number().default(0),
  best_score: z.number().default(0),
  min_score: z.number().default(0),
  successful_attacks: z.int().default(0),
  total_attacks: z.int().default(0),
  total_trials: z.int().default(0),
});

export const AsrBreakdownSchema = z.looseObject({
  dimension: z.string().default(''),
  entries: z.record(z.string(), AsrEntrySchema),
});

/** One cell of the compliance matrix. Older snapshots carry only tested, asr and max_severity. */
export const ComplianceCategorySchema = z.looseObject({
  asr: z.number().default(0),
  attacks_used: strings.optional(),
  max_severity: z.string().default('info'),
  tested: z.boolean(),
  total_trials: z.int().default(0),
});

export const CoverageSummarySchema = z.looseObject({
  attack_names: strings,
  goal_categories: strings,
  sub_categories: strings,
});

export const ExecutionStatsSchema = z.looseObject({
  avg_trial_time_ms: z.number().default(0),
  failure_rate: z.number().default(0),
  overall_asr: z.number().default(0),
  pruning_rate: z.number().default(0),
  successful_attacks: z.int().default(0),
  total_attacks: z.int().default(0),
  total_execution_time_s: z.number().default(0),
  total_failed: z.int().default(0),
  total_jailbreaks: z.int().default(0),
  total_pruned: z.int().default(0),
  total_trials: z.int().default(0),
});

export const AttackRunSummarySchema = z.looseObject({
  id: uuid,
  assessment_id: uuid,
  attack_name: z.string(),
  goal: z.string(),
  goal_category: z.string().nullable(),
  status: RunStatusSchema,
  created_at: dateTime,
  completed_at: dateTime.nullable(),
  best_score: z.number().nullable(),
  execution_time_s: z.number().nullable(),
  transforms_applied: strings.nullable(),
  asr: z.number().nullable().optional(),
  attacker_model: z.string().nullable().optional(),
  target_model: z.string().nullable().optional(),
  best_candidate: z.string().nullable().optional(),
  best_response: z.string().nullable().optional(),
  compliance_tags: anyMap.nullable().optional(),
  finished_trials: z.int().nullable().optional(),
  total_trials: z.int().nullable().optional(),
  risk_domain: z.string().nullable().optional(),
});

export const ReportSummarySchema = z.looseObject({
  id: uuid,
  assessment_id: uuid,
  created_at: dateTime,
  report_type: ReportTypeSchema,
  risk_score: z.number().nullable(),
  risk_level: z.string().nullable().optional(),
});

export const SandboxSummarySchema = z.looseObject({
  provider: z.string(),
  provider_sandbox_id: z.string(),
  state: z.string(),
  total_runtime_seconds: z.number().nullable().optional(),
});

export const AssessmentTopFindingSchema = z.looseObject({
  asr: z.number().default(0),
  attack_name: z.string().default(''),
  attacker_model: z.string().default(''),
  candidate: z.string().default(''),
  category: z.string().default(''),
  evaluator_model: z.string().default(''),
  execution_time_s: z.number().default(0),
  finding_type: z.string().nullable().optional(),
  finished_trials: z.int().default(0),
  goal: z.string().default(''),
  goal_category: z.string().default(''),
  is_jailbreak: z.boolean().optional(),
  rank: z.int().default(0),
  response: z.string().default(''),
  score: z.number().default(0),
  severity: z.string().default('info'),
  sub_category: z.string().default(''),
  target_model: z.string().default(''),
  tools_invoked: strings.optional(),
  total_trials: z.int().default(0),
  transformed_prompt: z.string().nullable().optional(),
  transforms_applied: strings.optional(),
});

export const AssessmentDetailSchema = z.looseObject({
  id: uuid,
  name: z.string(),
  description: z.string().nullable(),
  status: RunStatusSchema,
  created_at: dateTime,
  updated_at: dateTime,
  started_at: dateTime.nullable().optional(),
  completed_at: dateTime.nullable(),
  duration_s: z.number().nullable().optional(),
  total_attacks: z.int(),
  total_trials: z.int(),
  overall_asr: z.number().nullable(),
  attacker_model: z.string().nullable().optional(),
  judge_model: z.string().nullable().optional(),
  target_model: z.string().nullable().optional(),
  attacker_config: anyMap.nullable(),
  target_config: anyMap.nullable(),
  attack_runs: z.array(AttackRunSummarySchema),
  reports: z.array(ReportSummarySchema),
  attack_domains: strings.nullable().optional(),
  finding_type_counts: intMap.nullable().optional(),
  severity_breakdown: intMap.nullable().optional(),
  recommendations: z.array(anyMap).nullable().optional(),
  transform_lift: numberMap.nullable().optional(),
  runtime_id: uuid.nullable().optional(),
  sandbox_id: uuid.nullable().optional(),
  sandbox_detail: SandboxSummarySchema.nullable().optional(),
  session_id: uuid.nullable(),
  top_findings: z.array(AssessmentTopFindingSchema).nullable().optional(),
  analytics_warnings: z.array(AnalyticsWarningSchema).optional(),
  adversarial_ml_metrics: AdversarialMLMetricsSchema.nullable().optional(),
  asr_by_attack: AsrBreakdownSchema.nullable().optional(),
  asr_by_category: AsrBreakdownSchema.nullable().optional(),
  asr_by_transform: AsrBreakdownSchema.nullable().optional(),
  compliance_matrix: z
    .record(z.string(), z.record(z.string(), ComplianceCategorySchema))
    .nullable()
    .optional(),
  coverage_summary: CoverageSummarySchema.nullable().optional(),
  execution_stats: ExecutionStatsSchema.nullable().optional(),
});

// ---------------------------------------------------------------------------------------------
// Project summary
// ---------------------------------------------------------------------------------------------

export const AttackEffectivenessSchema = z.looseObject({
  attack_name: z.string(),
  assessments_used_in: strings,
  avg_best_score: z.number(),
  times_used: z.int(),
  total_trials: z.int(),
  total_finished_trials: z.int().default(0),
  goal_categories_targeted: strings.default([]),
  avg_asr: z.number().nullable().optional(),
  avg_execution_time_s: z.number().nullable().optional(),
  max_best_score: z.number().nullable().optional(),
  min_best_score: z.number().nullable().optional(),
  success_rate: z.number().nullable().optional(),
});

export const CompliancePostureSchema = z.looseObject({
  framework: z.string(),
  coverage_pct: z.number(),
  failing_categories: strings,
  passing_categories: strings,
  untested_categories: strings,
  max_asr_by_category: numberMap,
  max_severity_by_category: z.record(z.string(), z.string()),
  tested_categories: z.int(),
  total_categories: z.int(),
});

export const RiskDomainSummarySchema = z.looseObject({
  domain: z.string(),
  categories: strings,
  assessments_affected: strings,
  critical_findings: z.int(),
  high_findings: z.int(),
  medium_findings: z.int(),
  total_findings: z.int(),
  avg_asr: z.number().nullable().optional(),
  max_score: z.number().nullable().optional(),
});

export const ExecutiveSummarySchema = z.looseObject({
  all_attacker_models: strings.default([]),
  all_judge_models: strings.default([]),
  all_target_models: strings.default([]),
  avg_compliance_coverage_pct: z.number().nullable(),
  best_attacker_model: z.string().nullable().optional(),
  best_attacker_model_asr: z.number().nullable().optional(),
  best_judge_model: z.string().nullable().optional(),
  best_judge_model_findings: z.int().nullable().optional(),
  compliance_frameworks_tested: strings,
  critical_findings: z.int(),
  high_findings: z.int(),
  medium_findings: z.int(),
  low_findings: z.int(),
  finding_type_distribution: intMap.optional(),
  first_assessment_date: dateTime.nullable(),
  last_assessment_date: dateTime.nullable(),
  most_effective_attack: z.string().nullable().optional(),
  most_effective_attack_asr: z.number().nullable().optional(),
  overall_asr: z.number().nullable(),
  overall_risk_level: z.string(),
  overall_risk_score: z.number().nullable(),
  risk_by_domain: z.array(RiskDomainSummarySchema),
  severity_distribution: intMap,
  total_assessments: z.int(),
  total_attacks: z.int(),
  total_findings: z.int(),
  total_reports: z.int(),
  total_trials: z.int(),
  total_execution_time_s: z.number().nullable().optional(),
  total_unique_transforms: z.int().default(0),
  worst_category: z.string().nullable(),
  worst_category_asr: z.number().nullable(),
  worst_compliance_coverage_pct: z.number().nullable().optional(),
  worst_compliance_framework: z.string().nullable().optional(),
});

export const GoalDetailSchema = z.looseObject({
  goal: z.string(),
  goal_category: z.string(),
  assessments: strings,
  attack_names_used: strings,
  best_score: z.number(),
  total_trials: z.int(),
  asr: z.number().nullable().optional(),
  avg_score: z.number().nullable().optional(),
  risk_domain: z.string().nullable().optional(),
  transforms_used: strings.default([]),
});

export const RiskTrendPointSchema = z.looseObject({
  assessment_id: z.string(),
  assessment_name: z.string(),
  date: dateTime,
  overall_asr: z.number().nullable(),
  risk_level: z.string(),
  risk_score: z.number(),
  status: z.string(),
  total_attacks: z.int(),
  critical_findings: z.int().default(0),
  total_findings: z.int().default(0),
  severity_breakdown: intMap.optional(),
});

export const FindingSummarySchema = z.looseObject({
  assessment_id: z.string(),
  assessment_name: z.string(),
  attack_name: z.string(),
  candidate: z.string(),
  goal: z.string(),
  goal_category: z.string(),
  rank: z.int(),
  response: z.string(),
  score: z.number(),
  severity: z.string(),
  attack_run_id: z.string().nullable().optional(),
  attacker_model: z.string().nullable().optional(),
  evaluator_model: z.string().nullable().optional(),
  target_model: z.string().nullable().optional(),
  risk_domain: z.string().nullable().optional(),
  compliance_tags: anyMap.optional(),
  execution_time_ms: z.number().default(0),
  finding_type: z.string().default('jailbreak'),
  secondary_scores: numberMap.optional(),
  transforms_applied: strings.default([]),
  trial_index: z.int().nullable().optional(),
  trial_number: z.int().default(0),
});

export const VulnerabilityEntrySchema = z.looseObject({
  category: z.string(),
  count: z.int(),
  assessments_affected: strings,
  total_assessments: z.int(),
  total_attacks: z.int(),
  total_trials: z.int(),
  attack_names_used: strings.default([]),
  transforms_used: strings.default([]),
  avg_asr: z.number().nullable().optional(),
  max_score: z.number().nullable().optional(),
  max_severity: z.string().nullable().optional(),
  risk_domain: z.string().nullable().optional(),
});

export const TransformEffectivenessSchema = z.looseObject({
  transform: z.string(),
  assessments_used_in: strings,
  avg_best_score: z.number(),
  times_used: z.int(),
  attack_names_used_with: strings.default([]),
  avg_asr: z.number().nullable().optional(),
  lift: z.number().nullable().optional(),
  max_best_score: z.number().nullable().optional(),
});

/** ProjectAirtSummaryResponse: the body of operation 1. */
export const ProjectSummarySchema = z.looseObject({
  assessments: z.array(AssessmentDetailSchema),
  assessments_by_status: intMap,
  attack_effectiveness: z.array(AttackEffectivenessSchema),
  avg_asr: z.number().nullable(),
  avg_risk_score: z.number().nullable(),
  compliance_posture: z.array(CompliancePostureSchema),
  executive_summary: ExecutiveSummarySchema,
  goals: z.array(GoalDetailSchema),
  risk_trend: z.array(RiskTrendPointSchema),
  top_findings: z.array(FindingSummarySchema),
  top_vulnerabilities: z.array(VulnerabilityEntrySchema),
  transform_effectiveness: z.array(TransformEffectivenessSchema),
  last_activity_at: dateTime.nullable().optional(),
  project_created_at: dateTime.nullable().optional(),
  project_id: uuid.nullable().optional(),
  project_key: z.string().nullable().optional(),
  project_name: z.string().nullable().optional(),
  project_updated_at: dateTime.nullable().optional(),
});

// ---------------------------------------------------------------------------------------------
// Findings (triage)
// ---------------------------------------------------------------------------------------------

export const FindingReviewEventSchema = z.looseObject({
  original_finding_type: z.string().nullable().optional(),
  original_severity: z.string().nullable().optional(),
  original_status: z.string().nullable().optional(),
  updated_finding_type: z.string().nullable().optional(),
  updated_severity: z.string().nullable().optional(),
  updated_status: z.string().nullable().optional(),
  reasoning: z.string().nullable().optional(),
  updated_by: z.string().nullable().optional(),
  updated_at: dateTime.nullable().optional(),
});

/** FindingDetail: one attack run with full detail, returned by the triage PATCH. */
export const FindingDetailSchema = z.looseObject({
  id: uuid,
  assessment_id: uuid,
  assessment_name: z.string().nullable().optional(),
  attack_name: z.string(),
  goal: z.string(),
  goal_category: z.string().nullable(),
  status: RunStatusSchema,
  severity: z.string(),
  finding_status: FindingStatusSchema.default('open'),
  finding_type: FindingTypeSchema.default('jailbreak'),
  created_at: dateTime,
  completed_at: dateTime.nullable(),
  updated_at: dateTime.nullable().optional(),
  best_score: z.number().nullable(),
  execution_time_s: z.number().nullable(),
  finished_trials: z.int(),
  total_trials: z.int(),
  compliance_tags: anyMap.nullable(),
  transforms_applied: strings.nullable(),
  adversarial_class: z.string().nullable().optional(),
  original_class: z.string().nullable().optional(),
  original_severity: z.string().nullable().optional(),
  attack_domain: z.string().nullable().optional(),
  risk_domain: z.string().nullable().optional(),
  category: z.string().nullable().optional(),
  sub_category: z.string().nullable().optional(),
  attacker_model: z.string().nullable().optional(),
  evaluator_model: z.string().nullable().optional(),
  target_model: z.string().nullable().optional(),
  best_candidate: z.string().nullable().optional(),
  best_response: z.string().nullable().optional(),
  best_transformed_prompt: z.string().nullable().optional(),
  best_candidate_parts: z.array(MessagePartSchema).nullable().optional(),
  best_response_parts: z.array(MessagePartSchema).nullable().optional(),
  best_judge_reasoning: z.string().nullable().optional(),
  best_modality_scores: numberMap.nullable().optional(),
  distance_norm: z.string().nullable().optional(),
  distance_value: z.number().nullable().optional(),
  input_modality: z.string().nullable().optional(),
  is_jailbreak: z.boolean().optional(),
  notes: z.string().nullable().optional(),
  pass_rate: z.number().nullable().optional(),
  span_id: z.string().nullable().optional(),
  trace_id: z.string().nullable().optional(),
  review_events: z.array(FindingReviewEventSchema).default([]),
  top_trials: z.array(TrialEvidenceSchema).default([]),
});

/** UpdateFindingRequest: every field optional and nullable. Sent by us, so unknown keys are refused. */
export const UpdateFindingRequestSchema = z.strictObject({
  finding_status: FindingStatusSchema.nullable().optional(),
  finding_type: FindingTypeSchema.nullable().optional(),
  notes: z.string().nullable().optional(),
  severity: SeveritySchema.nullable().optional(),
});

// ---------------------------------------------------------------------------------------------
// Credits auto-refill
// ---------------------------------------------------------------------------------------------

/** Bounds of ConfigureAutoRefillRequest, shared by local validation and the simulator. */
export const AUTO_REFILL_BOUNDS = {
  monthly_cap: { min: 1, max: 50 },
  quantity: { min: 1, max: 10 },
  threshold: { min: 1000, max: 1_000_000 },
} as const;

export const ConfigureAutoRefillRequestSchema = z.strictObject({
  enabled: z.boolean(),
  monthly_cap: z.int().min(AUTO_REFILL_BOUNDS.monthly_cap.min).max(AUTO_REFILL_BOUNDS.monthly_cap.max),
  quantity: z.int().min(AUTO_REFILL_BOUNDS.quantity.min).max(AUTO_REFILL_BOUNDS.quantity.max),
  threshold: z.int().min(AUTO_REFILL_BOUNDS.threshold.min).max(AUTO_REFILL_BOUNDS.threshold.max),
});

export const AutoRefillConfigResponseSchema = z.looseObject({
  enabled: z.boolean(),
  has_payment_method: z.boolean(),
  month_count: z.int(),
  month_reset: dateTime.nullable(),
  monthly_cap: z.int().nullable(),
  quantity: z.int().nullable(),
  threshold: z.int().nullable(),
  disabled_reason: z.string().nullable().optional(),
});

// ---------------------------------------------------------------------------------------------
// Evaluation jobs
// ---------------------------------------------------------------------------------------------

export const EvaluationControlPlaneSummarySchema = z.looseObject(
  Object.fromEntries(EvaluationItemStateSchema.options.map((state) => [state, z.int().default(0)])) as Record<
    z.infer<typeof EvaluationItemStateSchema>,
    z.ZodDefault<z.ZodInt>
  >,
);

export const EvaluationSummaryResponseSchema = z.looseObject({
  name: z.string(),
  status: EvaluationSummaryStatusSchema,
  span_id: z.string(),
  trace_id: z.string(),
  timestamp: dateTime,
  dataset_size: z.int(),
  duration_ms: z.int(),
  error_count: z.int(),
  failed_count: z.int(),
  iterations: z.int(),
  passed_count: z.int(),
  scenario_count: z.int(),
  total_samples: z.int(),
  mean_scores: numberMap,
  params: anyMap,
  pass_rate: z.number().nullable(),
  stop_reason: z.string().nullable(),
  task_id: z.string().nullable(),
  tags: strings.refine((tags) => new Set(tags).size === tags.length, { message: 'tags must be unique' }),
});

export const UserIdentityResponseSchema = z.looseObject({
  id: uuid,
  email: z.string(),
  username: z.string(),
  full_name: z.string().nullable().optional(),
});

export const EvaluationSkippedMemberSchema = z.looseObject({
  reason: SkippedReasonSchema,
  task_name: z.string(),
  task_version: z.string().nullable().optional(),
});

export const TaskSetReferenceSchema = z.looseObject({
  id: uuid,
  name: z.string(),
  org_key: z.string().nullable().optional(),
});

export const EvaluationJobSchema = z.looseObject({
  id: uuid,
  name: z.string(),
  organization_id: uuid,
  project_id: uuid,
  workspace_id: uuid,
  job_status: z.string(),
  kind: z.string(),
  cleanup_policy: z.string(),
  queued_at: dateTime,
  started_at: dateTime.nullable(),
  completed_at: dateTime.nullable(),
  cancel_requested_at: dateTime.nullable(),
  dataset_size: z.int(),
  requested_concurrency: z.int(),
  effective_concurrency: z.int(),
  item_counts: EvaluationControlPlaneSummarySchema,
  agent_type: z.string().nullable(),
  capability: z.string().nullable(),
  model: z.string().nullable(),
  run_id: z.string().nullable(),
  sandbox_provider: z.string().nullable(),
  error_summary: z.string().nullable(),
  runtime_id: uuid.nullable(),
  created_by: uuid.nullable(),
  task_timeout_sec: z.int().nullable(),
  config_json: anyMap.nullable(),
  dataset_ref: anyMap.nullable(),
  summary_json: anyMap.nullable(),
  analytics: EvaluationSummaryResponseSchema.nullable().optional(),
  created_by_email: z.string().nullable().optional(),
  created_by_user: UserIdentityResponseSchema.nullable().optional(),
  engine: z.string().nullable().optional(),
  max_steps: z.int().nullable().optional(),
  skipped_members: z.array(EvaluationSkippedMemberSchema).nullable().optional(),
  task_set_ref: TaskSetReferenceSchema.nullable().optional(),
});

export const EvaluationJobListSchema = z.looseObject({
  items: z.array(EvaluationJobSchema),
  page: z.int(),
  page_size: z.int(),
  total: z.int(),
});

/** Bounds of the evaluation list's query parameters. */
export const EVALUATION_PAGE_BOUNDS = {
  page: { min: 1 },
  page_size: { min: 1, max: 100, default: 20 },
} as const;

// ---------------------------------------------------------------------------------------------
// Public configuration
// ---------------------------------------------------------------------------------------------

export const ConfigResponseSchema = z.looseObject({
  api_version: z.string(),
  app_version: z.string(),
  deployment_mode: z.string(),
  website_url: z.string(),
  account_defender_enabled: z.boolean().optional(),
  account_defender_site_key: z.string().nullable().optional(),
  airgapped: z.boolean().optional(),
  credits_enabled: z.boolean().default(true),
  // The spec's default is a fixed public address whose value it omits; absent stays absent.
  docs_url: z.string().optional(),
  install_url: z.string().optional(),
  email_configured: z.boolean().optional(),
  feedback_diagnostics: z.boolean().optional(),
  feedback_enabled: z.boolean().optional(),
  integrations_enabled: z.boolean().default(true),
  recaptcha_enabled: z.boolean().optional(),
  recaptcha_site_key: z.string().nullable().optional(),
  slack_enabled: z.boolean().optional(),
});

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

export type RunStatus = z.infer<typeof RunStatusSchema>;
export type FindingStatus = z.infer<typeof FindingStatusSchema>;
export type FindingType = z.infer<typeof FindingTypeSchema>;
export type Severity = z.infer<typeof SeveritySchema>;
export type ErrorType = z.infer<typeof ErrorTypeSchema>;
export type ErrorEnvelope = z.infer<typeof ErrorEnvelopeSchema>;
export type ValidationErrorItem = z.infer<typeof ValidationErrorItemSchema>;
export type MessagePart = z.infer<typeof MessagePartSchema>;
export type ToolCallEvidence = z.infer<typeof ToolCallEvidenceSchema>;
export type TrialResult = z.infer<typeof TrialResultSchema>;
export type TrialEvidence = z.infer<typeof TrialEvidenceSchema>;
export type AnalyticsWarning = z.infer<typeof AnalyticsWarningSchema>;
export type AsrBreakdown = z.infer<typeof AsrBreakdownSchema>;
export type AsrEntry = z.infer<typeof AsrEntrySchema>;
export type ComplianceCategory = z.infer<typeof ComplianceCategorySchema>;
export type AttackRunSummary = z.infer<typeof AttackRunSummarySchema>;
export type ReportSummary = z.infer<typeof ReportSummarySchema>;
export type AssessmentTopFinding = z.infer<typeof AssessmentTopFindingSchema>;
export type AssessmentDetail = z.infer<typeof AssessmentDetailSchema>;
export type AttackEffectiveness = z.infer<typeof AttackEffectivenessSchema>;
export type CompliancePosture = z.infer<typeof CompliancePostureSchema>;
export type RiskDomainSummary = z.infer<typeof RiskDomainSummarySchema>;
export type ExecutiveSummary = z.infer<typeof ExecutiveSummarySchema>;
export type GoalDetail = z.infer<typeof GoalDetailSchema>;
export type RiskTrendPoint = z.infer<typeof RiskTrendPointSchema>;
export type FindingSummary = z.infer<typeof FindingSummarySchema>;
export type VulnerabilityEntry = z.infer<typeof VulnerabilityEntrySchema>;
export type TransformEffectiveness = z.infer<typeof TransformEffectivenessSchema>;
export type ProjectSummary = z.infer<typeof ProjectSummarySchema>;
export type FindingReviewEvent = z.infer<typeof FindingReviewEventSchema>;
export type FindingDetail = z.infer<typeof FindingDetailSchema>;
export type UpdateFindingRequest = z.infer<typeof UpdateFindingRequestSchema>;
export type ConfigureAutoRefillRequest = z.infer<typeof ConfigureAutoRefillRequestSchema>;
export type AutoRefillConfigResponse = z.infer<typeof AutoRefillConfigResponseSchema>;
export type EvaluationJob = z.infer<typeof EvaluationJobSchema>;
export type EvaluationJobList = z.infer<typeof EvaluationJobListSchema>;
export type EvaluationSkippedMember = z.infer<typeof EvaluationSkippedMemberSchema>;
export type ConfigResponse = z.infer<typeof ConfigResponseSchema>;
