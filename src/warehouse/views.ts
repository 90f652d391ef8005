/**
 * The views every query and report uses. `latest_<table>` keeps, for each project, the rows of the
 * newest snapshot that holds the project's summary (newest by fetched_at, then snapshot id); for
 * `findings` that view is `latest_finding_rows` (every origin's row), and `latest_findings` is one row
 * per finding with its triage status as its snapshot holds it.
 *
 * analytics_warnings are honoured upstream: a flagged slice is never written to the clean tables (its
 * raw value sits in analytics_warnings.raw_value), so these views cannot aggregate it. What they add is
 * the count of excluded assessments (`analytics_exclusions`) that aggregates must report.
 */
import { MESSAGE_PARTS, RELATIONS, sqlType, TRIAL_TOOL_CALLS, TRIALS, type TableDef } from './schema.js';
import { SOURCE_KEYS, sourceKeyType, TRIAL_CONTEXT_COLUMNS } from './schema-trials.js';
import { keyOf, typedFromJson } from './trial-columns.js';
import { SNAPSHOT_FINDING_TRIAGE, SNAPSHOT_RISK_ACCEPTANCES } from './snapshot-triage.js';
import { quoteIdent } from './sql.js';
import { findingViewStatements } from './finding-views.js';
import { metricViewStatements } from './metric-views.js';
import { SHARED_TABLES, sharedTableView } from './row-sets.js';

/** The newest snapshot per (org, workspace, project) that holds the project's summary. */
const LATEST_PROJECT_SNAPSHOTS = `
CREATE OR REPLACE VIEW latest_project_snapshots AS
SELECT p.snapshot_id, p.project_id, p.project_key, s.org, s.workspace, s.fetched_at
FROM projects p JOIN snapshots s ON s.snapshot_id = p.snapshot_id
WHERE p.manifest_status = 'ok'
QUALIFY row_number() OVER (
  PARTITION BY s.org, s.workspace, coalesce(p.project_id, p.project_key)
  ORDER BY s.fetched_at DESC, s.snapshot_id DESC) = 1`;

/**
 * The name of a table's newest-snapshot view. `findings` holds a finding once per origin, so its raw
 * rows are `latest_finding_rows` and `latest_findings` is one row per finding (finding-views.ts).
 */
const latestName = (table: string): string =>
  table === 'findings' ? 'latest_finding_rows' : `latest_${table}`;

function latestView(table: string): string {
  return `
CREATE OR REPLACE VIEW ${latestName(table)} AS
SELECT t.* FROM ${table} t
JOIN latest_project_snapshots l ON t.snapshot_id = l.snapshot_id
  AND coalesce(t.project_id, t.project_key) = coalesce(l.project_id, l.project_key)`;
}

/** How many assessments each slice excluded, per snapshot and project (for "excludes N" notes). */
const ANALYTICS_EXCLUSIONS = `
CREATE OR REPLACE VIEW analytics_exclusions AS
SELECT snapshot_id, project_id, project_key, slice,
       count(DISTINCT assessment_id) AS excluded_assessments,
       list(DISTINCT field ORDER BY field) AS fields
FROM analytics_warnings
GROUP BY ALL`;

const LATEST_ANALYTICS_EXCLUSIONS = `
CREATE OR REPLACE VIEW latest_analytics_exclusions AS
SELECT slice, count(DISTINCT snapshot_id || '/' || assessment_id) AS excluded_assessments
FROM latest_analytics_warnings
GROUP BY slice`;

/**
 * The current triage state of each finding: the newest FindingDetail seen, from a snapshot's findings/
 * directory or an applied triage journal line (journal time, else updated_at, else snapshot time).
 */
const FINDING_TRIAGE = `
CREATE OR REPLACE VIEW finding_triage AS
SELECT f.attack_run_id, f.finding_status, f.finding_type, f.severity, f.notes, f.origin, f.snapshot_id,
       coalesce(f.journal_time, f.updated_at, s.fetched_at) AS as_of
FROM findings f LEFT JOIN snapshots s ON s.snapshot_id = f.snapshot_id
WHERE f.origin IN ('finding_detail', 'journal') AND f.attack_run_id IS NOT NULL
QUALIFY row_number() OVER (
  PARTITION BY f.attack_run_id
  ORDER BY as_of DESC NULLS LAST, f.origin DESC, f.snapshot_id DESC NULLS LAST, f.ordinal DESC) = 1`;

/**
 * trials: each snapshot's trial files (snapshot_trial_files) joined to their stored content, with the
 * columns of the table contract in its order, so the view reads as the table it replaced.
 */
const TRIALS_VIEW = `
CREATE OR REPLACE VIEW trials AS
SELECT ${TRIALS.columns
  .map((c) => `${TRIAL_CONTEXT_COLUMNS.includes(c.name) ? 'f' : 'c'}.${quoteIdent(c.name)}`)
  .join(', ')}
FROM snapshot_trial_files f JOIN trial_content c ON c.content_key = f.content_key`;

/** The key columns every trial child row starts with, read from trials aliased t. */
const TRIAL_KEYS = ['snapshot_id', 'project_id', 'project_key', 'assessment_id', 'trial_ordinal'];

/**
 * One row per element of a list column of trials: the trial's keys, the element's index as `position`,
 * and the view's other columns from `values` (name → SQL over the element u.e).
 */
function unnestView(view: TableDef, list: string, position: string, values: Record<string, string>): string {
  const columns = view.columns.map((c) => {
    if (TRIAL_KEYS.includes(c.name)) return `u.${quoteIdent(c.name)}`;
    if (c.name === position) return `u.i AS ${quoteIdent(c.name)}`;
    const value = values[c.name];
    if (value === undefined) throw new Error(`${view.name}.${c.name} has no source`);
    return `${value} AS ${quoteIdent(c.name)}`;
  });
  return `SELECT ${columns.join(', ')} FROM (
    SELECT ${TRIAL_KEYS.map((k) => `t.${k}`).join(', ')}, unnest(range(len(t.${list}))) AS i, unnest(t.${list}) AS e
    FROM trials t WHERE t.${list} IS NOT NULL) u`;
}

/** The element fields a view column reads as they are. */
const fieldsOf = (names: readonly string[]): Record<string, string> =>
  Object.fromEntries(names.map((name) => [name, `u.e.${quoteIdent(name)}`]));

const TRIAL_TOOL_CALLS_VIEW = `
CREATE OR REPLACE VIEW trial_tool_calls AS
${unnestView(TRIAL_TOOL_CALLS, 'tool_call_list', 'call_ordinal', fieldsOf(['agent', 'arguments', 'name', 'result', 'extra']))}`;

/**
 * message_parts: the listed parts of both roles (the source object read into typed source_* columns; a
 * value that does not fit stays NULL, and the strict loader kept it in extra), plus the one plain text
 * part each flagged trial implies (its candidate or response string; see trials.candidate_part_implied).
 */
function messagePartsView(): string {
  const sources = Object.fromEntries(
    SOURCE_KEYS.map((k) => [`source_${k}`, typedFromJson(sourceKeyType(k), keyOf('u.e.source', k)).value]),
  );
  const listed = (role: 'candidate' | 'response'): string =>
    unnestView(MESSAGE_PARTS, `${role}_part_list`, 'part_ordinal', {
      role: `'${role}'`,
      ...fieldsOf(['kind', 'caption', 'text', 'transform', 'variant', 'extra']),
      ...sources,
    });
  const implied = (role: 'candidate' | 'response'): string => {
    const known: Record<string, string> = {
      role: `'${role}'`,
      part_ordinal: 'CAST(0 AS BIGINT)',
      kind: `'text'`,
      text: `t.${role}`,
    };
    const values = MESSAGE_PARTS.columns.map((c) => {
      const value =
        known[c.name] ?? (TRIAL_KEYS.includes(c.name) ? `t.${c.name}` : `CAST(NULL AS ${sqlType(c.type)})`);
      return `${value} AS ${quoteIdent(c.name)}`;
    });
    return `SELECT ${values.join(', ')} FROM trials t WHERE t.${role}_part_implied`;
  };
  return `
CREATE OR REPLACE VIEW message_parts AS
${listed('candidate')}
UNION ALL ${listed('response')}
UNION ALL ${implied('candidate')}
UNION ALL ${implied('response')}`;
}

/** All view statements, in dependency order. */
export function viewStatements(): string[] {
  const latest = RELATIONS.filter((t) => t.scope === 'project').map((t) => latestView(t.name));
  return [
    // The tables stored as shared row sets come first: every other view reads them.
    ...SHARED_TABLES.map(sharedTableView),
    TRIALS_VIEW,
    TRIAL_TOOL_CALLS_VIEW,
    messagePartsView(),
    LATEST_PROJECT_SNAPSHOTS,
    ...latest,
    ANALYTICS_EXCLUSIONS,
    LATEST_ANALYTICS_EXCLUSIONS,
    FINDING_TRIAGE,
    SNAPSHOT_FINDING_TRIAGE,
    SNAPSHOT_RISK_ACCEPTANCES,
    ...metricViewStatements(),
    ...findingViewStatements(),
  ];
}

/** Views of earlier schema versions that no longer exist. */
const RETIRED_VIEWS = ['message_parts_resolved'];

/** Names of every view this or an earlier version created (an upgrade drops them; never a user's own). */
export function knownViewNames(): string[] {
  const current = viewStatements().map((sql) => /CREATE OR REPLACE VIEW (\w+)/.exec(sql)?.[1]);
  return [...RETIRED_VIEWS, ...current].filter((name): name is string => name !== undefined);
}
