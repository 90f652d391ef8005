/**
 * The warehouse's table contract: every table, its columns and their DuckDB types, in one place. The
 * DDL (ddl.ts), the row mappers (row-builder.ts) and the Parquet export all read these definitions, so
 * a column is declared once.
 *
 * Conventions:
 * - Every table has `snapshot_id`; project-scoped tables also have `project_id` and `project_key`.
 * - A column with `from` takes the API body's key of that name, type-checked; a value of the wrong type
 *   never gets coerced: the column stays NULL and the value is kept in `extra` (with a load warning).
 * - `extra` (JSON) holds the keys the API spec does not know, so new API fields stay queryable.
 * - Absent fields are NULL, never a default such as 0 (older snapshots omit fields; that is unknown).
 * - Free-form maps (compliance_tags, configs, severity_breakdown, …) are JSON columns.
 */
import { EvaluationItemStateSchema } from '../api/schemas.js';
import {
  api,
  ASSESSMENT,
  ctx,
  ORDINAL,
  projectTable,
  EXTRA,
  SNAPSHOT,
  type ColumnType,
  type TableDef,
} from './schema-core.js';
import { MESSAGE_PARTS, TRIAL_TOOL_CALLS, TRIALS } from './schema-trials.js';

export type { ColumnDef, ColumnType, TableDef } from './schema-core.js';
export { MESSAGE_PARTS, TRIAL_TOOL_CALLS, TRIALS, sqlType } from './schema-trials.js';

export const SNAPSHOTS: TableDef = {
  name: 'snapshots',
  doc: 'One row per loaded snapshot: identity, provenance, verification and status.',
  scope: 'snapshot',
  columns: [
    SNAPSHOT,
    ctx('org', 'VARCHAR'),
    ctx('workspace', 'VARCHAR'),
    ctx('status', 'VARCHAR'),
    ctx('started_at', 'TIMESTAMPTZ'),
    ctx('fetched_at', 'TIMESTAMPTZ'),
    ctx('base_url', 'VARCHAR'),
    ctx('tool_version', 'VARCHAR'),
    ctx('api_version', 'VARCHAR'),
    ctx('app_version', 'VARCHAR'),
    ctx('root_sha256', 'VARCHAR'),
    ctx('manifest_sha256', 'VARCHAR'),
    ctx('verified', 'BOOLEAN'),
    ctx('forced', 'BOOLEAN'),
    ctx('options', 'JSON'),
    ctx('config', 'JSON'),
    ctx('warnings', 'JSON'),
    ctx('failed_requests', 'JSON'),
    ctx('source_dir', 'VARCHAR'),
    ctx('loaded_at', 'TIMESTAMPTZ'),
    ctx('loader_version', 'VARCHAR'),
  ],
};

export const PROJECTS: TableDef = projectTable('projects', 'One row per project listed in the manifest.', [
  ctx('requested_key', 'VARCHAR'),
  ctx('manifest_status', 'VARCHAR'),
  ctx('summary_file', 'VARCHAR'),
  api('project_name', 'VARCHAR'),
  api('project_created_at', 'TIMESTAMPTZ'),
  api('project_updated_at', 'TIMESTAMPTZ'),
  api('last_activity_at', 'TIMESTAMPTZ'),
  api('avg_asr', 'DOUBLE'),
  api('avg_risk_score', 'DOUBLE'),
  api('assessments_by_status', 'JSON'),
]);

export const ASSESSMENTS: TableDef = projectTable(
  'assessments',
  'One row per AssessmentDetail of a summary.',
  [
    api('assessment_id', 'VARCHAR', 'id'),
    api('name', 'VARCHAR'),
    api('description', 'VARCHAR'),
    api('status', 'VARCHAR'),
    api('created_at', 'TIMESTAMPTZ'),
    api('updated_at', 'TIMESTAMPTZ'),
    api('started_at', 'TIMESTAMPTZ'),
    api('completed_at', 'TIMESTAMPTZ'),
    api('duration_s', 'DOUBLE'),
    api('total_attacks', 'BIGINT'),
    api('total_trials', 'BIGINT'),
    api('overall_asr', 'DOUBLE'),
    api('attacker_model', 'VARCHAR'),
    api('judge_model', 'VARCHAR'),
    api('target_model', 'VARCHAR'),
    api('attacker_config', 'JSON'),
    api('target_config', 'JSON'),
    api('attack_domains', 'VARCHAR[]'),
    api('finding_type_counts', 'JSON'),
    api('severity_breakdown', 'JSON'),
    api('recommendations', 'JSON'),
    api('transform_lift', 'JSON'),
    api('runtime_id', 'VARCHAR'),
    api('sandbox_id', 'VARCHAR'),
    api('sandbox_detail', 'JSON'),
    api('session_id', 'VARCHAR'),
    api('adversarial_ml_metrics', 'JSON'),
    api('coverage_summary', 'JSON'),
    api('execution_stats', 'JSON'),
    /** Fields named by this assessment's analytics_warnings: NULL here and excluded elsewhere. */
    ctx('erroneous_fields', 'VARCHAR[]'),
    ORDINAL,
  ],
);

export const ATTACK_RUNS: TableDef = projectTable(
  'attack_runs',
  'One row per AttackRunSummary (= finding id).',
  [
    ASSESSMENT,
    api('attack_run_id', 'VARCHAR', 'id'),
    api('attack_name', 'VARCHAR'),
    api('goal', 'VARCHAR'),
    api('goal_category', 'VARCHAR'),
    api('status', 'VARCHAR'),
    api('created_at', 'TIMESTAMPTZ'),
    api('completed_at', 'TIMESTAMPTZ'),
    api('best_score', 'DOUBLE'),
    api('execution_time_s', 'DOUBLE'),
    api('transforms_applied', 'VARCHAR[]'),
    api('asr', 'DOUBLE'),
    api('attacker_model', 'VARCHAR'),
    api('target_model', 'VARCHAR'),
    api('best_candidate', 'VARCHAR'),
    api('best_response', 'VARCHAR'),
    api('compliance_tags', 'JSON'),
    api('finished_trials', 'BIGINT'),
    api('total_trials', 'BIGINT'),
    api('risk_domain', 'VARCHAR'),
    ORDINAL,
  ],
);

export const REPORTS: TableDef = projectTable('reports', 'One row per ReportSummary of an assessment.', [
  ASSESSMENT,
  api('report_id', 'VARCHAR', 'id'),
  api('created_at', 'TIMESTAMPTZ'),
  api('report_type', 'VARCHAR'),
  api('risk_score', 'DOUBLE'),
  api('risk_level', 'VARCHAR'),
  ORDINAL,
]);

export const ASR_BREAKDOWN: TableDef = projectTable(
  'asr_breakdown',
  'One row per AsrEntry of asr_by_attack / asr_by_category / asr_by_transform.',
  [
    ASSESSMENT,
    /** attack, category or transform (from the field name asr_by_<dimension>). */
    ctx('dimension', 'VARCHAR'),
    /** The breakdown's own `dimension` string as sent. */
    ctx('dimension_label', 'VARCHAR'),
    ctx('key', 'VARCHAR'),
    api('asr', 'DOUBLE'),
    api('avg_best_score', 'DOUBLE'),
    api('avg_execution_time_ms', 'DOUBLE'),
    api('best_score', 'DOUBLE'),
    api('min_score', 'DOUBLE'),
    api('successful_attacks', 'BIGINT'),
    api('total_attacks', 'BIGINT'),
    api('total_trials', 'BIGINT'),
  ],
);

export const COMPLIANCE_MATRIX: TableDef = projectTable(
  'compliance_matrix',
  'One row per (framework, tag) cell of an assessment compliance_matrix.',
  [
    ASSESSMENT,
    ctx('framework', 'VARCHAR'),
    ctx('tag', 'VARCHAR'),
    api('tested', 'BOOLEAN'),
    api('asr', 'DOUBLE'),
    api('max_severity', 'VARCHAR'),
    api('attacks_used', 'VARCHAR[]'),
    api('total_trials', 'BIGINT'),
    /** Older format: only tested/asr/max_severity; attacks_used and total_trials are NULL (unknown). */
    ctx('legacy', 'BOOLEAN'),
  ],
);

export const COMPLIANCE_POSTURE: TableDef = projectTable(
  'compliance_posture',
  'One row per CompliancePosture entry of a summary.',
  [
    api('framework', 'VARCHAR'),
    api('coverage_pct', 'DOUBLE'),
    api('failing_categories', 'VARCHAR[]'),
    api('passing_categories', 'VARCHAR[]'),
    api('untested_categories', 'VARCHAR[]'),
    api('max_asr_by_category', 'JSON'),
    api('max_severity_by_category', 'JSON'),
    api('tested_categories', 'BIGINT'),
    api('total_categories', 'BIGINT'),
    ORDINAL,
  ],
);

export const ATTACK_EFFECTIVENESS: TableDef = projectTable(
  'attack_effectiveness',
  'One row per AttackEffectiveness entry of a summary.',
  [
    api('attack_name', 'VARCHAR'),
    api('assessments_used_in', 'VARCHAR[]'),
    api('avg_best_score', 'DOUBLE'),
    api('times_used', 'BIGINT'),
    api('total_trials', 'BIGINT'),
    api('total_finished_trials', 'BIGINT'),
    api('goal_categories_targeted', 'VARCHAR[]'),
    api('avg_asr', 'DOUBLE'),
    api('avg_execution_time_s', 'DOUBLE'),
    api('max_best_score', 'DOUBLE'),
    api('min_best_score', 'DOUBLE'),
    api('success_rate', 'DOUBLE'),
    ORDINAL,
  ],
);

export const TRANSFORM_EFFECTIVENESS: TableDef = projectTable(
  'transform_effectiveness',
  'One row per TransformEffectiveness entry of a summary.',
  [
    api('transform', 'VARCHAR'),
    api('assessments_used_in', 'VARCHAR[]'),
    api('avg_best_score', 'DOUBLE'),
    api('times_used', 'BIGINT'),
    api('attack_names_used_with', 'VARCHAR[]'),
    api('avg_asr', 'DOUBLE'),
    api('lift', 'DOUBLE'),
    api('max_best_score', 'DOUBLE'),
    ORDINAL,
  ],
);

export const GOALS: TableDef = projectTable('goals', 'One row per GoalDetail of a summary.', [
  api('goal', 'VARCHAR'),
  api('goal_category', 'VARCHAR'),
  api('assessments', 'VARCHAR[]'),
  api('attack_names_used', 'VARCHAR[]'),
  api('best_score', 'DOUBLE'),
  api('total_trials', 'BIGINT'),
  api('asr', 'DOUBLE'),
  api('avg_score', 'DOUBLE'),
  api('risk_domain', 'VARCHAR'),
  api('transforms_used', 'VARCHAR[]'),
  ORDINAL,
]);

export const VULNERABILITIES: TableDef = projectTable(
  'vulnerabilities',
  'One row per VulnerabilityEntry (top_vulnerabilities) of a summary.',
  [
    api('category', 'VARCHAR'),
    api('count', 'BIGINT'),
    api('assessments_affected', 'VARCHAR[]'),
    api('total_assessments', 'BIGINT'),
    api('total_attacks', 'BIGINT'),
    api('total_trials', 'BIGINT'),
    api('attack_names_used', 'VARCHAR[]'),
    api('transforms_used', 'VARCHAR[]'),
    api('avg_asr', 'DOUBLE'),
    api('max_score', 'DOUBLE'),
    api('max_severity', 'VARCHAR'),
    api('risk_domain', 'VARCHAR'),
    ORDINAL,
  ],
);

export const RISK_TREND: TableDef = projectTable('risk_trend', 'One row per RiskTrendPoint of a summary.', [
  api('assessment_id', 'VARCHAR'),
  api('assessment_name', 'VARCHAR'),
  api('date', 'TIMESTAMPTZ'),
  api('overall_asr', 'DOUBLE'),
  api('risk_level', 'VARCHAR'),
  api('risk_score', 'DOUBLE'),
  api('status', 'VARCHAR'),
  api('total_attacks', 'BIGINT'),
  api('critical_findings', 'BIGINT'),
  api('total_findings', 'BIGINT'),
  api('severity_breakdown', 'JSON'),
  ORDINAL,
]);

export const EXECUTIVE_SUMMARY: TableDef = projectTable(
  'executive_summary',
  'One row per project summary: its ExecutiveSummary (risk_by_domain has its own table).',
  [
    api('all_attacker_models', 'VARCHAR[]'),
    api('all_judge_models', 'VARCHAR[]'),
    api('all_target_models', 'VARCHAR[]'),
    api('avg_compliance_coverage_pct', 'DOUBLE'),
    api('best_attacker_model', 'VARCHAR'),
    api('best_attacker_model_asr', 'DOUBLE'),
    api('best_judge_model', 'VARCHAR'),
    api('best_judge_model_findings', 'BIGINT'),
    api('compliance_frameworks_tested', 'VARCHAR[]'),
    api('critical_findings', 'BIGINT'),
    api('high_findings', 'BIGINT'),
    api('medium_findings', 'BIGINT'),
    api('low_findings', 'BIGINT'),
    api('finding_type_distribution', 'JSON'),
    api('first_assessment_date', 'TIMESTAMPTZ'),
    api('last_assessment_date', 'TIMESTAMPTZ'),
    api('most_effective_attack', 'VARCHAR'),
    api('most_effective_attack_asr', 'DOUBLE'),
    api('overall_asr', 'DOUBLE'),
    api('overall_risk_level', 'VARCHAR'),
    api('overall_risk_score', 'DOUBLE'),
    api('severity_distribution', 'JSON'),
    api('total_assessments', 'BIGINT'),
    api('total_attacks', 'BIGINT'),
    api('total_findings', 'BIGINT'),
    api('total_reports', 'BIGINT'),
    api('total_trials', 'BIGINT'),
    api('total_execution_time_s', 'DOUBLE'),
    api('total_unique_transforms', 'BIGINT'),
    api('worst_category', 'VARCHAR'),
    api('worst_category_asr', 'DOUBLE'),
    api('worst_compliance_coverage_pct', 'DOUBLE'),
    api('worst_compliance_framework', 'VARCHAR'),
  ],
);

export const RISK_BY_DOMAIN: TableDef = projectTable(
  'risk_by_domain',
  'One row per RiskDomainSummary of executive_summary.risk_by_domain.',
  [
    api('domain', 'VARCHAR'),
    api('categories', 'VARCHAR[]'),
    api('assessments_affected', 'VARCHAR[]'),
    api('critical_findings', 'BIGINT'),
    api('high_findings', 'BIGINT'),
    api('medium_findings', 'BIGINT'),
    api('total_findings', 'BIGINT'),
    api('avg_asr', 'DOUBLE'),
    api('max_score', 'DOUBLE'),
    ORDINAL,
  ],
);

/**
 * Findings from four origins, keyed by attack run id (a finding is an attack run):
 * project_top_finding (FindingSummary), assessment_top_finding (AssessmentTopFinding, attack run id
 * resolved by assessment + attack + goal when unique), finding_detail (a snapshot's findings/ dir) and
 * journal (FindingDetail of an applied triage journal line; snapshot_id NULL). FindingDetail's
 * best_score/best_candidate/best_response/best_transformed_prompt/best_judge_reasoning land in
 * score/candidate/response/transformed_prompt/judge_reasoning.
 */
export const FINDINGS: TableDef = projectTable('findings', 'One row per finding of any origin.', [
  ctx('origin', 'VARCHAR'),
  ctx('attack_run_id', 'VARCHAR'),
  api('assessment_id', 'VARCHAR'),
  api('assessment_name', 'VARCHAR'),
  api('rank', 'BIGINT'),
  api('attack_name', 'VARCHAR'),
  api('goal', 'VARCHAR'),
  api('goal_category', 'VARCHAR'),
  api('category', 'VARCHAR'),
  api('sub_category', 'VARCHAR'),
  api('severity', 'VARCHAR'),
  api('score', 'DOUBLE'),
  api('asr', 'DOUBLE'),
  api('finding_status', 'VARCHAR'),
  api('finding_type', 'VARCHAR'),
  api('notes', 'VARCHAR'),
  api('is_jailbreak', 'BOOLEAN'),
  api('run_status', 'VARCHAR', 'status'),
  api('candidate', 'VARCHAR'),
  api('response', 'VARCHAR'),
  api('transformed_prompt', 'VARCHAR'),
  api('judge_reasoning', 'VARCHAR'),
  api('attacker_model', 'VARCHAR'),
  api('evaluator_model', 'VARCHAR'),
  api('target_model', 'VARCHAR'),
  api('risk_domain', 'VARCHAR'),
  api('attack_domain', 'VARCHAR'),
  api('compliance_tags', 'JSON'),
  api('transforms_applied', 'VARCHAR[]'),
  api('tools_invoked', 'VARCHAR[]'),
  api('secondary_scores', 'JSON'),
  api('execution_time_s', 'DOUBLE'),
  api('execution_time_ms', 'DOUBLE'),
  api('finished_trials', 'BIGINT'),
  api('total_trials', 'BIGINT'),
  api('trial_index', 'BIGINT'),
  api('trial_number', 'BIGINT'),
  api('created_at', 'TIMESTAMPTZ'),
  api('completed_at', 'TIMESTAMPTZ'),
  api('updated_at', 'TIMESTAMPTZ'),
  api('adversarial_class', 'VARCHAR'),
  api('original_class', 'VARCHAR'),
  api('original_severity', 'VARCHAR'),
  api('distance_norm', 'VARCHAR'),
  api('distance_value', 'DOUBLE'),
  api('input_modality', 'VARCHAR'),
  api('pass_rate', 'DOUBLE'),
  api('span_id', 'VARCHAR'),
  api('trace_id', 'VARCHAR'),
  api('candidate_parts', 'JSON'),
  api('response_parts', 'JSON'),
  api('modality_scores', 'JSON'),
  api('top_trials', 'JSON'),
  ctx('review_event_count', 'BIGINT'),
  ctx('source_file', 'VARCHAR'),
  ctx('journal_time', 'TIMESTAMPTZ'),
  ctx('journal_source', 'VARCHAR'),
  ORDINAL,
]);

/** Review events of FindingDetail bodies; de-duplicated by event_key per snapshot (and across journals). */
export const REVIEW_EVENTS: TableDef = {
  name: 'review_events',
  doc: 'One row per FindingReviewEvent (snapshot findings/ and applied journal lines).',
  scope: 'snapshot',
  columns: [
    SNAPSHOT,
    ctx('origin', 'VARCHAR'),
    ctx('finding_id', 'VARCHAR'),
    ctx('event_key', 'VARCHAR'),
    api('original_finding_type', 'VARCHAR'),
    api('original_severity', 'VARCHAR'),
    api('original_status', 'VARCHAR'),
    api('updated_finding_type', 'VARCHAR'),
    api('updated_severity', 'VARCHAR'),
    api('updated_status', 'VARCHAR'),
    api('reasoning', 'VARCHAR'),
    api('updated_by', 'VARCHAR'),
    api('updated_at', 'TIMESTAMPTZ'),
    ORDINAL,
    EXTRA,
  ],
};

/** The twelve item states of the API's EvaluationControlPlaneSummary, as `items_<state>` columns. */
export const ITEM_STATES = EvaluationItemStateSchema.options;

/** Numeric and text fields of EvaluationSummaryResponse, as `analytics_<field>` columns. */
export const ANALYTICS_FIELDS: readonly (readonly [string, ColumnType])[] = [
  ['name', 'VARCHAR'],
  ['status', 'VARCHAR'],
  ['span_id', 'VARCHAR'],
  ['trace_id', 'VARCHAR'],
  ['timestamp', 'TIMESTAMPTZ'],
  ['dataset_size', 'BIGINT'],
  ['duration_ms', 'BIGINT'],
  ['error_count', 'BIGINT'],
  ['failed_count', 'BIGINT'],
  ['iterations', 'BIGINT'],
  ['passed_count', 'BIGINT'],
  ['scenario_count', 'BIGINT'],
  ['total_samples', 'BIGINT'],
  ['mean_scores', 'JSON'],
  ['params', 'JSON'],
  ['pass_rate', 'DOUBLE'],
  ['stop_reason', 'VARCHAR'],
  ['task_id', 'VARCHAR'],
  ['tags', 'VARCHAR[]'],
];

export const EVALUATION_JOBS: TableDef = projectTable(
  'evaluation_jobs',
  'One row per evaluation job (first occurrence when a job appears on two pages).',
  [
    api('evaluation_id', 'VARCHAR', 'id'),
    api('name', 'VARCHAR'),
    api('organization_id', 'VARCHAR'),
    api('workspace_id', 'VARCHAR'),
    api('job_status', 'VARCHAR'),
    api('kind', 'VARCHAR'),
    api('cleanup_policy', 'VARCHAR'),
    api('queued_at', 'TIMESTAMPTZ'),
    api('started_at', 'TIMESTAMPTZ'),
    api('completed_at', 'TIMESTAMPTZ'),
    api('cancel_requested_at', 'TIMESTAMPTZ'),
    api('dataset_size', 'BIGINT'),
    api('requested_concurrency', 'BIGINT'),
    api('effective_concurrency', 'BIGINT'),
    ...ITEM_STATES.map((state) => ctx(`items_${state}`, 'BIGINT')),
    ctx('item_counts_extra', 'JSON'),
    api('agent_type', 'VARCHAR'),
    api('capability', 'VARCHAR'),
    api('model', 'VARCHAR'),
    api('run_id', 'VARCHAR'),
    api('sandbox_provider', 'VARCHAR'),
    api('error_summary', 'VARCHAR'),
    api('runtime_id', 'VARCHAR'),
    api('created_by', 'VARCHAR'),
    api('task_timeout_sec', 'BIGINT'),
    api('config_json', 'JSON'),
    api('dataset_ref', 'JSON'),
    api('summary_json', 'JSON'),
    ctx('has_analytics', 'BOOLEAN'),
    ...ANALYTICS_FIELDS.map(([field, type]) => ctx(`analytics_${field}`, type)),
    ctx('analytics_extra', 'JSON'),
    api('created_by_email', 'VARCHAR'),
    api('created_by_user', 'JSON'),
    api('engine', 'VARCHAR'),
    api('max_steps', 'BIGINT'),
    ctx('skipped_member_count', 'BIGINT'),
    ctx('task_set_id', 'VARCHAR'),
    ctx('task_set_name', 'VARCHAR'),
    ctx('task_set_org_key', 'VARCHAR'),
    ctx('task_set_ref', 'JSON'),
    ctx('page', 'BIGINT'),
    ctx('page_file', 'VARCHAR'),
    ORDINAL,
  ],
);

export const EVALUATION_SKIPPED_MEMBERS: TableDef = projectTable(
  'evaluation_skipped_members',
  'One row per EvaluationSkippedMember of an evaluation job.',
  [
    ctx('evaluation_id', 'VARCHAR'),
    api('reason', 'VARCHAR'),
    api('task_name', 'VARCHAR'),
    api('task_version', 'VARCHAR'),
    ORDINAL,
  ],
);

export const ANALYTICS_WARNINGS: TableDef = projectTable(
  'analytics_warnings',
  'One row per AnalyticsWarning of an assessment; the named slice is excluded from clean tables.',
  [
    ASSESSMENT,
    api('field', 'VARCHAR'),
    api('reason', 'VARCHAR'),
    /** Top-level AssessmentDetail key the field names (the excluded slice). */
    ctx('slice', 'VARCHAR'),
    /** The flagged slice exactly as sent, kept for audit only; never aggregated. */
    ctx('raw_value', 'JSON'),
    ORDINAL,
  ],
);

export const SCHEMA_DRIFT: TableDef = {
  name: 'schema_drift',
  doc: "Keys the API spec does not know, per file kind, from the manifest's schema_drift.",
  scope: 'snapshot',
  columns: [SNAPSHOT, ctx('file_kind', 'VARCHAR'), ctx('json_path', 'VARCHAR')],
};

export const LOAD_WARNINGS: TableDef = {
  name: 'load_warnings',
  doc: 'Warnings of the snapshot (manifest) and of the load (type mismatches, duplicates, forced load).',
  scope: 'snapshot',
  columns: [
    SNAPSHOT,
    /** manifest or loader */
    ctx('source', 'VARCHAR'),
    ctx('code', 'VARCHAR'),
    ctx('message', 'VARCHAR'),
    ctx('file', 'VARCHAR'),
    ctx('detail', 'JSON'),
    ORDINAL,
  ],
};

/** Every stored table, in load (and DDL) order. */
export const TABLES: readonly TableDef[] = [
  SNAPSHOTS,
  PROJECTS,
  ASSESSMENTS,
  ATTACK_RUNS,
  REPORTS,
  ASR_BREAKDOWN,
  COMPLIANCE_MATRIX,
  COMPLIANCE_POSTURE,
  ATTACK_EFFECTIVENESS,
  TRANSFORM_EFFECTIVENESS,
  GOALS,
  VULNERABILITIES,
  RISK_TREND,
  EXECUTIVE_SUMMARY,
  RISK_BY_DOMAIN,
  FINDINGS,
  REVIEW_EVENTS,
  TRIALS,
  EVALUATION_JOBS,
  EVALUATION_SKIPPED_MEMBERS,
  ANALYTICS_WARNINGS,
  SCHEMA_DRIFT,
  LOAD_WARNINGS,
];

/**
 * What users query and export: the tables, with the views trial_tool_calls and message_parts (which
 * read trials) after trials.
 */
export const RELATIONS: readonly TableDef[] = TABLES.flatMap((t) =>
  t === TRIALS ? [TRIALS, TRIAL_TOOL_CALLS, MESSAGE_PARTS] : [t],
);

export type TableName = (typeof TABLES)[number]['name'];

export function tableDef(name: string): TableDef {
  const def = TABLES.find((t) => t.name === name);
  if (!def) throw new Error(`Unknown warehouse table ${name}`);
  return def;
}
