/**
 * The executive report's "Risk acceptances to review": the project's dated acceptances that end within
 * the warning window of the snapshot's fetch time, and those already over (their findings open again),
 * as the metrics layer judges them (the gate report, the diff and `@expiring_acceptances` list the same).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { ACCEPTANCE_WARNING_DAYS, readAcceptancesToReview } from '../../metrics/read-acceptances.js';
import type { RiskAcceptanceReview } from '../model.js';
import type { ProjectScope } from './scope.js';

/** The project's acceptances to review in its snapshot, with the window they were judged by. */
export async function readRiskAcceptanceReview(
  conn: DuckDBConnection,
  scope: ProjectScope,
): Promise<RiskAcceptanceReview> {
  const rows = await readAcceptancesToReview(conn, scope.snapshotId, [scope.project.key]);
  return {
    windowDays: ACCEPTANCE_WARNING_DAYS,
    rows: rows.map((row) => ({
      findingId: row.attack_run_id,
      attack: row.attack_name,
      goalCategory: row.goal_category,
      severity: row.severity,
      owner: row.accepted_by,
      reason: row.reason,
      until: row.accepted_until,
      daysLeft: row.days_left,
      state: row.state,
    })),
  };
}
