/**
 * The data-quality section from the warehouse: analytics warnings (and what they excluded), legacy
 * compliance entries, partial snapshots and their failed requests, possibly truncated trial lists,
 * schema drift and summary totals that disagree with the assessments they summarize.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { readConsistency } from '../../metrics/read-figures.js';
import type { DataQuality } from '../model.js';
import { figureScope } from './metrics.js';
import type { ProjectScope } from './scope.js';
import { json, num, placeholders, queryRows, str } from './query.js';

/** Reader's words for what the metrics layer's views and the report left out. */
const FIGURE_WORDS: Record<string, string> = {
  overall_asr: 'overall ASR',
  risk_score: 'risk score',
  avg_risk_score: 'average risk score',
  findings_total: 'finding counts by severity and open findings',
  category_asr: 'ASR by goal category',
  attack_asr: 'attack effectiveness',
  transform_asr: 'transform lift',
  compliance: 'compliance coverage and category states',
  trend: 'the risk trend',
  top_findings: 'the top findings list',
};

/**
 * What was actually left out, per assessment of the project, read back from the metric views' exclusion
 * lists (and the top findings the report dropped), so the text can never claim an exclusion that did
 * not happen. One query for the whole project: each metric view it reads is planned once, not once per
 * analytics warning.
 */
const ACTUAL_EXCLUSIONS = `
SELECT DISTINCT what, assessment_id FROM (
  SELECT figure AS what, unnest(excluded_assessments) AS assessment_id FROM metric_project_figures
  WHERE snapshot_id = $1 AND project_key = $2 AND figure IN ('overall_asr', 'risk_score', 'findings_total')
  UNION ALL SELECT CASE slice WHEN 'asr_by_category' THEN 'category_asr' WHEN 'asr_by_attack' THEN 'attack_asr'
    WHEN 'asr_by_transform' THEN 'transform_asr' ELSE 'top_findings' END, assessment_id FROM analytics_warnings
  WHERE snapshot_id = $1 AND project_key = $2
    AND slice IN ('asr_by_category', 'asr_by_attack', 'asr_by_transform', 'top_findings')
  UNION ALL SELECT 'compliance', unnest(excluded_assessments) FROM metric_framework_coverage
  WHERE snapshot_id = $1 AND project_key = $2
  UNION ALL SELECT 'trend', assessment_id FROM metric_trend
  WHERE snapshot_id = $1 AND project_key = $2 AND excluded
)`;

const ORDER = Object.keys(FIGURE_WORDS);

/** The figures a warning on each slice can take an assessment out of (the rest are other slices' doing). */
const CONSUMERS: Record<string, readonly string[]> = {
  overall_asr: ['overall_asr', 'risk_score', 'trend'],
  attack_runs: ['overall_asr', 'risk_score', 'trend', 'findings_total'],
  severity_breakdown: ['findings_total'],
  asr_by_category: ['category_asr'],
  asr_by_attack: ['attack_asr'],
  asr_by_transform: ['transform_asr'],
  compliance_matrix: ['compliance'],
  top_findings: ['top_findings'],
};

/** assessment id → the figures (FIGURE_WORDS keys) that left it out, for one project (ACTUAL_EXCLUSIONS). */
async function actualExclusions(
  conn: DuckDBConnection,
  scope: ProjectScope,
): Promise<Map<string, Set<string>>> {
  const byAssessment = new Map<string, Set<string>>();
  for (const row of await queryRows(conn, ACTUAL_EXCLUSIONS, [scope.snapshotId, scope.project.key])) {
    const id = String(row.assessment_id);
    const what = byAssessment.get(id) ?? new Set<string>();
    what.add(String(row.what));
    byAssessment.set(id, what);
  }
  return byAssessment;
}

/** What a warning on `slice` took the assessment out of, in the reader's words. */
function excludedText(found: ReadonlySet<string> | undefined, slice: string | null): string {
  const consumers = slice === null ? [] : (CONSUMERS[slice] ?? []);
  const what = [...(found ?? [])]
    .filter((key) => consumers.includes(key))
    .sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b));
  if (what.length === 0)
    return 'its flagged values (not used by any figure of this report; kept for audit only)';
  return `this assessment, left out of: ${what.map((key) => FIGURE_WORDS[key] ?? key).join('; ')}`;
}

async function scopeQuality(
  conn: DuckDBConnection,
  scope: ProjectScope,
  quality: DataQuality,
): Promise<void> {
  const params = [scope.snapshotId, scope.project.key];
  const warnings = await queryRows(
    conn,
    `SELECT w.assessment_id, a.name AS assessment_name, w.field, w.reason, w.slice
     FROM analytics_warnings w
     LEFT JOIN assessments a ON a.snapshot_id = w.snapshot_id AND a.project_key = w.project_key AND a.assessment_id = w.assessment_id
     WHERE w.snapshot_id = $1 AND w.project_key = $2
     ORDER BY a.created_at NULLS LAST, w.assessment_id, w.ordinal`,
    params,
  );
  // Only a project with warnings pays for reading the exclusions back.
  const exclusions =
    warnings.length > 0 ? await actualExclusions(conn, scope) : new Map<string, Set<string>>();
  for (const row of warnings) {
    const field = str(row.field) ?? '(unnamed field)';
    quality.analyticsWarnings.push({
      project: scope.project,
      assessmentId: String(row.assessment_id),
      assessmentName: str(row.assessment_name),
      field,
      reason: str(row.reason) ?? 'no reason given',
      excluded: excludedText(exclusions.get(String(row.assessment_id)), str(row.slice)),
    });
  }
  for (const row of await queryRows(
    conn,
    `SELECT m.assessment_id, any_value(a.name) AS assessment_name, count(*) AS cells, min(a.created_at) AS created
     FROM compliance_matrix m
     LEFT JOIN assessments a ON a.snapshot_id = m.snapshot_id AND a.project_key = m.project_key AND a.assessment_id = m.assessment_id
     WHERE m.snapshot_id = $1 AND m.project_key = $2 AND m.legacy
     GROUP BY m.assessment_id ORDER BY created NULLS LAST, m.assessment_id`,
    params,
  )) {
    quality.legacyData.push({
      project: scope.project,
      assessmentId: String(row.assessment_id),
      assessmentName: str(row.assessment_name),
      description: `${num(row.cells) ?? 0} compliance-matrix entries in the older format (no attacks_used or total_trials): their trial counts are unknown, so none of them can count as passing`,
    });
  }
  for (const row of await queryRows(
    conn,
    `SELECT w.detail::VARCHAR AS detail, w.message,
            (SELECT count(*) FROM trials t WHERE t.snapshot_id = w.snapshot_id AND t.project_key = $2
               AND t.assessment_id = json_extract_string(w.detail, '$.assessment_id')) AS stored,
            (SELECT json_extract(s.options, '$.trials_limit')::BIGINT FROM snapshots s WHERE s.snapshot_id = w.snapshot_id) AS trials_limit,
            (SELECT a.name FROM assessments a WHERE a.snapshot_id = w.snapshot_id AND a.project_key = $2
               AND a.assessment_id = json_extract_string(w.detail, '$.assessment_id')) AS assessment_name
     FROM load_warnings w
     WHERE w.snapshot_id = $1 AND w.code = 'possibly_truncated'
       AND EXISTS (SELECT 1 FROM assessments a WHERE a.snapshot_id = w.snapshot_id AND a.project_key = $2
                   AND a.assessment_id = json_extract_string(w.detail, '$.assessment_id'))
     ORDER BY w.ordinal`,
    params,
  )) {
    const detail = json(row.detail) as { assessment_id?: unknown } | null;
    quality.truncatedTrialLists.push({
      project: scope.project,
      assessmentId: typeof detail?.assessment_id === 'string' ? detail.assessment_id : String(row.message),
      assessmentName: str(row.assessment_name),
      trialsStored: num(row.stored),
      limit: num(row.trials_limit),
    });
  }
  const name = scope.project.name ?? scope.project.key;
  // One reader for every cross-check (the JSON report's `consistency` uses it too), disagreements first.
  for (const check of await readConsistency(conn, figureScope(scope))) {
    (quality.consistencyChecks ??= []).push({
      project: scope.project,
      check: check.check,
      serviceValue: check.service_value,
      recomputedValue: check.recomputed_value,
      status: check.status,
      detail: check.detail,
    });
    if (check.status !== 'disagrees') continue;
    quality.consistency.push({
      check: `${name}: service ${check.check}${check.detail === null ? '' : ` (${check.detail})`}`,
      expected: formatValue(check.service_value),
      actual: formatValue(check.recomputed_value),
    });
  }
}

/** A figure as text: up to 4 decimals, no trailing zeros. */
function formatValue(value: number | null): string {
  return value === null ? 'unknown' : String(Math.round(value * 1e4) / 1e4);
}

async function snapshotQuality(
  conn: DuckDBConnection,
  snapshotIds: readonly string[],
  quality: DataQuality,
): Promise<void> {
  const unique = [...new Set(snapshotIds)].sort();
  for (const snapshotId of unique) {
    const [snapshot] = await queryRows(
      conn,
      'SELECT status, failed_requests::VARCHAR AS failed_requests FROM snapshots WHERE snapshot_id = $1',
      [snapshotId],
    );
    if (snapshot?.status === 'partial') quality.partialSnapshots.push(snapshotId);
    const failed = json(snapshot?.failed_requests);
    for (const request of Array.isArray(failed) ? failed : []) {
      const entry = request as { method?: unknown; path?: unknown; status?: unknown; error?: unknown };
      quality.failedRequests.push({
        snapshotId,
        method: typeof entry.method === 'string' ? entry.method : '?',
        path: typeof entry.path === 'string' ? entry.path : '?',
        status: typeof entry.status === 'number' ? entry.status : null,
        error: typeof entry.error === 'string' ? entry.error : 'unknown error',
      });
    }
  }
  if (unique.length === 0) return;
  const drift = await queryRows(
    conn,
    `SELECT file_kind, list(DISTINCT json_path ORDER BY json_path) AS keys FROM schema_drift
     WHERE snapshot_id IN (${placeholders(unique.length)}) GROUP BY file_kind ORDER BY file_kind`,
    unique,
  );
  for (const row of drift) {
    quality.schemaDrift.push({ fileKind: String(row.file_kind), keys: (row.keys as string[] | null) ?? [] });
  }
}

/** Collects the data-quality section for the given project scopes and their snapshots. */
export async function buildDataQuality(
  conn: DuckDBConnection,
  scopes: readonly ProjectScope[],
): Promise<DataQuality> {
  const quality: DataQuality = {
    analyticsWarnings: [],
    legacyData: [],
    partialSnapshots: [],
    failedRequests: [],
    truncatedTrialLists: [],
    schemaDrift: [],
    consistency: [],
    consistencyChecks: [],
  };
  for (const scope of scopes) await scopeQuality(conn, scope, quality);
  await snapshotQuality(
    conn,
    scopes.map((scope) => scope.snapshotId),
    quality,
  );
  return quality;
}
