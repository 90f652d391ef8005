/**
 * The tables read from a project summary (projects/<dir>/summary.json, see summary-rows.ts and
 * assessment-rows.ts): the project, its assessments and what hangs off them, and the summary's
 * rollups. Part of the warehouse's table contract (schema.ts, whose conventions apply).
 */
import { api, ASSESSMENT, ctx, ORDINAL, projectTable, type TableDef } from './schema-core.js';

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
    /**
     * The run's required best_score was absent, or not a number: `best_score` is NULL for want of
     * the value (unknown), not the spec's null (a run without a finished trial). NULL on rows loaded
     * before schema 17, which read as before (a NULL best_score is a run without a finished trial).
     */
    ctx('best_score_unknown', 'BOOLEAN'),
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
