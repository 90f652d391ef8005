/**
 * The report models the overview and framework pages draw, built from the report's own section
 * readers (report/model-sql) without the parts those pages do not show (data quality, the JSON
 * report's full metrics), which cost seconds on a large warehouse. Same readers, same figures.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { DEFAULT_MIN_TRIALS_FOR_EVIDENCE } from '../report/compliance-state.js';
import { emptyDataQuality, type ComplianceModel, type PortfolioModel } from '../report/model.js';
import { complianceFrameworks } from '../report/model-sql/compliance.js';
import { portfolioProjects, portfolioTrend } from '../report/model-sql/portfolio.js';
import { resolvePortfolioScopes, resolveProjectScope } from '../metrics/project-scope.js';
import { VERSION } from '../version.js';
import { asText } from './html.js';

/** Open findings per `snapshot project`, the metrics layer's findings_open figure. */
export type OpenFindings = Map<string, number | null>;

/** The portfolio of each project's newest snapshot, and its open findings. */
export async function overviewModel(
  conn: DuckDBConnection,
): Promise<{ model: PortfolioModel; open: OpenFindings }> {
  const scopes = await resolvePortfolioScopes(conn, undefined, {});
  const model: PortfolioModel = {
    kind: 'portfolio',
    projects: await portfolioProjects(conn, scopes),
    asrTrend: await portfolioTrend(conn, scopes),
    summary: [],
    dataQuality: emptyDataQuality(),
    provenance: { toolVersion: VERSION, snapshots: [] },
  };
  const reader = await conn.runAndReadAll(
    `SELECT snapshot_id, project_key, value FROM latest_metric_project_figures WHERE figure = 'findings_open'`,
  );
  const open: OpenFindings = new Map();
  for (const [snapshot, project, value] of reader.getRowsJS()) {
    open.set(`${asText(snapshot)} ${asText(project)}`, typeof value === 'number' ? value : null);
  }
  return { model, open };
}

/** One framework of one project (newest snapshot unless named), as the compliance report reads it. */
export async function frameworkModel(
  conn: DuckDBConnection,
  project: string,
  snapshot: string | undefined,
  framework: string,
): Promise<{ model: ComplianceModel; snapshotId: string }> {
  const scope = await resolveProjectScope(conn, project, snapshot);
  const frameworks = await complianceFrameworks(conn, scope, framework, DEFAULT_MIN_TRIALS_FOR_EVIDENCE);
  const model: ComplianceModel = {
    kind: 'compliance',
    project: scope.project,
    summary: [],
    frameworks,
    dataQuality: emptyDataQuality(),
    provenance: { toolVersion: VERSION, snapshots: [] },
  };
  return { model, snapshotId: scope.snapshotId };
}
