/**
 * `report --format json`: the report's figures for other tools, as the metrics layer defines them.
 * The shape is fixed by schemas/report.schema.json (a test validates every kind against it):
 *
 *   { format, kind, snapshots, projects: [{ project, snapshot_id, figures, compliance, consistency, categories }],
 *     figures?, compliance?, consistency?, categories?, risk_acceptances?, unverified_snapshots?, data_quality }
 *
 * `unverified_snapshots` is present only when a snapshot was loaded although it failed verification
 * (forced): which, the files that did not match its manifest, and the report's warning sentence.
 *
 * `categories` is the ASR per goal category with its numerator, denominator, trials and evidence.
 * `risk_acceptances` (executive) lists the dated acceptances that ended or end within the window, as
 * the report's "Risk acceptances to review" section and `@expiring_acceptances` do.
 *
 * `figures`, `compliance` and `consistency` at the top level are the single project's (executive and
 * compliance reports); a portfolio lists them per project. Keys are written in a fixed order and
 * numbers as JSON numbers, so the same model gives the same bytes.
 */
import type { ProjectMetricsView, ReportModel, RiskAcceptanceReview } from './model.js';
import { unverifiedSnapshots, unverifiedWarning } from './unverified-banner.js';

export const REPORT_JSON_FORMAT = 'airt-report/report-1';

/** Sorts object keys recursively (arrays keep their order) for deterministic bytes. */
function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, stable((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

function projectEntry(view: ProjectMetricsView) {
  return {
    project: { key: view.project.key, id: view.project.id, name: view.project.name },
    snapshot_id: view.snapshotId,
    figures: view.figures,
    compliance: view.compliance,
    consistency: view.consistency,
    categories: view.categories,
  };
}

function acceptancesEntry(review: RiskAcceptanceReview) {
  return {
    window_days: review.windowDays,
    rows: review.rows.map((row) => ({
      attack_run_id: row.findingId,
      attack_name: row.attack,
      goal_category: row.goalCategory,
      severity: row.severity,
      state: row.state,
      accepted_by: row.owner,
      reason: row.reason,
      accepted_until: row.until,
      days_left: row.daysLeft,
    })),
  };
}

/** The JSON text of a report model (ends with a newline). */
export function renderReportJson(model: ReportModel): string {
  const projects = (model.metrics ?? []).map(projectEntry);
  const single = model.kind === 'portfolio' ? null : (projects[0] ?? null);
  const unverified = unverifiedSnapshots(model.provenance.snapshots);
  const document = {
    format: REPORT_JSON_FORMAT,
    kind: model.kind,
    snapshots: model.provenance.snapshots.map((snapshot) => ({
      snapshot_id: snapshot.snapshotId,
      org: snapshot.org,
      workspace: snapshot.workspace,
      fetched_at: snapshot.fetchedAt,
      root_sha256: snapshot.rootSha256,
    })),
    projects,
    ...(single === null
      ? {}
      : {
          figures: single.figures,
          compliance: single.compliance,
          consistency: single.consistency,
          categories: single.categories,
        }),
    // Only when a snapshot was loaded unverified (forced): these figures are not that snapshot's.
    ...(unverified.length === 0
      ? {}
      : {
          unverified_snapshots: unverified.map((snapshot) => ({
            snapshot_id: snapshot.snapshotId,
            files_not_matching_manifest: snapshot.unverified?.files ?? [],
            warning: unverifiedWarning(snapshot),
          })),
        }),
    ...(model.kind === 'executive' && model.riskAcceptances !== undefined
      ? { risk_acceptances: acceptancesEntry(model.riskAcceptances) }
      : {}),
    data_quality: {
      analytics_warnings: model.dataQuality.analyticsWarnings.map((warning) => ({
        project_key: warning.project.key,
        assessment_id: warning.assessmentId,
        field: warning.field,
        reason: warning.reason,
        excluded: warning.excluded,
      })),
      consistency_issues: model.dataQuality.consistency,
      partial_snapshots: model.dataQuality.partialSnapshots,
    },
  };
  return `${JSON.stringify(stable(document), null, 2)}\n`;
}
