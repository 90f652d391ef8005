/**
 * Compliance sections of one project in one snapshot: every category of each framework (the full
 * taxonomy list, plus any tag the data adds) in one of four states, with the category × assessment
 * ASR heatmap. Assessments whose compliance_matrix was excluded by an analytics warning contribute no
 * cells: unknown, never zero.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { requireKnownFramework } from '../../metrics/known-framework.js';
import { readComplianceCategories } from '../../metrics/read-figures.js';
import { DEFAULT_MIN_TRIALS_FOR_EVIDENCE } from '../compliance-state.js';
import { compareFrameworkKeys, findFramework, frameworkTitle } from '../../taxonomy/frameworks.js';
import type { ComplianceFrameworkSection } from '../model.js';
import { exclusionsFor } from './executive.js';
import { isoTimestamp, num, queryRows, str } from './query.js';
import { readRecommendations, recommendationKey } from './recommendations.js';
import type { ProjectScope } from './scope.js';

export async function complianceFrameworks(
  conn: DuckDBConnection,
  scope: ProjectScope,
  framework: string | undefined,
  minTrials: number = DEFAULT_MIN_TRIALS_FOR_EVIDENCE,
): Promise<ComplianceFrameworkSection[]> {
  const params = [scope.snapshotId, scope.project.key];
  const cells = await queryRows(
    conn,
    `SELECT framework, tag, assessment_id, tested, asr, max_severity, attacks_used, total_trials
     FROM compliance_matrix WHERE snapshot_id = $1 AND project_key = $2
     ORDER BY framework, tag, assessment_id`,
    params,
  );
  const assessments = await queryRows(
    conn,
    `SELECT assessment_id, name, ${isoTimestamp('created_at')} AS created FROM assessments
     WHERE snapshot_id = $1 AND project_key = $2 ORDER BY created_at NULLS LAST, ordinal, assessment_id`,
    params,
  );
  const present = [...new Set(cells.map((row) => String(row.framework)))];
  let keys: string[];
  if (framework !== undefined) {
    requireKnownFramework(framework, present);
    keys = [framework];
  } else {
    keys = present.sort(compareFrameworkKeys);
  }
  const excludes = await exclusionsFor(conn, scope, 'compliance_matrix');

  const recommendations = await readRecommendations(conn, scope);
  const figures = await readComplianceCategories(
    conn,
    { snapshotId: scope.snapshotId, projectKey: scope.project.key },
    minTrials,
  );
  return keys.map((key) => {
    const rows = cells.filter((row) => row.framework === key);
    const known = findFramework(key)?.categories ?? [];
    const measured = figures.filter((figure) => figure.framework === key);
    const tags = [...new Set([...known.map((category) => category.tag), ...measured.map((m) => m.tag)])];
    const order = (tag: string): number => {
      const index = known.findIndex((category) => category.tag === tag);
      return index === -1 ? known.length : index;
    };
    tags.sort((a, b) => order(a) - order(b) || (a < b ? -1 : a > b ? 1 : 0));
    const categories = tags.map((tag) => {
      const figure = measured.find((m) => m.tag === tag);
      const title = known.find((category) => category.tag === tag)?.title ?? null;
      if (!figure) {
        return {
          tag,
          title,
          state: 'not_tested' as const,
          currentState: 'not_tested' as const,
          lastTestedAt: null,
          maxAsr: null,
          maxSeverity: null,
          totalTrials: 0,
          attacksUsed: [],
          assessmentsTested: 0,
        };
      }
      const recommended = recommendations.get(recommendationKey(key, tag));
      return {
        tag,
        title,
        ...(recommended === undefined ? {} : { recommendations: recommended }),
        state: figure.state,
        currentState: figure.currentState,
        lastTestedAt: figure.lastTestedAt,
        maxAsr: figure.maxAsr,
        maxSeverity: figure.maxSeverity,
        totalTrials: figure.totalTrials,
        attacksUsed: figure.attacksUsed,
        assessmentsTested: figure.assessmentsTested,
      };
    });
    const tested = categories.filter((category) => category.state !== 'not_tested').length;
    return {
      framework: key,
      title: frameworkTitle(key),
      testedCategories: tested,
      totalCategories: categories.length,
      coverage: categories.length === 0 ? null : tested / categories.length,
      minTrials,
      categories,
      heatmap: {
        assessments: assessments.map((row) => ({
          id: String(row.assessment_id),
          name: str(row.name),
          date: str(row.created),
        })),
        cells: rows
          .filter((row) => row.tested === true)
          .map((row) => ({
            assessmentId: String(row.assessment_id),
            tag: String(row.tag),
            asr: num(row.asr),
            tested: true,
            trials: num(row.total_trials),
          })),
      },
      excludes,
    };
  });
}
