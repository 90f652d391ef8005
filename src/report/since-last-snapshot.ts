/**
 * The executive report's "Since last snapshot" section from a snapshot diff (src/diff): finding
 * lifecycle counts, the new and regressed findings worst first, metric deltas and schema drift, as
 * report-model values. Pure, so it is tested without a database; the warehouse side is
 * model-sql/since-last-snapshot.ts.
 *
 * Unknown figures stay null (shown as "—"), never 0. Coverage arrives from the diff as a percent and
 * is stored here as a fraction, like every other coverage figure in the report models. What the counts
 * cannot hold is carried beside them: the findings the diff could not compare (severity unknown: the
 * attack run lacks its best_score) and, when a partial snapshot holds no summary of the project, that
 * the project was not compared at all (its counts are then 0 by absence, not by change).
 */
import type {
  DataQualityNote,
  DiffSnapshotRef,
  ExclusionNote,
  MissingSummaryNote,
  ProjectDiff,
} from '../diff/diff-report.js';
import { worstFirst, type FindingRecord } from '../diff/finding-lifecycle.js';
import type { MetricDelta, MetricGroup } from '../diff/metric-deltas.js';
import type { SchemaDriftChange } from '../diff/schema-drift-diff.js';
import { compareFrameworkKeys, frameworkTitle } from '../taxonomy/frameworks.js';
import { UNKNOWN_SCORE_FIELD } from '../warehouse/snapshot-lookup.js';
import type {
  ChangedFinding,
  MetricChange,
  NotComparableFindings,
  NotComparedProject,
  SinceLastSnapshot,
} from './model.js';

/** New and regressed findings listed in the section; the full lists are in the run's diff.md. */
export const CHANGED_FINDINGS_SHOWN = 10;
/** Goal categories listed, largest change first. */
export const CATEGORY_CHANGES_SHOWN = 5;

export interface SinceLastSnapshotInput {
  previous: DiffSnapshotRef;
  current: DiffSnapshotRef;
  /** The project's part of the diff. */
  project: ProjectDiff;
  /** Schema drift between the two snapshots (workspace-wide: manifests record it per snapshot). */
  schemaDrift: readonly SchemaDriftChange[];
}

/** Builds the section from a project's diff against its previous snapshot. */
export function sinceLastSnapshotSection(input: SinceLastSnapshotInput): SinceLastSnapshot {
  const { project } = input;
  const changed = changedFindings(project);
  const categories = metrics(project.metrics, 'category_asr').sort(byLargestChange);
  const overall = (key: string): MetricChange =>
    metrics(project.metrics, 'overall').find((metric) => metric.key === key) ?? unknownMetric(key);
  return {
    previous: { snapshotId: input.previous.snapshot_id, fetchedAt: input.previous.fetched_at },
    current: { snapshotId: input.current.snapshot_id, fetchedAt: input.current.fetched_at },
    counts: {
      new: project.counts.new,
      resolved: project.counts.resolved,
      regressed: project.counts.regressed,
      persisting: project.counts.persisting,
    },
    changedFindings: changed.slice(0, CHANGED_FINDINGS_SHOWN),
    changedFindingsTotal: changed.length,
    unknownFindingAssessments: [...new Set(project.excluded.map((entry) => entry.assessment_id))].sort(),
    notComparable: notComparable(project),
    notCompared: notCompared(project),
    overallAsr: overall('overall_asr'),
    riskScore: overall('risk_score'),
    categoryAsr: categories.slice(0, CATEGORY_CHANGES_SHOWN),
    categoryAsrTotal: categories.length,
    coverage: metrics(project.metrics, 'framework_coverage')
      .sort((a, b) => compareFrameworkKeys(a.key, b.key))
      .map((metric) => ({
        ...metric,
        before: percentToFraction(metric.before),
        after: percentToFraction(metric.after),
        delta: percentToFraction(metric.delta),
        title: frameworkTitle(metric.key),
      })),
    evaluationPassRates: metrics(project.metrics, 'evaluation_pass_rate'),
    schemaDrift: input.schemaDrift.map((change) => ({
      fileKind: change.file_kind,
      added: [...change.added],
      removed: [...change.removed],
    })),
  };
}

function changedFindings(project: ProjectDiff): ChangedFinding[] {
  const rows: { order: FindingRecord; row: ChangedFinding }[] = [
    ...project.findings.new.map((finding) => ({
      order: finding,
      row: {
        change: 'new' as const,
        severity: finding.severity,
        severityBefore: null,
        attack: finding.attack_name,
        goalCategory: finding.goal_category,
        goal: finding.goal === '' ? null : finding.goal,
        scoreBefore: null,
        scoreAfter: finding.score,
        reasons: [],
      },
    })),
    ...project.findings.regressed.map((finding) => ({
      order: finding.to,
      row: {
        change: 'regressed' as const,
        severity: finding.to.severity,
        severityBefore: finding.from.severity,
        attack: finding.to.attack_name,
        goalCategory: finding.to.goal_category,
        goal: finding.to.goal === '' ? null : finding.to.goal,
        scoreBefore: finding.from.score,
        scoreAfter: finding.to.score,
        reasons: [...finding.reasons],
      },
    })),
  ];
  return rows.sort((a, b) => worstFirst(a.order, b.order)).map((entry) => entry.row);
}

/** The findings of unknown severity on a side, which no count holds, and where their runs are. */
function notComparable(project: ProjectDiff): NotComparableFindings {
  const unknownIn = { previous: 0, current: 0, both: 0 };
  for (const pair of project.findings.not_comparable) {
    unknownIn[pair.unknown_in === 'from' ? 'previous' : pair.unknown_in === 'to' ? 'current' : 'both'] += 1;
  }
  const assessments = project.data_quality
    .filter((note): note is ExclusionNote => !isMissingSummary(note) && note.field === UNKNOWN_SCORE_FIELD)
    .flatMap((note) => note.assessment_ids);
  return {
    total: project.findings.not_comparable.length,
    unknownIn,
    assessments: [...new Set(assessments)].sort(),
  };
}

/** Why the project was not compared (the snapshot without its summary), or null when it was. */
function notCompared(project: ProjectDiff): NotComparedProject | null {
  if (project.compared) return null;
  const note = project.data_quality.find(isMissingSummary);
  // The diff marks a project not compared only with the note that says why; never invent a reason.
  if (note === undefined)
    throw new Error(`the diff marks project ${project.project} not compared without a reason`);
  return {
    snapshotId: note.snapshot_id,
    side: note.side === 'from' ? 'previous' : 'current',
    failedRequests: note.failed_requests.map(({ method, path, status }) => ({ method, path, status })),
  };
}

function isMissingSummary(note: DataQualityNote): note is MissingSummaryNote {
  return 'kind' in note && note.kind === 'summary_missing';
}

function metrics(all: readonly MetricDelta[], group: MetricGroup): MetricChange[] {
  return all
    .filter((metric) => metric.group === group)
    .map((metric) => ({
      key: metric.key,
      before: metric.from,
      after: metric.to,
      delta: metric.delta,
      presence: metric.presence,
    }));
}

function unknownMetric(key: string): MetricChange {
  return { key, before: null, after: null, delta: null, presence: 'both' };
}

/**
 * Largest known change first; then categories whose change is unknown (tested on one side only, or
 * excluded), which may hide a large one; then unchanged ones. Ties by key, so the order is stable.
 */
function byLargestChange(a: MetricChange, b: MetricChange): number {
  const rank = (metric: MetricChange): number => (metric.delta === null ? 1 : metric.delta === 0 ? 2 : 0);
  return (
    rank(a) - rank(b) ||
    Math.abs(b.delta ?? 0) - Math.abs(a.delta ?? 0) ||
    (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
  );
}

function percentToFraction(value: number | null): number | null {
  return value === null ? null : Math.round(value * 1e4) / 1e6;
}
