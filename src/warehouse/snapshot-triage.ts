/**
 * Triage as a snapshot holds it. A snapshot's figures (metric_findings, latest_findings, the reports,
 * gates and the diff) take a finding's triage and its dated risk acceptance from that snapshot's own
 * files only: the FindingDetail bodies in its findings/ and its triage/acceptances.json, which a
 * snapshot taken with the triage journal carries (every decision applied by then). So a snapshot's
 * figures are a function of its files: loading another snapshot (newer, or an older one backfilled)
 * or a journal (`load --journal`) never changes them, and a report attached to an audit re-renders as
 * it was, whatever was loaded since and in whatever order. finding_triage (views.ts) is what a finding
 * is now: the newest state any snapshot or journal line gave it.
 */

/**
 * Each snapshot's triage state of each finding its findings/ holds: the newest FindingDetail (by the
 * service's updated_at, then the later in the file), as finding_triage orders a snapshot's own rows.
 */
export const SNAPSHOT_FINDING_TRIAGE = `
CREATE OR REPLACE VIEW snapshot_finding_triage AS
SELECT snapshot_id, attack_run_id, finding_status, finding_type, severity, notes, updated_at AS as_of
FROM findings
WHERE origin = 'finding_detail' AND snapshot_id IS NOT NULL AND attack_run_id IS NOT NULL
QUALIFY row_number() OVER (
  PARTITION BY snapshot_id, attack_run_id ORDER BY updated_at DESC NULLS LAST, ordinal DESC) = 1`;

/**
 * Each snapshot's dated risk acceptance of each finding its triage/acceptances.json lists: the newest
 * (by accepted_at, then the later in the file). Keyed by the lowercased finding id, as the journal
 * writes it.
 */
export const SNAPSHOT_RISK_ACCEPTANCES = `
CREATE OR REPLACE VIEW snapshot_risk_acceptances AS
SELECT snapshot_id, lower(attack_run_id) AS attack_run_id, accepted_by, reason, accepted_until, expires_at,
       accepted_at
FROM risk_acceptances
WHERE snapshot_id IS NOT NULL AND attack_run_id IS NOT NULL
QUALIFY row_number() OVER (
  PARTITION BY snapshot_id, lower(attack_run_id) ORDER BY accepted_at DESC NULLS LAST, ordinal DESC) = 1`;
