/**
 * The views every query and report uses. `latest_<table>` keeps, for each project, the rows of the
 * newest snapshot that holds the project's summary (newest by fetched_at, then snapshot id).
 *
 * analytics_warnings are honoured upstream: a flagged slice is never written to the clean tables (its
 * raw value sits in analytics_warnings.raw_value), so these views cannot aggregate it. What they add is
 * the count of excluded assessments (`analytics_exclusions`) that aggregates must report.
 */
import { TABLES } from './schema.js';

/** The newest snapshot per (org, workspace, project) that holds the project's summary. */
const LATEST_PROJECT_SNAPSHOTS = `
CREATE OR REPLACE VIEW latest_project_snapshots AS
SELECT p.snapshot_id, p.project_id, p.project_key, s.org, s.workspace, s.fetched_at
FROM projects p JOIN snapshots s ON s.snapshot_id = p.snapshot_id
WHERE p.manifest_status = 'ok'
QUALIFY row_number() OVER (
  PARTITION BY s.org, s.workspace, coalesce(p.project_id, p.project_key)
  ORDER BY s.fetched_at DESC, s.snapshot_id DESC) = 1`;

function latestView(table: string): string {
  return `
CREATE OR REPLACE VIEW latest_${table} AS
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
 * message_parts with every part's text: a part whose text equals its trial's candidate/response is
 * stored once, in trials (message_parts.text NULL, text_in_trial TRUE); this puts it back.
 */
const MESSAGE_PARTS_RESOLVED = `
CREATE OR REPLACE VIEW message_parts_resolved AS
SELECT p.* REPLACE (
  CASE WHEN p.text_in_trial THEN CASE p.role WHEN 'candidate' THEN t.candidate ELSE t.response END
       ELSE p.text END AS text)
FROM message_parts p
LEFT JOIN trials t ON p.text_in_trial AND t.snapshot_id = p.snapshot_id
  AND t.assessment_id = p.assessment_id AND t.trial_ordinal = p.trial_ordinal`;

/** All view statements, in dependency order. */
export function viewStatements(): string[] {
  const latest = TABLES.filter((t) => t.scope === 'project').map((t) => latestView(t.name));
  return [
    LATEST_PROJECT_SNAPSHOTS,
    ...latest,
    ANALYTICS_EXCLUSIONS,
    LATEST_ANALYTICS_EXCLUSIONS,
    FINDING_TRIAGE,
    MESSAGE_PARTS_RESOLVED,
  ];
}
