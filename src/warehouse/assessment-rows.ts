/**
 * One AssessmentDetail → rows of assessments, attack_runs, reports, asr_breakdown, compliance_matrix,
 * findings (assessment top findings) and analytics_warnings, honouring its analytics_warnings (see
 * analytics-warnings.ts): a flagged slice is recorded with its raw value and written nowhere else.
 */
import { excludedSlices, readAnalyticsWarnings } from './analytics-warnings.js';
import type { CellValue } from './db.js';
import { fitValue, isPlainObject, type RowCollector } from './row-builder.js';
import {
  ASR_BREAKDOWN_DIMENSION_DEFAULT,
  ASR_ENTRY_DEFAULTS,
  ASSESSMENT_TOP_FINDING_DEFAULTS,
  COMPLIANCE_CATEGORY_DEFAULTS,
  LEGACY_COMPLIANCE_CATEGORY_DEFAULTS,
} from './spec-defaults.js';
import {
  ANALYTICS_WARNINGS,
  ASR_BREAKDOWN,
  ASSESSMENTS,
  ATTACK_RUNS,
  COMPLIANCE_MATRIX,
  FINDINGS,
  REPORTS,
} from './schema.js';

/** The parent columns every project-scoped row carries. */
// A type alias (not an interface) so it spreads into Record<string, CellValue> contexts.
export type ScopeContext = {
  snapshot_id: string;
  project_id: string | null;
  project_key: string | null;
};

const ASR_SLICES = {
  asr_by_attack: 'attack',
  asr_by_category: 'category',
  asr_by_transform: 'transform',
} as const;
const CHILD_SLICES = [
  'attack_runs',
  'reports',
  'top_findings',
  'compliance_matrix',
  ...Object.keys(ASR_SLICES),
];

/**
 * Whether an AttackRunSummary lacks its best score: the key is required (its value may be null: no
 * finished trial), so a run without it, or with a value that is not a number, has an unknown score,
 * and so an unknown severity; never a run without a finished trial, never info.
 */
function bestScoreUnknown(run: unknown): boolean {
  if (!isPlainObject(run) || !Object.hasOwn(run, 'best_score')) return true;
  return fitValue('DOUBLE', run.best_score) === undefined;
}

/** Parent keys repeated in child objects: consumed when they agree, kept in extra when they do not. */
function agreeingParent(child: unknown, key: string, parentId: string | null): string[] {
  return isPlainObject(child) && child[key] === parentId ? [key] : [];
}

export function collectAssessment(
  assessment: unknown,
  scope: ScopeContext,
  ordinal: number,
  file: string,
  path: string,
  sink: RowCollector,
): void {
  if (!isPlainObject(assessment)) {
    sink.add(ASSESSMENTS, assessment, { context: { ...scope, ordinal }, file, path });
    return;
  }
  const warnings = readAnalyticsWarnings(assessment, file, path, sink);
  const excluded = excludedSlices(warnings);
  const assessmentId = typeof assessment.id === 'string' ? assessment.id : null;
  const parent: Record<string, CellValue> = { ...scope, assessment_id: assessmentId };

  warnings.forEach((w, i) => {
    const raw = w.slice === null ? undefined : assessment[w.slice];
    sink.addValues(ANALYTICS_WARNINGS, {
      ...parent,
      field: w.field,
      reason: w.reason,
      slice: w.slice,
      raw_value: raw === undefined ? null : JSON.stringify(raw),
      ordinal: i,
      extra:
        isPlainObject(w.raw) && Object.keys(w.raw).some((k) => k !== 'field' && k !== 'reason')
          ? JSON.stringify(
              Object.fromEntries(Object.entries(w.raw).filter(([k]) => k !== 'field' && k !== 'reason')),
            )
          : w.field === null
            ? JSON.stringify({ _value: w.raw })
            : null,
    });
  });

  // Flagged assessment-level fields are removed before mapping, so they are NULL, not in extra.
  const clean = Object.fromEntries(Object.entries(assessment).filter(([k]) => !excluded.has(k)));
  const erroneous = [...excluded]
    .filter((slice) => slice in assessment || !CHILD_SLICES.includes(slice))
    .sort();
  sink.add(ASSESSMENTS, clean, {
    context: { ...scope, ordinal, erroneous_fields: erroneous.length > 0 ? erroneous : null },
    consumed: ['analytics_warnings', ...CHILD_SLICES, ...excluded],
    file,
    path,
  });

  const runs = excluded.has('attack_runs')
    ? []
    : sink.array(assessment.attack_runs, `${path}.attack_runs`, file);
  runs.forEach((run, i) =>
    sink.add(ATTACK_RUNS, run, {
      context: { ...parent, ordinal: i, best_score_unknown: bestScoreUnknown(run) },
      consumed: agreeingParent(run, 'assessment_id', assessmentId),
      file,
      path: `${path}.attack_runs[${i}]`,
    }),
  );
  if (!excluded.has('reports')) {
    sink.array(assessment.reports, `${path}.reports`, file).forEach((report, i) =>
      sink.add(REPORTS, report, {
        context: { ...parent, ordinal: i },
        consumed: agreeingParent(report, 'assessment_id', assessmentId),
        file,
        path: `${path}.reports[${i}]`,
      }),
    );
  }
  for (const [slice, dimension] of Object.entries(ASR_SLICES)) {
    if (!excluded.has(slice))
      collectAsrBreakdown(assessment[slice], dimension, parent, file, `${path}.${slice}`, sink);
  }
  if (!excluded.has('compliance_matrix')) {
    collectComplianceMatrix(assessment.compliance_matrix, parent, file, `${path}.compliance_matrix`, sink);
  }
  if (!excluded.has('top_findings')) {
    sink.array(assessment.top_findings, `${path}.top_findings`, file).forEach((finding, i) =>
      sink.add(FINDINGS, finding, {
        context: {
          ...parent,
          origin: 'assessment_top_finding',
          attack_run_id: resolveAttackRun(finding, runs),
          source_file: file,
          ordinal: i,
        },
        // AssessmentTopFinding has no assessment_id: it is its assessment's (and so is its row set).
        defaults: { ...ASSESSMENT_TOP_FINDING_DEFAULTS, assessment_id: assessmentId },
        file,
        path: `${path}.top_findings[${i}]`,
      }),
    );
  }
}

/**
 * AssessmentTopFinding has no attack run id; top findings are one per attack (its best trial), so the
 * run is the assessment's only run with the same attack name and goal. Ambiguous or unknown: NULL.
 */
function resolveAttackRun(finding: unknown, runs: readonly unknown[]): string | null {
  if (!isPlainObject(finding)) return null;
  const matches = runs.filter(
    (run) =>
      isPlainObject(run) &&
      run.attack_name === finding.attack_name &&
      run.goal === finding.goal &&
      typeof run.id === 'string',
  );
  const only = matches.length === 1 ? matches[0] : undefined;
  return isPlainObject(only) && typeof only.id === 'string' ? only.id : null;
}

function collectAsrBreakdown(
  value: unknown,
  dimension: string,
  parent: Record<string, CellValue>,
  file: string,
  path: string,
  sink: RowCollector,
): void {
  if (value === undefined || value === null) return;
  if (!isPlainObject(value) || !isPlainObject(value.entries)) {
    sink.warn('type_mismatch', `${path} is not an AsrBreakdown with an entries map; not loaded`, file, {
      value,
    });
    return;
  }
  const unknown = Object.keys(value).filter((k) => k !== 'dimension' && k !== 'entries');
  if (unknown.length > 0) {
    sink.warn('unknown_keys', `${path} has keys the spec does not know: ${unknown.join(', ')}`, file, {
      extra: Object.fromEntries(unknown.map((k) => [k, value[k]])),
    });
  }
  const label =
    value.dimension === undefined
      ? ASR_BREAKDOWN_DIMENSION_DEFAULT
      : typeof value.dimension === 'string'
        ? value.dimension
        : null;
  for (const [key, entry] of Object.entries(value.entries)) {
    sink.add(ASR_BREAKDOWN, entry, {
      context: { ...parent, dimension, dimension_label: label, key },
      defaults: ASR_ENTRY_DEFAULTS,
      file,
      path: `${path}.entries[${JSON.stringify(key)}]`,
    });
  }
}

function collectComplianceMatrix(
  value: unknown,
  parent: Record<string, CellValue>,
  file: string,
  path: string,
  sink: RowCollector,
): void {
  if (value === undefined || value === null) return;
  if (!isPlainObject(value)) {
    sink.warn('type_mismatch', `${path} is not a map of frameworks; not loaded`, file, { value });
    return;
  }
  for (const [framework, tags] of Object.entries(value)) {
    if (!isPlainObject(tags)) {
      sink.warn(
        'type_mismatch',
        `${path}[${JSON.stringify(framework)}] is not a map of tags; not loaded`,
        file,
        { value: tags },
      );
      continue;
    }
    for (const [tag, cell] of Object.entries(tags)) {
      // Older format: only tested/asr/max_severity. The missing fields are unknown, not 0.
      const legacy = isPlainObject(cell) && !('attacks_used' in cell) && !('total_trials' in cell);
      sink.add(COMPLIANCE_MATRIX, cell, {
        context: { ...parent, framework, tag, legacy },
        defaults: legacy ? LEGACY_COMPLIANCE_CATEGORY_DEFAULTS : COMPLIANCE_CATEGORY_DEFAULTS,
        file,
        path: `${path}[${JSON.stringify(framework)}][${JSON.stringify(tag)}]`,
      });
    }
  }
}
