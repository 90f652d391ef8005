/**
 * The findings list as SQL: filters, text search, whitelisted sorting and a page, all in DuckDB
 * (LIMIT/OFFSET), so a list of any size costs one page of rows. Every value is a bound parameter;
 * column names come only from the whitelists here.
 *
 * Rows are the metrics layer's findings (metric_findings: severity, status and "open" as every
 * report counts them), of the newest snapshot of each project unless a snapshot is named, joined to
 * the attack run for its best candidate and response (the text search covers goal, candidate and
 * response) and its compliance tags (the framework filter).
 */
import { SEVERITIES } from '../severity.js';
import { runTagsSql } from '../warehouse/run-compliance-tags.js';

export interface FindingFilters {
  project?: string | undefined;
  snapshot?: string | undefined;
  severity?: string | undefined;
  /** Goal category. */
  category?: string | undefined;
  framework?: string | undefined;
  /** Compliance category state within `framework` (failing, passing, …). */
  state?: string | undefined;
  /** One compliance category (tag) of `framework`. */
  tag?: string | undefined;
  status?: string | undefined;
  attack?: string | undefined;
  transform?: string | undefined;
  /** Text searched (case-insensitive substring) in the goal, the candidate and the response. */
  q?: string | undefined;
}

const SEVERITY_RANK = `CASE f.severity ${SEVERITIES.map((s, i) => `WHEN '${s}' THEN ${SEVERITIES.length - i}`).join(' ')} ELSE 0 END`;

/** Sortable columns: the request names a key, the SQL comes from here. */
export const SORTS: Readonly<Record<string, string>> = {
  severity: SEVERITY_RANK,
  score: 'f.best_score',
  project: 'f.project_key',
  category: 'f.goal_category',
  attack: 'f.attack_name',
  status: 'f.finding_status',
  assessment: 'f.assessment_name',
};
export const SORT_KEYS = Object.keys(SORTS);

export interface FindingsQuery {
  filters: FindingFilters;
  sort: string;
  descending: boolean;
  limit: number;
  offset: number;
}

/** Columns of a findings row (also the CSV's). */
const COLUMNS = `f.snapshot_id, f.project_key, f.assessment_name, f.attack_run_id, f.attack_name, f.goal,
  f.goal_category, f.severity, f.best_score, f.finding_status, f.is_open, r.best_candidate AS candidate,
  r.best_response AS response`;

function whereClause(filters: FindingFilters): { sql: string; params: string[] } {
  const clauses: string[] = [];
  const params: string[] = [];
  const bind = (value: string): string => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filters.snapshot !== undefined) clauses.push(`f.snapshot_id = ${bind(filters.snapshot)}`);
  if (filters.project !== undefined) clauses.push(`f.project_key = ${bind(filters.project)}`);
  if (filters.severity !== undefined) clauses.push(`f.severity = ${bind(filters.severity)}`);
  if (filters.category !== undefined) clauses.push(`f.goal_category = ${bind(filters.category)}`);
  if (filters.status !== undefined) clauses.push(`f.finding_status = ${bind(filters.status)}`);
  if (filters.attack !== undefined) clauses.push(`f.attack_name = ${bind(filters.attack)}`);
  if (filters.transform !== undefined)
    clauses.push(`list_contains(r.transforms_applied, ${bind(filters.transform)})`);
  if (filters.q !== undefined) {
    const q = bind(filters.q.toLowerCase());
    clauses.push(
      `(strpos(lower(coalesce(f.goal, '')), ${q}) > 0 OR strpos(lower(coalesce(r.best_candidate, '')), ${q}) > 0
        OR strpos(lower(coalesce(r.best_response, '')), ${q}) > 0)`,
    );
  }
  if (filters.framework !== undefined && (filters.state !== undefined || filters.tag !== undefined)) {
    const conditions = [`c.framework = ${bind(filters.framework)}`];
    if (filters.state !== undefined) conditions.push(`c.state = ${bind(filters.state)}`);
    if (filters.tag !== undefined) conditions.push(`c.tag = ${bind(filters.tag)}`);
    clauses.push(`EXISTS (SELECT 1 FROM metric_compliance_categories c
      WHERE c.snapshot_id = f.snapshot_id AND c.project_key = f.project_key AND ${conditions.join(' AND ')}
        AND list_contains(${runTagsSql(filters.framework, 'r')}, c.tag))`);
  } else if (filters.framework !== undefined) {
    clauses.push(`len(${runTagsSql(filters.framework, 'r')}) > 0`);
  }
  return { sql: clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`, params };
}

function fromClause(filters: FindingFilters): string {
  const source = filters.snapshot === undefined ? 'latest_metric_findings' : 'metric_findings';
  return `FROM ${source} f
  LEFT JOIN attack_runs r ON r.snapshot_id = f.snapshot_id AND r.attack_run_id = f.attack_run_id
    AND r.project_key = f.project_key`;
}

/** The page of findings: SQL and its parameters. */
export function findingsPageSql(query: FindingsQuery): { sql: string; params: (string | number)[] } {
  const where = whereClause(query.filters);
  const order = SORTS[query.sort] ?? SEVERITY_RANK;
  const direction = query.descending ? 'DESC' : 'ASC';
  const n = where.params.length;
  return {
    sql: `SELECT ${COLUMNS} ${fromClause(query.filters)} ${where.sql}
      ORDER BY ${order} ${direction} NULLS LAST, f.best_score DESC NULLS LAST, f.project_key, f.attack_run_id
      LIMIT $${n + 1} OFFSET $${n + 2}`,
    params: [...where.params, query.limit, query.offset],
  };
}

/** How many findings the filters match. */
export function findingsCountSql(filters: FindingFilters): { sql: string; params: string[] } {
  const where = whereClause(filters);
  return { sql: `SELECT count(*) AS n ${fromClause(filters)} ${where.sql}`, params: where.params };
}

/** The values each select of the filter form offers, from the findings in scope (newest snapshots). */
export const FILTER_CHOICES_SQL = `
SELECT 'project' AS field, project_key AS value FROM latest_metric_findings GROUP BY ALL
UNION ALL SELECT 'category', goal_category FROM latest_metric_findings WHERE goal_category IS NOT NULL GROUP BY ALL
UNION ALL SELECT 'status', finding_status FROM latest_metric_findings GROUP BY ALL
UNION ALL SELECT 'attack', attack_name FROM latest_metric_findings WHERE attack_name IS NOT NULL GROUP BY ALL
UNION ALL SELECT 'transform', t FROM (SELECT unnest(transforms_applied) AS t FROM latest_attack_runs) GROUP BY ALL
UNION ALL SELECT 'snapshot', snapshot_id FROM snapshots GROUP BY ALL
ORDER BY field, value`;
