/**
 * `triage/acceptances.json` of a snapshot: the dated risk acceptances the triage journal holds for
 * the snapshot's org and workspace (the newest per finding), so the snapshot alone says until when
 * each accepted_risk holds. The service stores no such date (its PATCH takes status and notes only).
 */
import { z } from 'zod';

export const RISK_ACCEPTANCES_FILE = 'triage/acceptances.json';

export const AcceptanceRecordSchema = z.strictObject({
  finding_id: z.string(),
  owner: z.string(),
  reason: z.string(),
  /** Last day it holds (YYYY-MM-DD, UTC). */
  until: z.string().regex(/^\d{4}-\d{2}-\d{2}$/u),
  /** When the change that set it was applied (the journal line's time). */
  accepted_at: z.string(),
  /** The journal line's source (`cli`, `apply:<file>#<row>`). */
  source: z.string(),
});
export type AcceptanceRecord = z.infer<typeof AcceptanceRecordSchema>;

export const AcceptanceFileSchema = z.array(AcceptanceRecordSchema);

/** The acceptance a journal line carries, when it is an applied change with a well-formed one. */
export function acceptanceOfLine(data: Record<string, unknown>): AcceptanceRecord | null {
  const acceptance = data.acceptance;
  if (data.outcome !== 'applied' || typeof acceptance !== 'object' || acceptance === null) return null;
  const parsed = AcceptanceRecordSchema.safeParse({
    ...acceptance,
    finding_id: data.finding_id,
    accepted_at: data.time,
    source: data.source,
  });
  return parsed.success ? parsed.data : null;
}
