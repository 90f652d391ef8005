/**
 * A risk_acceptances row from an acceptance record (a snapshot's triage/acceptances.json or an
 * applied journal line). `expires_at` is computed once here: 00:00 UTC after the last day it holds.
 */
import type { AcceptanceRecord } from '../snapshot/risk-acceptances-file.js';
import type { CellValue } from './db.js';

/** 00:00 UTC of the day after `until` (YYYY-MM-DD); null for a date that does not exist. */
export function expiresAt(until: string): string | null {
  const date = new Date(`${until}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== until) return null;
  date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString();
}

export function acceptanceValues(
  record: AcceptanceRecord,
  context: {
    snapshotId: string | null;
    origin: 'snapshot' | 'journal';
    manifest: { org: string; workspace: string } | null;
    org?: string | null;
    workspace?: string | null;
    ordinal: number;
  },
): Record<string, CellValue> {
  return {
    snapshot_id: context.snapshotId,
    origin: context.origin,
    org: context.manifest?.org ?? context.org ?? null,
    workspace: context.manifest?.workspace ?? context.workspace ?? null,
    attack_run_id: record.finding_id.toLowerCase(),
    accepted_by: record.owner,
    reason: record.reason,
    accepted_until: record.until,
    expires_at: expiresAt(record.until),
    accepted_at: record.accepted_at,
    journal_source: record.source,
    ordinal: context.ordinal,
  };
}
