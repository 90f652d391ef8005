/**
 * The warehouse schema, versioned. `schema_version` records every migration applied, so a later
 * airt-report can upgrade an older database in place and an older one refuses a newer database.
 *
 * Migration 1 creates the tables of schema.ts and the views. Later changes append a migration with
 * explicit ALTER/CREATE statements (never edit an applied one) and bump the version.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { CliError } from '../errors.js';
import { VERSION } from '../version.js';
import { TABLES, type ColumnDef, type TableDef } from './schema.js';
import { quoteIdent } from './sql.js';
import { viewStatements } from './views.js';

export interface Migration {
  version: number;
  description: string;
  statements: () => string[];
}

function columnSql(column: ColumnDef): string {
  return `${quoteIdent(column.name)} ${column.type}`;
}

export function createTableSql(table: TableDef): string {
  const primaryKey = table.name === 'snapshots' ? ', PRIMARY KEY (snapshot_id)' : '';
  return `CREATE TABLE IF NOT EXISTS ${quoteIdent(table.name)} (${table.columns.map(columnSql).join(', ')}${primaryKey})`;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'snapshots, summaries, findings, trials, evaluations, analytics warnings; latest_* views',
    statements: () => [...TABLES.map(createTableSql), ...viewStatements()],
  },
  {
    version: 2,
    description:
      'message_parts.text_in_trial (part text stored once, in trials); message_parts_resolved view',
    // IF NOT EXISTS: a database created at version 2 already has the column from migration 1.
    statements: () => [
      'ALTER TABLE message_parts ADD COLUMN IF NOT EXISTS text_in_trial BOOLEAN',
      ...viewStatements(),
    ],
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

const VERSION_TABLE = `CREATE TABLE IF NOT EXISTS schema_version (
  version INTEGER PRIMARY KEY, description VARCHAR, applied_at TIMESTAMPTZ, tool_version VARCHAR)`;

async function currentVersion(conn: DuckDBConnection): Promise<number | null> {
  const exists = await conn.runAndReadAll(
    `SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = 'schema_version' AND schema_name = 'main'`,
  );
  if (Number(exists.getRows()[0]?.[0] ?? 0) === 0) return null;
  const reader = await conn.runAndReadAll('SELECT max(version) FROM schema_version');
  const value = reader.getRows()[0]?.[0];
  return value === null || value === undefined ? 0 : Number(value);
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
  const found = (await currentVersion(conn)) ?? 0;
  if (found > SCHEMA_VERSION) throw newerDatabase(found);
  if (found === SCHEMA_VERSION) return found;
  await conn.run('BEGIN TRANSACTION');
  try {
    await conn.run(VERSION_TABLE);
    for (const migration of MIGRATIONS.filter((m) => m.version > found)) {
      for (const statement of migration.statements()) await conn.run(statement);
      await conn.run('INSERT INTO schema_version VALUES ($1, $2, $3::TIMESTAMPTZ, $4)', [
        migration.version,
        migration.description,
        now().toISOString(),
        VERSION,
      ]);
    }
    await conn.run('COMMIT');
  } catch (error) {
    await conn.run('ROLLBACK');
    throw error;
  }
  return SCHEMA_VERSION;
}

/** For read-only use: the database must be a warehouse this version understands. */
export async function checkSchema(conn: DuckDBConnection, dbPath: string): Promise<void> {
  const found = await currentVersion(conn);
  if (found === null || found === 0) {
    throw new CliError(
      `${dbPath} is not an airt-report warehouse (no schema_version table). Create it with airt-report load.`,
    );
  }
  if (found > SCHEMA_VERSION) throw newerDatabase(found);
  if (found < SCHEMA_VERSION) {
    throw new CliError(
      `${dbPath} has warehouse schema version ${found}; run airt-report load on it once to upgrade it to ${SCHEMA_VERSION}.`,
    );
  }
}
