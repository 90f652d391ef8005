/**
 * Dated risk acceptances that still hold at a snapshot's time and end within the warning window
 * (30 days), from the metrics layer's metric_findings, so the gate report, the diff and the reports
 * list the same ones: an acceptance nobody renews quietly turns its finding open again.
 */
import type { DuckDBConnection } from '@duckdb/node-api';

/** How far ahead an ending acceptance is listed. */
export const ACCEPTANCE_WARNING_DAYS = 30;

export interface ExpiringAcceptance {
  project_key: string;
  attack_run_id: string;
  attack_name: string | null;
  goal_category: string | null;
  severity: string;
  accepted_by: string | null;
  reason: string | null;
  /** Last day it holds (YYYY-MM-DD). */
  accepted_until: string;
  /** Whole days from the snapshot's fetch time to the end of the acceptance. */
  days_left: number;
}

/** Acceptances of `snapshotId` (optionally only `projects`) still holding but ending within ACCEPTANCE_WARNING_DAYS. */
export async function readExpiringAcceptances(
  conn: DuckDBConnection,
  snapshotId: string,
  projects: readonly string[] | null = null,
): Promise<ExpiringAcceptance[]> {
  return (await readAcceptancesToReview(conn, snapshotId, projects))
    .filter((acceptance) => acceptance.state === 'expiring')
    .map(({ state: _state, ...expiring }) => expiring);
}

/** An acceptance to review: still holding but ending soon (`expiring`), or over (`expired`, finding open). */
export interface ReviewedAcceptance extends ExpiringAcceptance {
  state: 'expiring' | 'expired';
}

/**
 * The acceptances a reader of `snapshotId` (optionally only `projects`) must act on: those ending
 * within ACCEPTANCE_WARNING_DAYS of the snapshot's fetch time (its as-of date) and those already over,
 * whose findings count as open again (`days_left` negative). Expired first, then by end date. The
 * named query `@expiring_acceptances` answers the same over each project's newest snapshot.
 */
export async function readAcceptancesToReview(
  conn: DuckDBConnection,
  snapshotId: string,
  projects: readonly string[] | null = null,
): Promise<ReviewedAcceptance[]> {
  const reader = await conn.runAndReadAll(
    `SELECT f.project_key, f.attack_run_id, f.attack_name, f.goal_category, f.severity, f.accepted_by,
            f.acceptance_reason, f.accepted_until,
            CAST(floor(epoch(f.expires_at - s.fetched_at) / 86400) AS BIGINT) AS days_left,
            CASE f.acceptance_state WHEN 'expired' THEN 'expired' ELSE 'expiring' END AS state
     FROM metric_findings f JOIN snapshots s ON s.snapshot_id = f.snapshot_id
     WHERE f.snapshot_id = $1 AND f.counted
       AND (f.acceptance_state = 'expired'
            OR (f.acceptance_state = 'accepted' AND f.expires_at <= s.fetched_at + INTERVAL ${ACCEPTANCE_WARNING_DAYS} DAY))
     ORDER BY f.acceptance_state = 'accepted', f.expires_at, f.project_key, f.attack_run_id`,
    [snapshotId],
  );
  const wanted = projects === null ? null : new Set(projects);
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  const maybe = (value: unknown): string | null => (typeof value === 'string' ? value : null);
  return reader
    .getRowObjectsJS()
    .filter((row) => wanted === null || wanted.has(text(row.project_key)))
    .map((row) => ({
      project_key: text(row.project_key),
      attack_run_id: text(row.attack_run_id),
      attack_name: maybe(row.attack_name),
      goal_category: maybe(row.goal_category),
      // NULL: the run lacks its best_score and triage gave no severity (unknown, not a blank).
      severity: maybe(row.severity) ?? 'unknown',
      accepted_by: maybe(row.accepted_by),
      reason: maybe(row.acceptance_reason),
      accepted_until: text(row.accepted_until),
      days_left: Number(row.days_left),
      state: row.state === 'expired' ? 'expired' : 'expiring',
    }));
}
