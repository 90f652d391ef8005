/** Portfolio rows: risk, ASR, findings and coverage per project, and overall ASR across snapshots. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { compareFrameworkKeys, frameworkTitle } from '../frameworks.js';
import type { PortfolioProjectRow, PortfolioTrendPoint } from '../model.js';
import { severityCounts } from './executive.js';
import { isoTimestamp, num, percentToFraction, queryRows, str } from './query.js';
import type { ProjectScope } from './scope.js';

export async function portfolioProjects(
  conn: DuckDBConnection,
  scopes: readonly ProjectScope[],
): Promise<PortfolioProjectRow[]> {
  const result: PortfolioProjectRow[] = [];
  for (const scope of scopes) {
    const params = [scope.snapshotId, scope.project.key];
    const [summary] = await queryRows(
      conn,
      `SELECT overall_risk_level, overall_risk_score, overall_asr, total_assessments, critical_findings, high_findings,
              medium_findings, low_findings, severity_distribution::VARCHAR AS severity_distribution
       FROM executive_summary WHERE snapshot_id = $1 AND project_key = $2`,
      params,
    );
    const posture = await queryRows(
      conn,
      `SELECT framework, coverage_pct FROM compliance_posture WHERE snapshot_id = $1 AND project_key = $2 ORDER BY framework, ordinal`,
      params,
    );
    result.push({
      project: scope.project,
      snapshotId: scope.snapshotId,
      riskLevel: str(summary?.overall_risk_level),
      riskScore: num(summary?.overall_risk_score),
      overallAsr: num(summary?.overall_asr),
      assessments: num(summary?.total_assessments),
      findingsBySeverity: severityCounts(summary),
      coverage: posture
        .sort((a, b) => compareFrameworkKeys(String(a.framework), String(b.framework)))
        .map((row) => ({
          framework: String(row.framework),
          title: frameworkTitle(String(row.framework)),
          coveragePct: percentToFraction(num(row.coverage_pct)),
        })),
    });
  }
  return result;
}

/** Overall ASR of each project in every snapshot that holds its summary, oldest first. */
export async function portfolioTrend(
  conn: DuckDBConnection,
  scopes: readonly ProjectScope[],
): Promise<PortfolioTrendPoint[]> {
  const points: PortfolioTrendPoint[] = [];
  for (const scope of scopes) {
    const rows = await queryRows(
      conn,
      `SELECT e.snapshot_id, ${isoTimestamp('s.fetched_at')} AS fetched_at, e.overall_asr
       FROM executive_summary e JOIN snapshots s ON s.snapshot_id = e.snapshot_id
       JOIN projects p ON p.snapshot_id = e.snapshot_id AND p.project_key = e.project_key
       WHERE p.manifest_status = 'ok' AND s.org = (SELECT org FROM snapshots WHERE snapshot_id = $1)
         AND s.workspace = (SELECT workspace FROM snapshots WHERE snapshot_id = $1)
         AND (e.project_key = $2 OR ($3 <> '' AND e.project_id = $3))
         AND s.fetched_at <= (SELECT fetched_at FROM snapshots WHERE snapshot_id = $1)
       ORDER BY s.fetched_at, e.snapshot_id`,
      [scope.snapshotId, scope.project.key, scope.project.id ?? ''],
    );
    for (const row of rows) {
      points.push({
        projectKey: scope.project.key,
        projectName: scope.project.name,
        ...(scope.project.workspace === undefined ? {} : { workspace: scope.project.workspace }),
        snapshotId: String(row.snapshot_id),
        fetchedAt: str(row.fetched_at),
        overallAsr: num(row.overall_asr),
      });
    }
  }
  return points;
}
