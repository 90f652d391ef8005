/** Portfolio rows: risk, ASR, findings and coverage per project, and overall ASR across snapshots. */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { PortfolioProjectRow, PortfolioTrendPoint } from '../model.js';
import { readFrameworkCoverage, readProjectFigures } from '../../metrics/read-figures.js';
import { coverageRows, figureSeverities, riskLevelOf } from './executive.js';
import { figureScope } from './metrics.js';
import { isoTimestamp, num, queryRows, str } from './query.js';
import type { ProjectScope } from './scope.js';

export async function portfolioProjects(
  conn: DuckDBConnection,
  scopes: readonly ProjectScope[],
): Promise<PortfolioProjectRow[]> {
  const result: PortfolioProjectRow[] = [];
  for (const scope of scopes) {
    const key = figureScope(scope);
    const figures = await readProjectFigures(conn, key);
    const coverage = await readFrameworkCoverage(conn, key);
    result.push({
      project: scope.project,
      snapshotId: scope.snapshotId,
      riskLevel: riskLevelOf(figures.risk_score.value),
      riskScore: figures.risk_score.value,
      overallAsr: figures.overall_asr.value,
      overallAsrSuccessful: figures.overall_asr.numerator ?? null,
      overallAsrAttacks: figures.overall_asr.denominator ?? null,
      assessments: figures.assessments.value,
      findingsBySeverity: figureSeverities(figures),
      coverage: coverageRows(coverage).map((row) => ({
        framework: row.framework,
        title: row.title,
        coveragePct: row.coveragePct,
        failing: row.failing,
        insufficientEvidence: row.insufficientEvidence ?? null,
        passing: row.passing,
        untested: row.untested,
        testedCategories: row.testedCategories,
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
      `SELECT e.snapshot_id, ${isoTimestamp('s.fetched_at')} AS fetched_at, e.value AS overall_asr,
              e.denominator AS attacks
       FROM metric_project_figures e JOIN snapshots s ON s.snapshot_id = e.snapshot_id
       WHERE e.figure = 'overall_asr' AND s.org = (SELECT org FROM snapshots WHERE snapshot_id = $1)
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
        overallAsrAttacks: num(row.attacks),
      });
    }
  }
  return points;
}
