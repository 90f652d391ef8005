/**
 * Schema version 11 (issue 14): the rows a snapshot gives each small table are stored once per
 * distinct content (row-sets.ts). Upgrades a version 10 database: every table below becomes
 * stored_<table> (its rows under a row set key, without snapshot_id) plus its mapping rows in
 * snapshot_row_sets, and the table's name is then a view (views.ts) with the same columns and rows.
 *
 * Frozen SQL, written against version 10's tables: never edit it after it shipped. Rows loaded before
 * version 11 have no row set key, so each (table, snapshot) keeps its own (`v10:` + the snapshot id);
 * rows of no snapshot (a triage journal's) are the `journal` row set. Nothing is shared, nothing is
 * lost; loads from version 11 on share what they can. snapshot_inputs starts empty: a snapshot loaded
 * before has no inputs key, so the first load after the upgrade reads its files. `* EXCLUDE` keeps each table's own column order,
 * which is its version 10 order.
 */

/** Version 10's tables that hold a snapshot's rows, except snapshots and snapshot_trial_files. */
const V10_SHARED = [
  'projects',
  'assessments',
  'attack_runs',
  'reports',
  'asr_breakdown',
  'compliance_matrix',
  'compliance_posture',
  'attack_effectiveness',
  'transform_effectiveness',
  'goals',
  'vulnerabilities',
  'risk_trend',
  'executive_summary',
  'risk_by_domain',
  'findings',
  'review_events',
  'evaluation_jobs',
  'evaluation_skipped_members',
  'analytics_warnings',
  'schema_drift',
  'load_warnings',
  'altered_values',
  'snapshot_files',
  'risk_acceptances',
];

const V10_ROW_SET = `CASE WHEN snapshot_id IS NULL THEN 'journal' ELSE 'v10:' || snapshot_id END`;

export const MIGRATION_V11 = {
  version: 11,
  description:
    "each table's rows of a snapshot stored once per distinct content (stored_<table>, mapped by snapshot_row_sets); the tables are views with the same columns",
  statements: (): string[] => [
    `CREATE TABLE IF NOT EXISTS snapshot_row_sets (snapshot_id VARCHAR, relation VARCHAR, row_set VARCHAR, "rows" BIGINT)`,
    'CREATE TABLE IF NOT EXISTS snapshot_inputs (snapshot_id VARCHAR, inputs_key VARCHAR)',
    ...V10_SHARED.flatMap((table) => [
      `INSERT INTO snapshot_row_sets
       SELECT snapshot_id, '${table}', ${V10_ROW_SET}, CASE WHEN snapshot_id IS NULL THEN NULL ELSE count(*) END
       FROM "${table}" GROUP BY snapshot_id`,
      `CREATE TABLE "stored_${table}" AS SELECT ${V10_ROW_SET} AS row_set, * EXCLUDE (snapshot_id) FROM "${table}"`,
      `DROP TABLE "${table}"`,
    ]),
  ],
};
