/**
 * Report models from the DuckDB warehouse (read-only): resolve the snapshot/project scope, read each
 * section with ordered, parameter-bound SQL (model-sql/), then add data quality, provenance and the
 * generated summary. The executive report also compares the project with its previous snapshot.
 *
 *   request ─▶ scope (snapshot, project) ─▶ sections (SQL) ─▶ data quality + provenance ─▶ narrative
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { InvalidOptionError } from '../errors.js';
import { withMetricReadsCached } from '../metrics/read-figures.js';
import { VERSION } from '../version.js';
import { DEFAULT_MIN_TRIALS_FOR_EVIDENCE } from './compliance-state.js';
import type { ReportKind, ReportModel } from './model.js';
import { complianceFrameworks } from './model-sql/compliance.js';
import { buildDataQuality } from './model-sql/data-quality.js';
import { projectMetricsView } from './model-sql/metrics.js';
import { executiveSections, withExecutiveNarrative } from './model-sql/executive.js';
import { portfolioProjects, portfolioTrend } from './model-sql/portfolio.js';
import { resolvePortfolioScopes, resolveProjectScope, snapshotProvenance } from './model-sql/scope.js';
import { readRiskAcceptanceReview } from './model-sql/risk-acceptances.js';
import { readSinceLastSnapshot } from './model-sql/since-last-snapshot.js';
import { complianceNarrative, portfolioNarrative } from './narrative.js';

/** Which report model to build: kind, project, snapshot, scope and thresholds. */
export interface ModelRequest {
  kind: ReportKind;
  /** Project key or id (executive and compliance). */
  project?: string | undefined;
  /** Snapshot id; default: the newest snapshot holding each project's summary. */
  snapshot?: string | undefined;
  /** Only projects of this org (`--org`): chooses among workspaces that use the same project key. */
  org?: string | undefined;
  /** Only projects of this workspace (`--workspace`); see `org`. */
  workspace?: string | undefined;
  /** Compliance framework key (compliance only); default: every framework in the data. */
  framework?: string | undefined;
  /**
   * The snapshot the executive report's "Since last snapshot" section compares with (a run passes its
   * gated baseline, so the report agrees with its diff and gates); null: none, the section is left
   * out. Default: the newest earlier snapshot of the workspace that holds the project.
   */
  since?: string | null | undefined;
  /** Trials a category needs without a success to count as passing (default 10). */
  minTrials?: number | undefined;
  /** Version shown as the renderer in the provenance footer (default: this tool's). */
  toolVersion?: string | undefined;
}

/** Builds the report model a request asks for, reading only the warehouse connection given. */
export async function buildModel(conn: DuckDBConnection, request: ModelRequest): Promise<ReportModel> {
  // Sections read the same project figures and checks: each metric query runs once per build.
  return withMetricReadsCached(conn, () => buildModelOnce(conn, request));
}

async function buildModelOnce(conn: DuckDBConnection, request: ModelRequest): Promise<ReportModel> {
  const toolVersion = request.toolVersion ?? VERSION;
  if (request.kind === 'portfolio') {
    const scopes = await resolvePortfolioScopes(conn, request.snapshot, request);
    const projects = await portfolioProjects(conn, scopes);
    const asrTrend = await portfolioTrend(conn, scopes);
    const metrics = [];
    for (const scope of scopes) metrics.push(await projectMetricsView(conn, scope));
    const base = {
      kind: 'portfolio' as const,
      projects,
      asrTrend,
      metrics,
      dataQuality: await buildDataQuality(conn, scopes),
      provenance: {
        toolVersion,
        snapshots: await snapshotProvenance(
          conn,
          asrTrend.map((point) => point.snapshotId),
          scopes.map((scope) => scope.snapshotId),
        ),
      },
    };
    return { ...base, summary: portfolioNarrative(base) };
  }
  if (!request.project) {
    throw new InvalidOptionError(
      'project',
      (name) => `A ${request.kind} report needs a project (${name('project')}).`,
    );
  }
  const scope = await resolveProjectScope(conn, request.project, request.snapshot, request);
  const dataQuality = await buildDataQuality(conn, [scope]);
  const provenance = { toolVersion, snapshots: await snapshotProvenance(conn, [scope.snapshotId]) };
  const minTrials = request.minTrials ?? DEFAULT_MIN_TRIALS_FOR_EVIDENCE;
  const metrics = [await projectMetricsView(conn, scope, minTrials)];
  if (request.kind === 'executive') {
    return withExecutiveNarrative({
      ...(await executiveSections(conn, scope)),
      metrics,
      sinceLastSnapshot: await readSinceLastSnapshot(conn, scope, request.since),
      riskAcceptances: await readRiskAcceptanceReview(conn, scope),
      dataQuality,
      provenance,
    });
  }
  const frameworks = await complianceFrameworks(conn, scope, request.framework, minTrials);
  return {
    kind: 'compliance',
    project: scope.project,
    summary: complianceNarrative(frameworks),
    frameworks,
    metrics,
    dataQuality,
    provenance,
  };
}
