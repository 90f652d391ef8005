/**
 * The warehouse schema, versioned. `schema_version` records the version a database was created at and
 * every upgrade applied since, so a later airt-report can upgrade an older database in place and an
 * older one refuses a newer database.
 *
 * A new database gets the current tables (schema.ts) and views directly. An older one is upgraded by
 * the migrations after its version, in order: each holds explicit ALTER/UPDATE statements written
 * against the tables of the version before it (never edit one that shipped), between dropping the
 * warehouse's views and recreating them, so a migration never has to mind a view.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { CliError, WordedError, wordsFlags } from '../errors.js';
import { VERSION } from '../version.js';
import { inTransaction, scalarNumber } from './db.js';
import { sqlType, TABLES, type ColumnDef, type TableDef } from './schema.js';
import { quoteIdent, quoteLiteral } from './sql.js';
import { MIGRATION_V8 } from './migration-v8.js';
import { MIGRATION_V11 } from './migration-v11.js';
import { isShared, SNAPSHOT_ROW_SETS, STORED_TABLES } from './row-sets.js';
import { PRUNED_SNAPSHOTS } from './pruned-snapshots.js';
import { SNAPSHOT_INPUTS } from './snapshot-inputs.js';
import { VERIFIED_FILES } from './verified-files.js';
import { SUMMARY_MEMO_ROW_SETS, SUMMARY_MEMOS } from './summary-memo.js';
import { knownViewNames, viewStatements } from './views.js';

interface Migration {
  version: number;
  description: string;
  statements: () => string[];
}

function columnSql(column: ColumnDef): string {
  return `${quoteIdent(column.name)} ${sqlType(column.type)}`;
}

function createTableSql(table: TableDef): string {
  const primaryKey = table.name === 'snapshots' ? ', PRIMARY KEY (snapshot_id)' : '';
  return `CREATE TABLE IF NOT EXISTS ${quoteIdent(table.name)} (${table.columns.map(columnSql).join(', ')}${primaryKey})`;
}

// Version 3's list types, spelled out: a migration must not follow later changes of schema.ts.
const V3_TOOL_CALL =
  'STRUCT(agent VARCHAR, arguments VARCHAR, "name" VARCHAR, "result" VARCHAR, extra JSON)[]';
const V3_MESSAGE_PART =
  'STRUCT(kind VARCHAR, caption VARCHAR, "source" JSON, "text" VARCHAR, "transform" VARCHAR, variant VARCHAR, extra JSON)[]';
const V3_SOURCE_KEYS = [
  'ref',
  'artifact_oid',
  'byte_size',
  'detail',
  'file_id',
  'filename',
  'media_type',
  'url',
];
const V3_ON = (alias: string): string =>
  `ON ${alias}.snapshot_id = t.snapshot_id AND ${alias}.assessment_id = t.assessment_id AND ${alias}.trial_ordinal = t.trial_ordinal`;
const V3_TOOL_CALL_LISTS = `SELECT snapshot_id, assessment_id, trial_ordinal,
    CAST(list({'agent': agent, 'arguments': arguments, 'name': "name", 'result': "result", 'extra': extra}
      ORDER BY call_ordinal) AS ${V3_TOOL_CALL}) AS list
  FROM trial_tool_calls GROUP BY ALL`;
/** A part's source object again from version 2's source_* columns (json_merge_patch drops the NULLs). */
const V3_SOURCE = `CASE WHEN ${V3_SOURCE_KEYS.map((k) => `p.source_${k} IS NULL`).join(' AND ')} THEN NULL
  ELSE json_merge_patch('{}', json_object(${V3_SOURCE_KEYS.map((k) => `'${k}', p.source_${k}`).join(', ')})) END`;
/** One role's parts per trial, with the text version 2 kept only in trials (text_in_trial) put back. */
function v3PartLists(role: 'candidate' | 'response'): string {
  return `SELECT p.snapshot_id, p.assessment_id, p.trial_ordinal,
    CAST(list({'kind': p.kind, 'caption': p.caption, 'source': ${V3_SOURCE},
      'text': CASE WHEN p.text_in_trial THEN s.${role} ELSE p."text" END,
      'transform': p."transform", 'variant': p.variant, 'extra': p.extra}
      ORDER BY p.part_ordinal) AS ${V3_MESSAGE_PART}) AS list
  FROM message_parts p
  LEFT JOIN trials s ON p.text_in_trial AND s.snapshot_id = p.snapshot_id AND s.assessment_id = p.assessment_id
    AND s.trial_ordinal = p.trial_ordinal
  WHERE p.role = '${role}'
  GROUP BY ALL`;
}

/** Upgrades from version 1 (the first release's tables), in order. */
const MIGRATIONS: readonly Migration[] = [
  {
    version: 2,
    description: 'message_parts.text_in_trial (part text stored once, in trials)',
    statements: () => ['ALTER TABLE message_parts ADD COLUMN IF NOT EXISTS text_in_trial BOOLEAN'],
  },
  {
    version: 3,
    description:
      "a trial's tool calls and message parts are lists in its row, read through the views trial_tool_calls and message_parts; a plain text part equal to the trial's string is implied (trials.candidate_part_implied, response_part_implied)",
    // trials is rebuilt (DuckDB refuses to commit an UPDATE and an ALTER of one table in one
    // transaction); the trials already loaded keep every part in their lists (implied NULL).
    statements: () => [
      `CREATE TABLE trials_v3 AS
       SELECT t.* EXCLUDE (extra), NULL::BOOLEAN AS candidate_part_implied, NULL::BOOLEAN AS response_part_implied,
              c.list AS tool_call_list, cp.list AS candidate_part_list, rp.list AS response_part_list, t.extra
       FROM trials t
       LEFT JOIN (${V3_TOOL_CALL_LISTS}) c ${V3_ON('c')}
       LEFT JOIN (${v3PartLists('candidate')}) cp ${V3_ON('cp')}
       LEFT JOIN (${v3PartLists('response')}) rp ${V3_ON('rp')}`,
      'DROP TABLE trials',
      'ALTER TABLE trials_v3 RENAME TO trials',
      'DROP TABLE trial_tool_calls',
      'DROP TABLE message_parts',
    ],
  },
  {
    version: 4,
    description: 'altered_values: values stored altered (lone surrogates as U+FFFD) with their original JSON',
    statements: () => [
      `CREATE TABLE IF NOT EXISTS altered_values (snapshot_id VARCHAR, file VARCHAR, json_path VARCHAR,
        table_name VARCHAR, row_key JSON, original_json VARCHAR, ordinal BIGINT)`,
    ],
  },
  {
    version: 5,
    description:
      'the metrics layer: metric_* views (and latest_metric_*) define every figure once; tables unchanged, views recreated',
    statements: () => [],
  },
  {
    version: 6,
    description:
      'latest_findings is one row per finding with its current triage status; the raw rows of every origin are latest_finding_rows; views recreated',
    statements: () => [],
  },
  {
    version: 7,
    description:
      "snapshot_files (every manifest file's sha256, for evidence in exports) and risk_acceptances (dated acceptances from the triage journal; an expired one leaves the finding open)",
    statements: () => [
      `CREATE TABLE IF NOT EXISTS snapshot_files (snapshot_id VARCHAR, path VARCHAR, kind VARCHAR, sha256 VARCHAR,
        bytes BIGINT, request_path VARCHAR, ordinal BIGINT)`,
      `CREATE TABLE IF NOT EXISTS risk_acceptances (snapshot_id VARCHAR, origin VARCHAR, org VARCHAR, workspace VARCHAR,
        attack_run_id VARCHAR, accepted_by VARCHAR, reason VARCHAR, accepted_until VARCHAR, expires_at TIMESTAMPTZ,
        accepted_at TIMESTAMPTZ, journal_source VARCHAR, ordinal BIGINT)`,
    ],
  },
  MIGRATION_V8,
  {
    version: 9,
    description:
      'metric_consistency and metric_project_figures read each metric view once (planning took ~0.6 s a query); tables unchanged, views recreated',
    statements: () => [],
  },
  {
    version: 10,
    description:
      'verified_files: digests this warehouse computed by file identity, so a load need not hash an untouched file again',
    statements: () => [
      `CREATE TABLE IF NOT EXISTS verified_files (dev VARCHAR, ino VARCHAR, size VARCHAR, mtime_ns VARCHAR,
        ctime_ns VARCHAR, sha256 VARCHAR, bytes BIGINT)`,
    ],
  },
  MIGRATION_V11,
  {
    version: 12,
    description:
      'summary_memos and summary_memo_row_sets: what a project summary file gave a load, so the same bytes are not parsed again',
    statements: () => [
      `CREATE TABLE IF NOT EXISTS summary_memos (memo_key VARCHAR, memo VARCHAR)`,
      `CREATE TABLE IF NOT EXISTS summary_memo_row_sets (memo_key VARCHAR, relation VARCHAR, row_set VARCHAR, "rows" BIGINT)`,
    ],
  },
  {
    version: 13,
    description:
      "a one-row row set's position (ordinal, page, page_file) is kept in its mapping, so an assessment or job listed behind a new one stays shared; rows stored before keep their positions (mapping NULL)",
    statements: () =>
      ['snapshot_row_sets', 'summary_memo_row_sets'].flatMap((table) => [
        `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ordinal BIGINT`,
        `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS page BIGINT`,
        `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS page_file VARCHAR`,
      ]),
  },
  {
    version: 14,
    description:
      "metric_project_figures and metric_consistency take a reader's snapshot filter (no lateral or full join), so a report reads one snapshot's rows, not every snapshot's; averages over doubles add their terms in a fixed order (the same bits on every read); tables unchanged, views recreated",
    statements: () => [],
  },
  {
    version: 15,
    description:
      "a snapshot's figures read the triage and dated risk acceptances its own files hold (snapshot_finding_triage, snapshot_risk_acceptances), so loading another snapshot or a journal never changes them; tables unchanged, views recreated",
    statements: () => [],
  },
  {
    version: 16,
    description:
      'metric_evaluation_pass_rates: a job has a pass rate only once every item has an outcome (a queued, running or cancelled job has none, never 0); tables unchanged, views recreated',
    statements: () => [],
  },
  {
    version: 17,
    description:
      'attack_runs.best_score_unknown: a run without its required best_score has an unknown score and severity (never info), and the figures built on it are unknown (NULL); rows loaded before keep NULL there and read as before',
    // The column goes before `extra`, where schema.ts declares it (rows are appended by position):
    // added where missing, then the table rebuilt in that order, keeping any values it already holds.
    statements: () => [
      'ALTER TABLE stored_attack_runs ADD COLUMN IF NOT EXISTS best_score_unknown BOOLEAN',
      `CREATE TABLE stored_attack_runs_v17 AS
       SELECT COLUMNS(c -> c NOT IN ('best_score_unknown', 'extra')), best_score_unknown, extra FROM stored_attack_runs`,
      'DROP TABLE stored_attack_runs',
      'ALTER TABLE stored_attack_runs_v17 RENAME TO stored_attack_runs',
    ],
  },
  {
    version: 18,
    description:
      'metric_transform_lift: the baseline is the pooled ASR of the attack runs with no transform applied (the service sends no `baseline` entry, so every lift was NULL); tables unchanged, views recreated',
    statements: () => [],
  },
  {
    version: 19,
    description:
      'an assessment (or project) without an attack result has an unknown risk score (NULL, never 0), left out of avg_risk_score and the risk trend; tables unchanged, views recreated',
    statements: () => [],
  },
  {
    version: 20,
    description:
      'metric_findings.successful: whether the attack run reached its goal (best_score >= 0.5, the rule every ASR counts with; NULL without a score), for the OSCAL risks; tables unchanged, views recreated',
    statements: () => [],
  },
  {
    version: 21,
    description:
      'pruned_snapshots (internal): the snapshots whose rows retention deleted, when and by which run, so asking for one says it was pruned; snapshots pruned before are not listed',
    statements: () => [
      `CREATE TABLE IF NOT EXISTS pruned_snapshots (snapshot_id VARCHAR, org VARCHAR, workspace VARCHAR,
        pruned_at TIMESTAMPTZ, pruned_by VARCHAR, keep_last BIGINT)`,
    ],
  },
];

/**
 * The tables a new database gets: the contract's tables, except that a shared table is its storage
 * (a view gives it its name: row-sets.ts), and the internal bookkeeping (snapshot_inputs,
 * verified_files).
 */
const STORAGE_TABLES: readonly TableDef[] = [
  ...TABLES.filter((t) => !isShared(t)),
  ...STORED_TABLES,
  SNAPSHOT_ROW_SETS,
  SNAPSHOT_INPUTS,
  VERIFIED_FILES,
  SUMMARY_MEMOS,
  SUMMARY_MEMO_ROW_SETS,
  PRUNED_SNAPSHOTS,
];

/** The warehouse schema version this release creates and reads. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 1;

const VERSION_TABLE = `CREATE TABLE IF NOT EXISTS schema_version (
  version INTEGER PRIMARY KEY, description VARCHAR, applied_at TIMESTAMPTZ, tool_version VARCHAR)`;

/** The database's schema version: null without a schema_version table, 0 when it is empty. */
async function currentVersion(conn: DuckDBConnection): Promise<number | null> {
  const exists = await scalarNumber(
    conn,
    `SELECT count(*) FROM duckdb_tables() WHERE table_name = 'schema_version' AND schema_name = 'main'`,
  );
  return exists === 0 ? null : scalarNumber(conn, 'SELECT max(version) FROM schema_version');
}

function newerDatabase(found: number): CliError {
  return new CliError(
    `The database has warehouse schema version ${found}, newer than this airt-report supports (${SCHEMA_VERSION}). Upgrade airt-report.`,
  );
}

/** Creates or upgrades the schema (in one transaction). Refuses a database from a newer version. */
export async function ensureSchema(
  conn: DuckDBConnection,
  now: () => Date = () => new Date(),
): Promise<number> {
  const found = await currentVersion(conn);
  if (found !== null && found > SCHEMA_VERSION) throw newerDatabase(found);
  if (found === SCHEMA_VERSION) return found;
  const record = (version: number, description: string) =>
    conn.run('INSERT INTO schema_version VALUES ($1, $2, $3::TIMESTAMPTZ, $4)', [
      version,
      description,
      now().toISOString(),
      VERSION,
    ]);
  await inTransaction(conn, async () => {
    if (found === null || found === 0) {
      await conn.run(VERSION_TABLE);
      for (const table of STORAGE_TABLES) await conn.run(createTableSql(table));
      for (const statement of viewStatements()) await conn.run(statement);
      await record(SCHEMA_VERSION, `created at version ${SCHEMA_VERSION}`);
      return;
    }
    await dropWarehouseViews(conn);
    for (const migration of MIGRATIONS.filter((m) => m.version > found)) {
      for (const statement of migration.statements()) await conn.run(statement);
      await record(migration.version, migration.description);
    }
    for (const statement of viewStatements()) await conn.run(statement);
  });
  return SCHEMA_VERSION;
}

/** Drops the views this or an earlier airt-report created that exist (a user's own views stay). */
async function dropWarehouseViews(conn: DuckDBConnection): Promise<void> {
  const names = knownViewNames().map(quoteLiteral).join(', ');
  const reader = await conn.runAndReadAll(
    `SELECT view_name FROM duckdb_views() WHERE NOT internal AND schema_name = 'main' AND view_name IN (${names})`,
  );
  for (const [name] of reader.getRows()) await conn.run(`DROP VIEW IF EXISTS ${quoteIdent(String(name))}`);
}

/**
 * The schema version of a warehouse this airt-report can read or upgrade: refuses a DuckDB file that
 * is not a warehouse, and one a newer airt-report wrote.
 */
export async function warehouseVersion(conn: DuckDBConnection, dbPath: string): Promise<number> {
  const found = await currentVersion(conn);
  if (found === null || found === 0) {
    throw new WordedError(
      (name) =>
        `${dbPath} is not an airt-report warehouse (no schema_version table). ` +
        (wordsFlags(name) ? 'Create it with airt-report load.' : 'Create it by loading a snapshot into it.'),
    );
  }
  if (found > SCHEMA_VERSION) throw newerDatabase(found);
  return found;
}

/** For read-only use: the database must be a warehouse of this version (warehouseVersion, not older). */
export async function checkSchema(conn: DuckDBConnection, dbPath: string): Promise<void> {
  const found = await warehouseVersion(conn, dbPath);
  if (found < SCHEMA_VERSION) {
    throw new WordedError(
      (name) =>
        `${dbPath} has warehouse schema version ${found}; ` +
        (wordsFlags(name)
          ? `upgrade it once with airt-report load ${name('db')} ${dbPath}`
          : 'upgrade it once (upgradeWarehouse, or any load into it)') +
        ` (to version ${SCHEMA_VERSION}; nothing is loaded).`,
    );
  }
}
