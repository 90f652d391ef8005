/**
 * One project summary body (ProjectAirtSummaryResponse) → rows of projects, the project-level arrays,
 * executive_summary + risk_by_domain, project top findings, and each assessment (assessment-rows.ts).
 */
import { collectAssessment, type ScopeContext } from './assessment-rows.js';
import type { CellValue } from './db.js';
import { isPlainObject, type RowCollector } from './row-builder.js';
import {
  EXECUTIVE_SUMMARY_DEFAULTS,
  FINDING_SUMMARY_DEFAULTS,
  PROJECT_ARRAY_DEFAULTS,
} from './spec-defaults.js';
import {
  ATTACK_EFFECTIVENESS,
  COMPLIANCE_POSTURE,
  EXECUTIVE_SUMMARY,
  FINDINGS,
  GOALS,
  PROJECTS,
  RISK_BY_DOMAIN,
  RISK_TREND,
  TRANSFORM_EFFECTIVENESS,
  VULNERABILITIES,
  type TableDef,
} from './schema.js';

export interface ProjectEntry {
  snapshotId: string;
  /** Key as listed in the manifest (slug or UUID). */
  requestedKey: string;
  manifestProjectId: string | null;
  manifestStatus: string;
  /** Path of summary.json inside the snapshot, when there is one. */
  summaryFile: string | null;
}

const PROJECT_ARRAYS: readonly (readonly [string, TableDef])[] = [
  ['attack_effectiveness', ATTACK_EFFECTIVENESS],
  ['compliance_posture', COMPLIANCE_POSTURE],
  ['goals', GOALS],
  ['risk_trend', RISK_TREND],
  ['top_vulnerabilities', VULNERABILITIES],
  ['transform_effectiveness', TRANSFORM_EFFECTIVENESS],
];

/** Which project a summary is about: the body's id/key when present, else the manifest's. */
export function projectScope(entry: ProjectEntry, summary: unknown): ScopeContext {
  const body = isPlainObject(summary) ? summary : {};
  return {
    snapshot_id: entry.snapshotId,
    project_id: typeof body.project_id === 'string' ? body.project_id : entry.manifestProjectId,
    project_key: typeof body.project_key === 'string' ? body.project_key : entry.requestedKey,
  };
}

/** A project listed in the manifest without a summary (not found, failed): a row, no children. */
export function collectProjectWithoutSummary(entry: ProjectEntry, sink: RowCollector): ScopeContext {
  const scope = projectScope(entry, null);
  sink.addValues(PROJECTS, {
    ...scope,
    requested_key: entry.requestedKey,
    manifest_status: entry.manifestStatus,
    summary_file: null,
  });
  return scope;
}

/**
 * Returns the project's scope, the number of assessments in the body (for the count check) and their
 * ids (to attach trial files to the project).
 */
export function collectProjectSummary(
  entry: ProjectEntry,
  summary: unknown,
  sink: RowCollector,
  /**
   * Wraps the collection of each assessment (`collect` adds its rows); the loader may take an
   * unchanged assessment's rows from its memo instead (assessment-memo.ts). Default: collect.
   */
  eachAssessment: (assessment: unknown, index: number, collect: () => void) => void = (_a, _i, collect) =>
    collect(),
): { scope: ScopeContext; assessments: number; assessmentIds: string[] } {
  const file = entry.summaryFile ?? 'summary.json';
  const scope = projectScope(entry, summary);
  const context: Record<string, CellValue> = {
    ...scope,
    requested_key: entry.requestedKey,
    manifest_status: entry.manifestStatus,
    summary_file: entry.summaryFile,
  };
  if (!isPlainObject(summary)) {
    sink.add(PROJECTS, summary, { context, file, path: '$' });
    return { scope, assessments: 0, assessmentIds: [] };
  }
  sink.add(PROJECTS, summary, {
    context,
    consumed: [
      'assessments',
      'executive_summary',
      'top_findings',
      'project_id',
      'project_key',
      ...PROJECT_ARRAYS.map(([k]) => k),
    ],
    file,
    path: '$',
  });
  for (const [key, table] of PROJECT_ARRAYS) {
    sink.array(summary[key], `$.${key}`, file).forEach((item, i) =>
      sink.add(table, item, {
        context: { ...scope, ordinal: i },
        ...(PROJECT_ARRAY_DEFAULTS[key] === undefined ? {} : { defaults: PROJECT_ARRAY_DEFAULTS[key] }),
        file,
        path: `$.${key}[${i}]`,
      }),
    );
  }
  if (summary.executive_summary !== undefined && summary.executive_summary !== null) {
    sink.add(EXECUTIVE_SUMMARY, summary.executive_summary, {
      context: scope,
      consumed: ['risk_by_domain'],
      defaults: EXECUTIVE_SUMMARY_DEFAULTS,
      file,
      path: '$.executive_summary',
    });
    const domains = isPlainObject(summary.executive_summary)
      ? summary.executive_summary.risk_by_domain
      : undefined;
    sink.array(domains, '$.executive_summary.risk_by_domain', file).forEach((item, i) =>
      sink.add(RISK_BY_DOMAIN, item, {
        context: { ...scope, ordinal: i },
        file,
        path: `$.executive_summary.risk_by_domain[${i}]`,
      }),
    );
  }
  sink.array(summary.top_findings, '$.top_findings', file).forEach((item, i) =>
    sink.add(FINDINGS, item, {
      context: {
        ...scope,
        origin: 'project_top_finding',
        attack_run_id:
          isPlainObject(item) && typeof item.attack_run_id === 'string' ? item.attack_run_id : null,
        source_file: file,
        ordinal: i,
      },
      consumed:
        isPlainObject(item) && (item.attack_run_id === null || typeof item.attack_run_id === 'string')
          ? ['attack_run_id']
          : [],
      defaults: FINDING_SUMMARY_DEFAULTS,
      file,
      path: `$.top_findings[${i}]`,
    }),
  );
  const assessments = sink.array(summary.assessments, '$.assessments', file);
  assessments.forEach((assessment, i) =>
    eachAssessment(assessment, i, () =>
      collectAssessment(assessment, scope, i, file, `$.assessments[${i}]`, sink),
    ),
  );
  const assessmentIds = assessments.flatMap((a) =>
    isPlainObject(a) && typeof a.id === 'string' ? [a.id] : [],
  );
  return { scope, assessments: assessments.length, assessmentIds };
}
