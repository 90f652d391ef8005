/**
 * Triage as a snapshot knew it. finding_triage (views.ts) is each finding's newest triage state, for
 * what a finding is now; a snapshot's figures take the state known by its fetch time instead.
 */

/**
 * Each finding's triage states, newest first (ordered as finding_triage orders them), each with
 * `known_at`: when airt-report had it — the fetch time of the snapshot whose findings/ held it, or the
 * journal line's time. A snapshot's figures take the first state known by its fetch time
 * (knownBy), not finding_triage's newest: triage taken after a snapshot (a newer snapshot's
 * findings/, a journal loaded later) must not change an older snapshot's figures and reports, or a
 * report attached to an audit could not be re-rendered as it was. One row per finding rather than
 * per snapshot and finding, which a read for one snapshot would compute for every snapshot loaded.
 */
export const FINDING_TRIAGE_HISTORY = `
CREATE OR REPLACE VIEW finding_triage_history AS
WITH triage AS (
  SELECT f.attack_run_id, f.finding_status, f.finding_type, f.severity, f.notes, f.origin, f.snapshot_id, f.ordinal,
         coalesce(f.journal_time, f.updated_at, src.fetched_at) AS as_of,
         coalesce(src.fetched_at, f.journal_time) AS known_at
  FROM findings f LEFT JOIN snapshots src ON src.snapshot_id = f.snapshot_id
  WHERE f.origin IN ('finding_detail', 'journal') AND f.attack_run_id IS NOT NULL
)
SELECT attack_run_id,
       list({'known_at': known_at, 'as_of': as_of, 'finding_status': finding_status,
             'finding_type': finding_type, 'severity': severity, 'notes': notes, 'origin': origin}
            ORDER BY as_of DESC NULLS LAST, origin DESC, snapshot_id DESC NULLS LAST, ordinal DESC) AS states
FROM triage
GROUP BY attack_run_id`;

/**
 * The first of a history row's `states` (structs with `known_at`, newest first: a finding's triage in
 * finding_triage_history, or a finding's dated risk acceptances) known at `fetchedAt`, a snapshot's
 * fetch time; NULL when none was known by then.
 */
export function knownBy(row: string, fetchedAt: string): string {
  return `list_filter(${row}.states, x -> x.known_at <= ${fetchedAt})[1]`;
}
