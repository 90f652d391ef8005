/**
 * A snapshot-to-snapshot diff as one value (`SnapshotDiff`) and its two renderings: JSON for
 * machines, Markdown for people. Both name the later snapshot by id and manifest root hash (JSON:
 * `to`; Markdown: its provenance line), which bundle verification checks. Goals, attack and
 * assessment names are attacker-controlled: escaped, and goals truncated, in Markdown.
 *
 * The Markdown is read in terminals as much as rendered, so data is escaped only as far as a table
 * cell needs to stay inert (the query command's cell escaping: pipes, backslashes, emphasis, code and
 * link characters, HTML, line breaks, control characters); identifiers (categories, attacks,
 * frameworks, fields) are code spans. Figures use the reports' formatters (percentages, points).
 */
import { expiringAcceptancesMarkdown } from './acceptances-markdown.js';
import type { ExpiringAcceptance } from '../metrics/read-acceptances.js';
import {
  changeDigits,
  countOf,
  formatDecimal,
  formatLift,
  formatPercent,
  formatSignedDecimal,
} from '../number-format.js';
import { provenanceLine, unverifiedMarkdownLine } from '../snapshot/provenance-line.js';
import { escapeMarkdownCell, markdownCode, terminalSafeJson } from '../text-safety.js';
import {
  knownSide,
  type FindingLifecycle,
  type FindingRecord,
  type NotComparableFinding,
} from './finding-lifecycle.js';
import type { MetricDelta, MetricGroup } from './metric-deltas.js';
import type { SchemaDriftChange } from './schema-drift-diff.js';
import { UNKNOWN_SCORE_FIELD, type FailedRequestRef } from '../warehouse/snapshot-lookup.js';
import type { SliceExclusion } from './warehouse-source.js';

export const DIFF_FORMAT = 'airt-diff/1';

/** Rows per finding list in Markdown; the JSON always has every finding. */
const MARKDOWN_LIST_LIMIT = 50;
const GOAL_MAX_CHARS = 120;

/** Data text for a table cell, heading or list item: inert, but without escaping plain punctuation. */
function cellText(text: string): string {
  return escapeMarkdownCell(text);
}

export interface DiffSnapshotRef {
  snapshot_id: string;
  fetched_at: string | null;
  root_sha256: string | null;
}

/**
 * A project's findings in the diff: the lifecycle, and those of a project the later snapshot no longer
 * lists (`no_longer_reported`, empty for every other project).
 */
export interface ProjectFindings extends FindingLifecycle {
  /**
   * The findings the earlier snapshot tracked (open, low or worse) of a project the later snapshot
   * does not list at all: nothing says they were fixed, so they are not resolved, but they are no
   * longer reported. Worst first.
   */
  no_longer_reported: FindingRecord[];
}

/** One project's part of a snapshot diff. */
export interface ProjectDiff {
  project: string;
  /** Whether the previous snapshot held this project; null when there is no previous snapshot. */
  in_previous: boolean | null;
  /**
   * False when the later snapshot does not list the project at all (the service no longer lists it,
   * or the snapshot was not asked for it) while the earlier one holds it: a removed project. Its
   * findings are `no_longer_reported`, never resolved, and it is not compared.
   */
  in_current: boolean;
  /**
   * False when one snapshot holds no summary of the project (its request failed: the snapshot is
   * partial, `data_quality` says which and the request), or when the later snapshot no longer lists it
   * (`in_current: false`): nothing of it is compared, no finding counts as new or resolved, there are
   * no metrics, and every lifecycle list is empty but `not_comparable` and `no_longer_reported` of a
   * removed project.
   */
  compared: boolean;
  counts: {
    new: number;
    resolved: number;
    regressed: number;
    persisting: number;
    not_comparable: number;
    no_longer_reported: number;
  };
  findings: ProjectFindings;
  metrics: MetricDelta[];
  /** Assessments whose attack runs an analytics warning excluded: their findings are unknown, in neither list. */
  excluded: { assessment_id: string; field: string; reason: string }[];
  /**
   * What the diff leaves out, per snapshot: every analytics-warning exclusion in the slices it compares
   * (attack_runs, asr_by_category, compliance_matrix) and the assessments with runs of unknown score
   * (field `best_score`), then slice; and the project's missing summary in a partial snapshot.
   */
  data_quality: DataQualityNote[];
}

/**
 * Assessments of one snapshot whose slice `field` an analytics warning excluded, or (field
 * `best_score`) whose attack runs lack their required best_score, so their findings' severity is unknown.
 */
export interface ExclusionNote {
  snapshot_id: string;
  field: string;
  assessment_ids: string[];
}

/** A snapshot of the diff holds no summary of the project: the request for it failed (partial snapshot). */
export interface MissingSummaryNote {
  snapshot_id: string;
  /** Which snapshot of the diff: `from` (the earlier) or `to`. */
  side: 'from' | 'to';
  kind: 'summary_missing';
  /** The snapshot's failed requests for this project. */
  failed_requests: FailedRequestRef[];
}

export type DataQualityNote = ExclusionNote | MissingSummaryNote;

/** A partial snapshot of the diff: every request that failed for good and the projects it lacks. */
export interface PartialSnapshot {
  snapshot_id: string;
  side: 'from' | 'to';
  /** Projects it lists without a summary (their request failed): not compared. */
  projects_without_summary: string[];
  failed_requests: FailedRequestRef[];
}

/** What changed between two snapshots: findings, metrics and schema drift per project. */
export interface SnapshotDiff {
  format: typeof DIFF_FORMAT;
  /** Null when there is no earlier snapshot: every open finding is new. */
  from: DiffSnapshotRef | null;
  to: DiffSnapshotRef;
  /**
   * The org and workspace both snapshots belong to, present when the database holds more than one
   * (org, workspace): project keys are unique only inside a workspace, so there the key alone is
   * ambiguous. A diff never compares snapshots of different workspaces.
   */
  workspace?: { org: string; workspace: string };
  projects: ProjectDiff[];
  schema_drift: SchemaDriftChange[];
  /** Dated risk acceptances of the `to` snapshot that end within 30 days (present only when some do). */
  expiring_acceptances?: ExpiringAcceptance[];
  /**
   * Of the two snapshots, those loaded although they failed verification (forced): the changes rest
   * on files that do not match their manifests. Present only when there are some.
   */
  unverified_snapshots?: string[];
  /**
   * Of the two snapshots, the partial ones (some requests failed for good): what they lack is not
   * compared, never counted as resolved or new. Present only when there are some.
   */
  partial_snapshots?: PartialSnapshot[];
}

/**
 * A lifecycle as older callers build it: `not_comparable` may be left out (none), and so may
 * `no_longer_reported` (none: the later snapshot lists the project).
 */
export type FindingLifecycleInput = Omit<FindingLifecycle, 'not_comparable'> & {
  not_comparable?: NotComparableFinding[];
  no_longer_reported?: FindingRecord[];
};

/** Assembles a ProjectDiff with its counts (field order fixed for deterministic JSON). */
export function projectDiff(
  project: string,
  lifecycle: FindingLifecycleInput,
  metrics: MetricDelta[],
  context: Pick<ProjectDiff, 'in_previous' | 'excluded'> & {
    data_quality?: DataQualityNote[];
    compared?: boolean;
    in_current?: boolean;
  } = {
    in_previous: null,
    excluded: [],
  },
): ProjectDiff {
  const findings: ProjectFindings = {
    new: lifecycle.new,
    resolved: lifecycle.resolved,
    regressed: lifecycle.regressed,
    persisting: lifecycle.persisting,
    not_comparable: lifecycle.not_comparable ?? [],
    no_longer_reported: lifecycle.no_longer_reported ?? [],
  };
  return {
    project,
    in_previous: context.in_previous,
    in_current: context.in_current ?? true,
    compared: context.compared ?? true,
    counts: {
      new: findings.new.length,
      resolved: findings.resolved.length,
      regressed: findings.regressed.length,
      persisting: findings.persisting.length,
      not_comparable: findings.not_comparable.length,
      no_longer_reported: findings.no_longer_reported.length,
    },
    findings,
    metrics,
    excluded: context.excluded,
    data_quality: context.data_quality ?? [],
  };
}

/**
 * A project one snapshot holds no summary of (its request failed): listed, nothing compared, every
 * list empty, and `note` (in data_quality) naming the snapshot and the request.
 */
export function notComparedProject(
  project: string,
  context: { in_previous: boolean | null; note: MissingSummaryNote },
): ProjectDiff {
  return projectDiff(
    project,
    { new: [], resolved: [], regressed: [], persisting: [], not_comparable: [] },
    [],
    { in_previous: context.in_previous, excluded: [], data_quality: [context.note], compared: false },
  );
}

/**
 * A project the earlier snapshot holds and the later one does not list (`lifecycle`: its findings
 * against none). Its tracked findings, which that lifecycle calls resolved (gone), are no longer
 * reported instead: nothing says they were fixed. Those of unknown severity stay not comparable; what
 * the earlier snapshot excluded stays in `excluded` and `data_quality`.
 */
export function removedProject(
  project: string,
  lifecycle: FindingLifecycle,
  context: Pick<ProjectDiff, 'excluded' | 'data_quality'>,
): ProjectDiff {
  return projectDiff(
    project,
    {
      new: [],
      resolved: [],
      regressed: [],
      persisting: [],
      not_comparable: lifecycle.not_comparable,
      no_longer_reported: lifecycle.resolved.map((finding) => finding.from),
    },
    [],
    { ...context, in_previous: true, in_current: false, compared: false },
  );
}

/** Groups a snapshot's exclusions by slice (sorted, assessments deduplicated) into notes. */
export function exclusionNotes(snapshotId: string, exclusions: readonly SliceExclusion[]): ExclusionNote[] {
  const byField = new Map<string, Set<string>>();
  for (const exclusion of exclusions) {
    const ids = byField.get(exclusion.field) ?? new Set<string>();
    ids.add(exclusion.assessment_id);
    byField.set(exclusion.field, ids);
  }
  return [...byField.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([field, ids]) => ({ snapshot_id: snapshotId, field, assessment_ids: [...ids].sort() }));
}

/** JSON with unsafe characters (bidi, controls, zero-width) as `\uXXXX`: the same values, inert when printed. */
export function diffJson(diff: SnapshotDiff): string {
  return `${terminalSafeJson(diff)}\n`;
}

/** A snapshot diff as Markdown (names as code spans, data escaped). */
export function diffMarkdown(diff: SnapshotDiff): string {
  const lines: string[] = ['# Changes between snapshots', ''];
  // The same warning, in the same shape, as a report of a forced load (verify BUNDLE.zip finds it).
  const unverified = diff.unverified_snapshots ?? [];
  if (unverified.length > 0)
    lines.push(
      unverifiedMarkdownLine(unverified, 'these changes rest on files that do not match the manifest.'),
      '',
    );
  lines.push(
    `From ${diff.from === null ? 'no earlier snapshot (every open finding counts as new)' : snapshotLabel(diff.from)} ` +
      `to ${snapshotLabel(diff.to)}.`,
    // The snapshot the diff leads to, as `airt-report verify BUNDLE.zip` checks it against the manifest.
    provenanceLine(diff.to.snapshot_id, diff.to.root_sha256),
    '',
  );
  const workspace = diff.workspace === undefined ? null : `${diff.workspace.org}/${diff.workspace.workspace}`;
  if (workspace !== null) lines.push(`Org and workspace: ${markdownCode(workspace)}.`, '');
  for (const partial of diff.partial_snapshots ?? []) lines.push(...partialSnapshotLines(partial));
  const current = diff.projects.filter((project) => project.in_current);
  const removed = diff.projects.filter((project) => !project.in_current);
  if (diff.projects.length === 0) lines.push('No project is in both scope and the snapshot.', '');
  for (const project of current) lines.push(...projectSection(project, workspace));
  lines.push(...removedProjectsSection(removed, workspace));
  lines.push('## Schema drift', '');
  if (diff.schema_drift.length === 0) {
    lines.push('No change in the keys the API sends beyond its specification.', '');
  } else {
    lines.push('| File kind | Keys added | Keys removed |', '| --- | --- | --- |');
    for (const change of diff.schema_drift) {
      lines.push(`| ${cellText(change.file_kind)} | ${keyList(change.added)} | ${keyList(change.removed)} |`);
    }
    lines.push('');
  }
  lines.push(...expiringAcceptancesMarkdown(diff.expiring_acceptances));
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}

/** Which snapshot of the diff, in words. */
const SIDE_WORDS = { from: 'the earlier snapshot', to: 'the later snapshot' } as const;

/** Failed requests listed in Markdown per partial snapshot; the JSON has all. */
const FAILED_REQUESTS_SHOWN = 10;

/** A failed request as `GET /path` (HTTP 500), inert. */
function requestText(request: FailedRequestRef): string {
  const outcome = request.status === null ? 'no response' : `HTTP ${request.status}`;
  return `${markdownCode(`${request.method} ${request.path}`)} (${outcome})`;
}

/** "Snapshot X (the later snapshot) is partial: …", with its failed requests and the projects it lacks. */
function partialSnapshotLines(partial: PartialSnapshot): string[] {
  const lacking = partial.projects_without_summary;
  const lines = [
    `**Partial snapshot:** ${markdownCode(partial.snapshot_id)} (${SIDE_WORDS[partial.side]}) is partial: ` +
      `${countOf(partial.failed_requests.length, 'request', 'requests')} failed for good, so what it lacks is ` +
      'not compared (never counted as resolved or new).' +
      (lacking.length === 0
        ? ''
        : ` It holds no summary of ${lacking.length === 1 ? 'project' : 'projects'} ` +
          `${lacking.map(markdownCode).join(', ')}: ${lacking.length === 1 ? 'its' : 'their'} findings and figures are unknown here.`),
    '',
    ...partial.failed_requests
      .slice(0, FAILED_REQUESTS_SHOWN)
      .map((request) => `- failed: ${requestText(request)}`),
  ];
  if (partial.failed_requests.length > FAILED_REQUESTS_SHOWN)
    lines.push(`- … and ${partial.failed_requests.length - FAILED_REQUESTS_SHOWN} more in the JSON diff.`);
  return [...lines, ''];
}

function projectSection(project: ProjectDiff, workspace: string | null): string[] {
  const { counts, findings } = project;
  const heading = `## Project ${cellText(project.project)}${workspace === null ? '' : ` (${markdownCode(workspace)})`}`;
  if (!project.compared) return [heading, '', ...missingSummaryLines(project.data_quality)];
  const lines = [
    heading,
    '',
    `${counts.new} new, ${counts.resolved} resolved, ${counts.regressed} regressed, ${counts.persisting} persisting findings.`,
    '',
  ];
  if (counts.not_comparable > 0) {
    lines.push(
      `${countOf(counts.not_comparable, 'finding is', 'findings are')} not comparable: ${counts.not_comparable === 1 ? 'its' : 'their'} ` +
        'severity is unknown in a snapshot (the attack run lacks its required `best_score` and no triage set one), ' +
        'so none of them is counted as new, resolved, regressed or persisting.',
      '',
    );
  }
  if (project.in_previous === false) {
    lines.push('The previous snapshot did not hold this project: every open finding counts as new.', '');
  }
  lines.push(...excludedAssessmentsLines(project));
  lines.push(...dataQualityNotes(project.data_quality));
  lines.push(...metricTable(project.metrics));
  lines.push(
    ...findingTable(
      'New findings',
      findings.new.map((f) => ({ finding: f, note: '' })),
    ),
  );
  lines.push(
    ...findingTable(
      'Regressed findings',
      findings.regressed.map((r) => ({ finding: r.to, note: r.reasons.join('; ') })),
    ),
  );
  lines.push(
    ...findingTable(
      'Resolved findings',
      findings.resolved.map((r) => ({
        finding: r.from,
        note: r.reason === 'gone' ? 'gone' : `triaged ${r.reason}`,
      })),
    ),
  );
  if (findings.not_comparable.length > 0) {
    lines.push(
      ...findingTable(
        'Findings not comparable',
        findings.not_comparable.map((pair) => ({ finding: knownSide(pair), note: notComparableNote(pair) })),
      ),
    );
  }
  return lines;
}

/**
 * "Removed projects": those the earlier snapshot holds and the later one does not list, each with a
 * table of the findings no longer reported (what it had), so none of them vanishes from the diff.
 */
function removedProjectsSection(removed: readonly ProjectDiff[], workspace: string | null): string[] {
  if (removed.length === 0) return [];
  const one = removed.length === 1;
  const lines = [
    '## Removed projects',
    '',
    `The later snapshot does not list ${countOf(removed.length, 'project', 'projects')} the earlier one holds ` +
      `(the service no longer lists ${one ? 'it' : 'them'}, or the snapshot was not asked for ${one ? 'it' : 'them'}): ` +
      `${removed.map((project) => markdownCode(project.project)).join(', ')}. ` +
      `${one ? 'Its' : 'Their'} findings are no longer reported, never counted as resolved: nothing says they were fixed.`,
    '',
  ];
  for (const project of removed) {
    const { counts, findings } = project;
    const gone = counts.no_longer_reported;
    lines.push(
      `### Project ${cellText(project.project)}${workspace === null ? '' : ` (${markdownCode(workspace)})`}`,
      '',
      gone === 0
        ? 'The earlier snapshot held no open finding of it of severity low or worse.'
        : `${countOf(gone, 'open finding', 'open findings')} of it (severity low or worse) ` +
            `${gone === 1 ? 'is' : 'are'} no longer reported: not counted as resolved.`,
      '',
    );
    if (counts.not_comparable > 0)
      lines.push(
        `${countOf(counts.not_comparable, 'finding', 'findings')} of unknown severity in the earlier snapshot ` +
          '(the attack run lacks its required `best_score`) no longer reported either, listed as not comparable.',
        '',
      );
    lines.push(...excludedAssessmentsLines(project), ...dataQualityNotes(project.data_quality));
    if (gone > 0)
      lines.push(
        ...findingTable(
          'No longer reported',
          findings.no_longer_reported.map((finding) => ({ finding, note: 'project not listed' })),
          '####',
        ),
      );
    if (counts.not_comparable > 0)
      lines.push(
        ...findingTable(
          'Findings not comparable',
          findings.not_comparable.map((pair) => ({
            finding: knownSide(pair),
            note: notComparableNote(pair),
          })),
          '####',
        ),
      );
  }
  return lines;
}

/** The assessments whose findings an analytics warning made unknown, in no list. */
function excludedAssessmentsLines(project: ProjectDiff): string[] {
  if (project.excluded.length === 0) return [];
  const ids = [...new Set(project.excluded.map((e) => e.assessment_id))];
  return [
    `Findings of ${ids.length} ${ids.length === 1 ? 'assessment' : 'assessments'} are unknown (attack runs excluded by ` +
      `an analytics warning) and in no list: ${ids.map(markdownCode).join(', ')}.`,
    '',
  ];
}

/** What is known of a not-comparable finding: its severity on each side (`critical → unknown`). */
function notComparableNote(pair: NotComparableFinding): string {
  const side = (finding: FindingRecord | null): string => (finding === null ? 'absent' : finding.severity);
  return `severity ${side(pair.from)} → ${side(pair.to)}`;
}

/** Why a project is not compared: the snapshot that holds no summary of it, and the failed request. */
function missingSummaryLines(notes: readonly DataQualityNote[]): string[] {
  return notes
    .filter(isMissingSummary)
    .flatMap((note) => [
      `Not compared: ${markdownCode(note.snapshot_id)} (${SIDE_WORDS[note.side]}) is partial and holds no summary of ` +
        'this project' +
        (note.failed_requests.length === 0
          ? ''
          : ` (${note.failed_requests.map(requestText).join(', ')} failed)`) +
        `. None of its findings is counted as ${note.side === 'to' ? 'resolved' : 'new'}; its figures are unknown there.`,
      '',
    ]);
}

function isMissingSummary(note: DataQualityNote): note is MissingSummaryNote {
  return 'kind' in note && note.kind === 'summary_missing';
}

/** "Data quality" lines in the reports' wording: "excludes 1 assessment with erroneous X in snapshot Y". */
function dataQualityNotes(notes: readonly DataQualityNote[]): string[] {
  const exclusions = notes.filter((note): note is ExclusionNote => !isMissingSummary(note));
  const warned = exclusions.filter((note) => note.field !== UNKNOWN_SCORE_FIELD);
  const unscored = exclusions.filter((note) => note.field === UNKNOWN_SCORE_FIELD);
  const lines: string[] = [];
  if (warned.length > 0)
    lines.push(
      'Data quality: analytics warnings mark some assessment data erroneous; it is left out, never counted as 0.',
      '',
      ...warned.map(
        (note) =>
          `- excludes ${countOf(note.assessment_ids.length, 'assessment', 'assessments')} with erroneous ` +
          `${markdownCode(note.field)} in snapshot ${markdownCode(note.snapshot_id)}`,
      ),
      '',
    );
  if (unscored.length > 0)
    lines.push(
      'Data quality: some attack runs lack their required `best_score`; their severity, the risk score and ' +
        'the counts by severity are unknown there, never info or 0.',
      '',
      ...unscored.map(
        (note) =>
          `- ${countOf(note.assessment_ids.length, 'assessment has', 'assessments have')} attack runs without ` +
          `${markdownCode(UNKNOWN_SCORE_FIELD)} in snapshot ${markdownCode(note.snapshot_id)}: ` +
          note.assessment_ids.map(markdownCode).join(', '),
      ),
      '',
    );
  return lines;
}

const GROUP_LABEL: Record<MetricGroup, string> = {
  overall: '',
  category_asr: 'category ASR',
  framework_coverage: 'framework coverage',
  evaluation_pass_rate: 'evaluation pass rate',
};

const OVERALL_LABEL: Record<string, string> = { overall_asr: 'overall ASR', risk_score: 'risk score' };

/**
 * How a metric's values and change read: the risk score with one decimal, fractions and percents as
 * %, changes in points. Before, after and change share their decimals, one more where needed so the
 * row never contradicts itself (8.11 → 8.06 is "8.11 | 8.06 | -0.05", not "8.1 | 8.1 | -0.1").
 */
function metricFormat(metric: MetricDelta): { value: (v: number) => string; change: (v: number) => string } {
  if (metric.group === 'overall' && metric.key === 'risk_score') {
    const digits = changeDigits(metric.from, metric.to, metric.delta, 1);
    return { value: (v) => formatDecimal(v, digits), change: (v) => formatSignedDecimal(v, digits) };
  }
  // Coverage arrives as a percent (0-100); every other figure is a fraction (0-1).
  const scale = metric.group === 'framework_coverage' ? 100 : 1;
  // The decimals are chosen on the figures as shown: percent and percentage points.
  const shown = (v: number | null): number | null => (v === null ? null : (v / scale) * 100);
  const digits = changeDigits(shown(metric.from), shown(metric.to), shown(metric.delta), 1);
  return { value: (v) => formatPercent(v / scale, digits), change: (v) => formatLift(v / scale, digits) };
}

function metricName(metric: MetricDelta): string {
  return metric.group === 'overall'
    ? (OVERALL_LABEL[metric.key] ?? markdownCode(metric.key))
    : `${GROUP_LABEL[metric.group]}: ${markdownCode(metric.key)}`;
}

function metricTable(metrics: readonly MetricDelta[]): string[] {
  // Metrics unknown on both sides for no stated reason say nothing in a table (the JSON keeps them).
  const known = metrics.filter((m) => m.from !== null || m.to !== null || m.excluded !== null);
  // A table of changes lists what changed; the unchanged are counted, not listed (the overall
  // figures always show, so a reader sees the headline even when it held still).
  const shown = known.filter((m) => m.group === 'overall' || !isUnchanged(m));
  const unchanged = known.length - shown.length;
  if (shown.length === 0) return [];
  const lines = ['| Metric | Before | After | Change |', '| --- | ---: | ---: | ---: |'];
  for (const metric of shown) {
    const format = metricFormat(metric);
    const side = (value: number | null, which: 'from' | 'to'): string => {
      if (metric.excluded === which) return 'excluded';
      if (
        (which === 'from' && metric.presence === 'added') ||
        (which === 'to' && metric.presence === 'removed')
      )
        return '—';
      return value === null ? 'unknown' : format.value(value);
    };
    const change =
      metric.excluded !== null
        ? 'unknown (excluded)'
        : metric.presence !== 'both'
          ? metric.presence
          : metric.delta === null
            ? 'unknown'
            : format.change(metric.delta);
    lines.push(
      `| ${metricName(metric)} | ${side(metric.from, 'from')} | ${side(metric.to, 'to')} | ${change} |`,
    );
  }
  if (unchanged > 0) lines.push('', `${countOf(unchanged, 'other metric', 'other metrics')} did not change.`);
  return [...lines, ''];
}

/** Known on both sides, neither excluded, and equal: nothing to act on. */
function isUnchanged(metric: MetricDelta): boolean {
  return metric.presence === 'both' && metric.excluded === null && metric.delta === 0;
}

/** A table of findings under a heading of `level` (`###` below a project, `####` below a removed one). */
function findingTable(
  title: string,
  rows: { finding: FindingRecord; note: string }[],
  level: '###' | '####' = '###',
): string[] {
  if (rows.length === 0) return [`${level} ${title}`, '', 'None.', ''];
  const lines = [
    `${level} ${title} (${rows.length})`,
    '',
    '| Severity | Score | Attack | Goal category | Assessment | Goal | Change |',
    '| --- | ---: | --- | --- | --- | --- | --- |',
  ];
  for (const { finding, note } of rows.slice(0, MARKDOWN_LIST_LIMIT)) {
    const cells = [
      cellText(finding.severity),
      number(finding.score),
      codeOrDash(finding.attack_name),
      codeOrDash(finding.goal_category),
      cellText(finding.assessment_name ?? finding.assessment_id),
      cellText(truncate(finding.goal, GOAL_MAX_CHARS)),
      cellText(note || '—'),
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  if (rows.length > MARKDOWN_LIST_LIMIT)
    lines.push('', `… and ${rows.length - MARKDOWN_LIST_LIMIT} more in the JSON diff.`);
  return [...lines, ''];
}

function snapshotLabel(ref: DiffSnapshotRef): string {
  return ref.fetched_at === null
    ? markdownCode(ref.snapshot_id)
    : `${markdownCode(ref.snapshot_id)} (${markdownCode(ref.fetched_at)})`;
}

function keyList(keys: readonly string[]): string {
  return keys.length === 0 ? '—' : keys.map(markdownCode).join(', ');
}

/** An identifier as a code span; "—" when there is none. */
function codeOrDash(text: string | null): string {
  return text === null || text === '' ? '—' : markdownCode(text);
}

function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

function number(value: number | null): string {
  return value === null ? 'unknown' : String(Math.round(value * 10_000) / 10_000);
}
