/**
 * The warehouse's table contract: every table, its columns and their DuckDB types (TABLES). The
 * DDL (ddl.ts), the row mappers (row-builder.ts) and the Parquet export all read these definitions, so
 * a column is declared once. The tables of a project summary are in schema-summaries.ts, trials and
 * their views in schema-trials.ts; TABLES below lists them all.
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
  ctx,
  ORDINAL,
  projectTable,
  EXTRA,
  SNAPSHOT,
  type ColumnType,
  type TableDef,
} from './schema-core.js';
import {
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
  ANALYTICS_WARNINGS,
} from './schema-summaries.js';
import { RISK_ACCEPTANCES, SNAPSHOT_FILES } from './schema-evidence.js';
import {
  MESSAGE_PARTS,
  SNAPSHOT_TRIAL_FILES,
  TRIAL_CONTENT,
  TRIAL_CONTENT_FILES,
  TRIAL_TOOL_CALLS,
  TRIALS,
} from './schema-trials.js';

export type { ColumnDef, ColumnType, TableDef } from './schema-core.js';
export {
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
  ANALYTICS_WARNINGS,
} from './schema-summaries.js';
export {
  MESSAGE_PARTS,
  SNAPSHOT_TRIAL_FILES,
  TRIAL_CONTENT,
  TRIAL_CONTENT_FILES,
  TRIAL_TOOL_CALLS,
  TRIALS,
  sqlType,
} from './schema-trials.js';

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

export const ALTERED_VALUES: TableDef = {
  name: 'altered_values',
  doc: 'Values stored altered because DuckDB cannot hold them (a lone UTF-16 surrogate, stored as U+FFFD), with the original: JSON.parse(original_json) restores it. A row is flagged altered when its table_name and row_key (JSON of its key columns) are listed here.',
  scope: 'snapshot',
  columns: [
    SNAPSHOT,
    /** The snapshot file and the value's JSON path in it. */
    ctx('file', 'VARCHAR'),
    ctx('json_path', 'VARCHAR'),
    /** The row holding the value (trials: {"assessment_id", "trial_ordinal"}); NULL for summaries. */
    ctx('table_name', 'VARCHAR'),
    ctx('row_key', 'JSON'),
    ctx('original_json', 'VARCHAR'),
    ORDINAL,
  ],
};

export { RISK_ACCEPTANCES, SNAPSHOT_FILES };

/** Every stored table, in load (and DDL) order. Trials are stored as SNAPSHOT_TRIAL_FILES and content. */
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
  SNAPSHOT_TRIAL_FILES,
  TRIAL_CONTENT_FILES,
  TRIAL_CONTENT,
  EVALUATION_JOBS,
  EVALUATION_SKIPPED_MEMBERS,
  ANALYTICS_WARNINGS,
  SCHEMA_DRIFT,
  LOAD_WARNINGS,
  ALTERED_VALUES,
  SNAPSHOT_FILES,
  RISK_ACCEPTANCES,
];

/**
 * What users query and export (the table contract): the tables, with the views trials,
 * trial_tool_calls and message_parts in place of the trial storage (snapshot_trial_files stays
 * queryable but is not part of the contract).
 */
export const RELATIONS: readonly TableDef[] = TABLES.flatMap((t) =>
  t === SNAPSHOT_TRIAL_FILES
    ? [TRIALS, TRIAL_TOOL_CALLS, MESSAGE_PARTS]
    : t === TRIAL_CONTENT || t === TRIAL_CONTENT_FILES
      ? []
      : [t],
);
