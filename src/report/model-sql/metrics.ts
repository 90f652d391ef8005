/** The metrics-layer view of a project (figures, compliance states, cross-checks) for report models. */
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  FIGURE_NAMES,
  readAsrBy,
  readComplianceCategories,
  readConsistency,
  readFrameworkCoverage,
  readProjectFigures,
  type ProjectFigures,
} from '../../metrics/read-figures.js';
import type { MetricFigure, ProjectMetricsView } from '../model.js';
import type { ProjectScope } from './scope.js';

export const figureScope = (scope: ProjectScope) => ({
  snapshotId: scope.snapshotId,
  projectKey: scope.project.key,
});

/** A figure as the JSON report shows it (the service's value lives in `consistency`). */
export function publicFigure(figure: ProjectFigures[keyof ProjectFigures]): MetricFigure {
  const { service_value: _service, ...rest } = figure;
  return rest;
}

export async function projectMetricsView(
  conn: DuckDBConnection,
  scope: ProjectScope,
  minTrials?: number,
): Promise<ProjectMetricsView> {
  const key = figureScope(scope);
  const figures = await readProjectFigures(conn, key);
  const categories = await readComplianceCategories(conn, key, minTrials);
  const coverage = await readFrameworkCoverage(conn, key);
  const consistency = await readConsistency(conn, key);
  const categoryAsr = await readAsrBy(conn, key, 'category');
  return {
    project: scope.project,
    snapshotId: scope.snapshotId,
    figures: Object.fromEntries(FIGURE_NAMES.map((name) => [name, publicFigure(figures[name])])),
    compliance: coverage.map((framework) => ({
      framework: framework.framework,
      coverage: framework.coverage,
      disagreements: framework.disagreements,
      categories: categories
        .filter((category) => category.framework === framework.framework)
        .map((category) => ({
          id: category.tag,
          state: category.state,
          current_state: category.currentState,
          last_tested_at: category.lastTestedAt,
        })),
    })),
    consistency: consistency.map((check) => ({
      check: check.check,
      service_value: check.service_value,
      recomputed_value: check.recomputed_value,
      status: check.status,
      detail: check.detail,
    })),
    categories: categoryAsr.map((row) => ({
      id: row.key,
      value: row.value,
      numerator: row.numerator,
      denominator: row.denominator,
      trials: row.trials,
      evidence: row.evidence,
      source: 'recomputed',
      excluded_assessments: row.excluded_assessments,
    })),
  };
}
