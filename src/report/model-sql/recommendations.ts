/**
 * The service's `recommendations` of a project's assessments, carried to framework categories. The
 * service keys each recommendation by goal category (`category`); the runs of that goal category in
 * the same assessment carry `compliance_tags`, and those tags name the framework categories the
 * recommendation is about (src/taxonomy/compliance-tags.ts). An assessment whose recommendations or
 * attack runs an analytics warning flags contributes none: their content is not trusted.
 *
 * Items are free-form maps (the spec does not show their keys): a recommendation needs a string
 * `category` and some text (`title`, `detail`, `description` or `recommendation`); anything else is
 * left out. The text is data, escaped by the view like any other.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { frameworkCategoriesOfTags } from '../../taxonomy/compliance-tags.js';
import type { ServiceRecommendation } from '../model.js';
import { json, placeholders, queryRows, str } from './query.js';
import type { ProjectScope } from './scope.js';

/** Slices whose warning makes an assessment's recommendations unusable here. */
const NEEDED_SLICES = ['recommendations', 'attack_runs'];

const text = (item: Record<string, unknown>, keys: readonly string[]): string | null => {
  for (const key of keys) {
    const value = item[key];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return null;
};

/** The recommendations of one assessment item list, or none when it is not a list. */
function parseItems(raw: unknown): { category: string; rec: Omit<ServiceRecommendation, 'assessment'> }[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return [];
    const fields = item as Record<string, unknown>;
    const category = text(fields, ['category', 'goal_category']);
    const title = text(fields, ['title']);
    const detail = text(fields, ['detail', 'description', 'recommendation']);
    if (category === null || (title === null && detail === null)) return [];
    return [
      { category, rec: { goalCategory: category, priority: text(fields, ['priority']), title, detail } },
    ];
  });
}

/** Key of a framework category in the map readRecommendations returns. */
export function recommendationKey(framework: string, tag: string): string {
  return JSON.stringify([framework, tag]);
}

/**
 * The recommendations per framework category (see recommendationKey): for each goal category that
 * maps to it, the newest assessment's recommendation, in the order the assessments were created
 * (newest first) and the service listed them.
 */
export async function readRecommendations(
  conn: DuckDBConnection,
  scope: ProjectScope,
): Promise<Map<string, ServiceRecommendation[]>> {
  const params = [scope.snapshotId, scope.project.key];
  const assessments = await queryRows(
    conn,
    `SELECT a.assessment_id, a.name, CAST(a.recommendations AS VARCHAR) AS recommendations
     FROM assessments a
     WHERE a.snapshot_id = $1 AND a.project_key = $2 AND a.recommendations IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM analytics_warnings w
                       WHERE w.snapshot_id = a.snapshot_id AND w.project_key = a.project_key
                         AND w.assessment_id = a.assessment_id AND w.slice IN (${placeholders(NEEDED_SLICES.length, 2)}))
     ORDER BY a.created_at DESC NULLS LAST, a.ordinal, a.assessment_id`,
    [...params, ...NEEDED_SLICES],
  );
  const runs = await queryRows(
    conn,
    `SELECT assessment_id, goal_category, CAST(compliance_tags AS VARCHAR) AS compliance_tags
     FROM attack_runs WHERE snapshot_id = $1 AND project_key = $2 AND goal_category IS NOT NULL
       AND compliance_tags IS NOT NULL
     ORDER BY assessment_id, goal_category, attack_run_id`,
    params,
  );
  const byCategory = new Map<string, Map<string, { framework: string; tag: string }>>();
  for (const run of runs) {
    const key = JSON.stringify([String(run.assessment_id), String(run.goal_category)]);
    const refs = byCategory.get(key) ?? new Map<string, { framework: string; tag: string }>();
    for (const ref of frameworkCategoriesOfTags(json(run.compliance_tags))) {
      refs.set(recommendationKey(ref.framework, ref.tag), ref);
    }
    byCategory.set(key, refs);
  }
  const result = new Map<string, ServiceRecommendation[]>();
  for (const assessment of assessments) {
    const id = String(assessment.assessment_id);
    for (const { category, rec } of parseItems(json(assessment.recommendations))) {
      for (const key of byCategory.get(JSON.stringify([id, category]))?.keys() ?? []) {
        const list = result.get(key) ?? [];
        // The newest assessment's word on a goal category stands; older ones repeat or are stale.
        if (!list.some((seen) => seen.goalCategory === rec.goalCategory)) {
          list.push({ ...rec, assessment: str(assessment.name) ?? id });
        }
        result.set(key, list);
      }
    }
  }
  return result;
}
