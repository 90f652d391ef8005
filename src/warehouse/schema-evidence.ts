/**
 * Tables that keep evidence for exchange formats (OSCAL) and risk acceptance: the snapshot's files
 * with their hashes (so an export can cite the exact file a finding comes from without the snapshot
 * directory), and dated risk acceptances from the triage journal (the service stores only the status).
 */
import { ctx, ORDINAL, SNAPSHOT, type TableDef } from './schema-core.js';

export const SNAPSHOT_FILES: TableDef = {
  name: 'snapshot_files',
  doc: "One row per file of a loaded snapshot's manifest: path, kind, sha256, bytes, the request it answered.",
  scope: 'snapshot',
  columns: [
    SNAPSHOT,
    ctx('path', 'VARCHAR'),
    ctx('kind', 'VARCHAR'),
    ctx('sha256', 'VARCHAR'),
    ctx('bytes', 'BIGINT'),
    ctx('request_path', 'VARCHAR'),
    ORDINAL,
  ],
};

export const RISK_ACCEPTANCES: TableDef = {
  name: 'risk_acceptances',
  doc: 'One row per dated risk acceptance of a finding (triage journal): who accepted it, why, until when. snapshot_id is NULL for rows loaded from a journal.',
  scope: 'snapshot',
  columns: [
    SNAPSHOT,
    /** snapshot (the snapshot's triage/acceptances.json) or journal (load --journal). */
    ctx('origin', 'VARCHAR'),
    ctx('org', 'VARCHAR'),
    ctx('workspace', 'VARCHAR'),
    ctx('attack_run_id', 'VARCHAR'),
    ctx('accepted_by', 'VARCHAR'),
    ctx('reason', 'VARCHAR'),
    /** The last day the acceptance holds (YYYY-MM-DD, UTC). */
    ctx('accepted_until', 'VARCHAR'),
    /** The start of the day after accepted_until (UTC): from then on the finding is open again. */
    ctx('expires_at', 'TIMESTAMPTZ'),
    /** When the acceptance was applied (the journal line's time). */
    ctx('accepted_at', 'TIMESTAMPTZ'),
    ctx('journal_source', 'VARCHAR'),
    ORDINAL,
  ],
};
