/**
 * The data-quality section from the warehouse: analytics warnings (and what they excluded), legacy
 * compliance entries, partial snapshots and their failed requests, possibly truncated trial lists,
 * schema drift and summary totals that disagree with the assessments they summarize.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DataQuality } from '../model.js';
import type { ProjectScope } from './scope.js';
import { json, num, placeholders, queryRows, str } from './query.js';

/** What a report leaves out for an analytics warning on each slice, in the reader's words. */
const EXCLUDED_BY_SLICE: Record<string, string> = {
  asr_by_category: 'its ASR by goal category (left out of the category ASR table and chart)',
  asr_by_attack: 'its ASR by attack (left out of per-attack aggregates)',
  asr_by_transform: 'its ASR by transform (left out of per-transform aggregates)',
  compliance_matrix: 'its compliance-matrix cells (unknown in the heatmap, not counted in category states)',
  top_findings: 'its top findings (not listed)',
  attack_runs: 'its attack runs (left out of attack and finding aggregates)',
  overall_asr: 'its overall ASR (unknown in the risk trend)',
};

function excludedText(slice: string | null, field: string): string {
  if (slice !== null && EXCLUDED_BY_SLICE[slice]) return EXCLUDED_BY_SLICE[slice];
  return `its ${slice ?? field} values (left out of every aggregate; shown as unknown)`;
}

async function scopeQuality(
  conn: DuckDBConnection,
  scope: ProjectScope,
  quality: DataQuality,
): Promise<void> {
  const params = [scope.snapshotId, scope.project.key];
  for (const row of await queryRows(
    conn,
    `SELECT w.assessment_id, a.name AS assessment_name, w.field, w.reason, w.slice
     FROM analytics_warnings w
     LEFT JOIN assessments a ON a.snapshot_id = w.snapshot_id AND a.project_key = w.project_key AND a.assessment_id = w.assessment_id
     WHERE w.snapshot_id = $1 AND w.project_key = $2
     ORDER BY a.created_at NULLS LAST, w.assessment_id, w.ordinal`,
    params,
  )) {
    const field = str(row.field) ?? '(unnamed field)';
    quality.analyticsWarnings.push({
      project: scope.project,
      assessmentId: String(row.assessment_id),
      assessmentName: str(row.assessment_name),
      field,
      reason: str(row.reason) ?? 'no reason given',
      excluded: excludedText(str(row.slice), field),
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
  const totals = await queryRows(
    conn,
    `SELECT e.total_assessments, e.total_attacks,
            (SELECT count(*) FROM assessments a WHERE a.snapshot_id = e.snapshot_id AND a.project_key = e.project_key) AS assessments,
            (SELECT sum(a.total_attacks) FROM assessments a WHERE a.snapshot_id = e.snapshot_id AND a.project_key = e.project_key) AS attacks,
            (SELECT count(*) FROM assessments a WHERE a.snapshot_id = e.snapshot_id AND a.project_key = e.project_key
               AND (a.total_attacks IS NULL OR list_contains(a.erroneous_fields, 'total_attacks'))) AS unknown_attacks
     FROM executive_summary e WHERE e.snapshot_id = $1 AND e.project_key = $2`,
    params,
  );
  const total = totals[0];
  if (total) {
    const name = scope.project.name ?? scope.project.key;
    const check = (label: string, expected: number | null, actual: number | null): void => {
      if (expected !== null && actual !== null && expected !== actual) {
        quality.consistency.push({
          check: `${name}: ${label}`,
          expected: String(expected),
          actual: String(actual),
        });
      }
    };
    check(
      'summary total_assessments equals the assessments listed',
      num(total.total_assessments),
      num(total.assessments),
    );
    if (num(total.unknown_attacks) === 0) {
      check(
        'summary total_attacks equals the sum over assessments',
        num(total.total_attacks),
        num(total.attacks),
      );
    }
  }
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
  };
  for (const scope of scopes) await scopeQuality(conn, scope, quality);
  await snapshotQuality(
    conn,
    scopes.map((scope) => scope.snapshotId),
    quality,
  );
  return quality;
}
