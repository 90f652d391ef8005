/** Portfolio rows: risk, ASR, findings and coverage per project, and overall ASR across snapshots. */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { PortfolioProjectRow, PortfolioTrendPoint } from '../model.js';
import { readFrameworkCoverage, readProjectFigures } from '../../metrics/read-figures.js';
import { coverageRows, figureSeverities, riskLevelOf } from './executive.js';
import { figureScope } from './metrics.js';
import { isoTimestamp, num, placeholders, queryRows, str } from './query.js';
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

/**
 * Overall ASR of each project in every snapshot that holds its summary, oldest first. One query for
 * all the report's projects: the project figures of every snapshot are computed once, not once per
 * project (a trend spans snapshots, so no snapshot filter narrows them; per project, a portfolio of
 * six computed them six times, and each night of history added to all six).
 */
export async function portfolioTrend(
  conn: DuckDBConnection,
  scopes: readonly ProjectScope[],
): Promise<PortfolioTrendPoint[]> {
  if (scopes.length === 0) return [];
  const scopeRows = scopes.map((_, i) => `(${i}, ${placeholders(3, i * 3)})`).join(', ');
  const rows = await queryRows(
    conn,
    `WITH scope(n, snapshot_id, project_key, project_id) AS (VALUES ${scopeRows})
     SELECT sc.n, e.snapshot_id, ${isoTimestamp('s.fetched_at')} AS fetched_at, e.value AS overall_asr,
            e.denominator AS attacks
     FROM scope sc
     JOIN snapshots r ON r.snapshot_id = sc.snapshot_id
     JOIN snapshots s ON s.org = r.org AND s.workspace = r.workspace AND s.fetched_at <= r.fetched_at
     JOIN metric_project_figures e ON e.snapshot_id = s.snapshot_id
       AND (e.project_key = sc.project_key OR (sc.project_id <> '' AND e.project_id = sc.project_id))
     WHERE e.figure = 'overall_asr'
     ORDER BY sc.n, s.fetched_at, e.snapshot_id`,
    scopes.flatMap((scope) => [scope.snapshotId, scope.project.key, scope.project.id ?? '']),
  );
  const points: PortfolioTrendPoint[] = [];
  for (const row of rows) {
    const scope = scopes[Number(row.n)]!;
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
  return points;
}
