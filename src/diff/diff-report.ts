/**
 * A snapshot-to-snapshot diff as one value (`SnapshotDiff`) and its two renderings: JSON for
 * machines, Markdown for people. Both name the later snapshot by id and manifest root hash (JSON:
 * `to`; Markdown: its provenance line), which bundle verification checks. Goals, attack and
 * assessment names are attacker-controlled: escaped, and goals truncated, in Markdown.
 */
import { escapeMarkdownText, markdownCode } from '../report/escape.js';
import { provenanceLine } from '../snapshot/provenance-line.js';
import type { FindingLifecycle, FindingRecord } from './finding-lifecycle.js';
import type { MetricDelta } from './metric-deltas.js';
import type { SchemaDriftChange } from './schema-drift-diff.js';

export const DIFF_FORMAT = 'airt-diff/1';

/** Rows per finding list in Markdown; the JSON always has every finding. */
const MARKDOWN_LIST_LIMIT = 50;
const GOAL_MAX_CHARS = 120;

export interface DiffSnapshotRef {
  snapshot_id: string;
  fetched_at: string | null;
  root_sha256: string | null;
}

export interface ProjectDiff {
  project: string;
  /** Whether the previous snapshot held this project; null when there is no previous snapshot. */
  in_previous: boolean | null;
  counts: { new: number; resolved: number; regressed: number; persisting: number };
  findings: FindingLifecycle;
  metrics: MetricDelta[];
  /** Assessments whose attack runs an analytics warning excluded: their findings are unknown, in neither list. */
  excluded: { assessment_id: string; field: string; reason: string }[];
}

export interface SnapshotDiff {
  format: typeof DIFF_FORMAT;
  /** Null when there is no earlier snapshot: every open finding is new. */
  from: DiffSnapshotRef | null;
  to: DiffSnapshotRef;
  projects: ProjectDiff[];
  schema_drift: SchemaDriftChange[];
}

/** Assembles a ProjectDiff with its counts (field order fixed for deterministic JSON). */
export function projectDiff(
  project: string,
  findings: FindingLifecycle,
  metrics: MetricDelta[],
  context: Pick<ProjectDiff, 'in_previous' | 'excluded'> = { in_previous: null, excluded: [] },
): ProjectDiff {
  return {
    project,
    in_previous: context.in_previous,
    counts: {
      new: findings.new.length,
      resolved: findings.resolved.length,
      regressed: findings.regressed.length,
      persisting: findings.persisting.length,
    },
    findings,
    metrics,
    excluded: context.excluded,
  };
}

export function diffJson(diff: SnapshotDiff): string {
  return `${JSON.stringify(diff, null, 2)}\n`;
}

export function diffMarkdown(diff: SnapshotDiff): string {
  const lines: string[] = ['# Changes between snapshots', ''];
  lines.push(
    `From ${diff.from === null ? 'no earlier snapshot (every open finding counts as new)' : snapshotLabel(diff.from)} ` +
      `to ${snapshotLabel(diff.to)}.`,
    // The snapshot the diff leads to, as `airt-report verify BUNDLE.zip` checks it against the manifest.
    provenanceLine(diff.to.snapshot_id, diff.to.root_sha256),
    '',
  );
  if (diff.projects.length === 0) lines.push('No project is in both scope and the snapshot.', '');
  for (const project of diff.projects) lines.push(...projectSection(project));
  lines.push('## Schema drift', '');
  if (diff.schema_drift.length === 0) {
    lines.push('No change in the keys the API sends beyond its specification.', '');
  } else {
    lines.push('| File kind | Keys added | Keys removed |', '| --- | --- | --- |');
    for (const change of diff.schema_drift) {
      lines.push(
        `| ${escapeMarkdownText(change.file_kind)} | ${keyList(change.added)} | ${keyList(change.removed)} |`,
      );
    }
    lines.push('');
  }
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}

function projectSection(project: ProjectDiff): string[] {
  const { counts, findings } = project;
  const lines = [
    `## Project ${escapeMarkdownText(project.project)}`,
    '',
    `${counts.new} new, ${counts.resolved} resolved, ${counts.regressed} regressed, ${counts.persisting} persisting findings.`,
    '',
  ];
  if (project.in_previous === false) {
    lines.push('The previous snapshot did not hold this project: every open finding counts as new.', '');
  }
  if (project.excluded.length > 0) {
    const ids = [...new Set(project.excluded.map((e) => e.assessment_id))];
    lines.push(
      `Findings of ${ids.length} ${ids.length === 1 ? 'assessment' : 'assessments'} are unknown (attack runs excluded by ` +
        `an analytics warning) and in no list: ${ids.map(markdownCode).join(', ')}.`,
      '',
    );
  }
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
  return lines;
}

function metricTable(metrics: readonly MetricDelta[]): string[] {
  // Metrics unknown on both sides say nothing in a table (the JSON keeps them).
  const shown = metrics.filter((metric) => metric.from !== null || metric.to !== null);
  if (shown.length === 0) return [];
  const lines = ['| Metric | Before | After | Change |', '| --- | ---: | ---: | ---: |'];
  for (const metric of shown) {
    const name =
      metric.group === 'overall' ? metric.key : `${metric.group.replace(/_/g, ' ')}: ${metric.key}`;
    const before = metric.presence === 'added' ? '—' : number(metric.from);
    const after = metric.presence === 'removed' ? '—' : number(metric.to);
    const change = metric.presence === 'both' ? signed(metric.delta) : metric.presence;
    lines.push(`| ${escapeMarkdownText(name)} | ${before} | ${after} | ${change} |`);
  }
  return [...lines, ''];
}

function findingTable(title: string, rows: { finding: FindingRecord; note: string }[]): string[] {
  if (rows.length === 0) return [`### ${title}`, '', 'None.', ''];
  const lines = [
    `### ${title} (${rows.length})`,
    '',
    '| Severity | Score | Attack | Goal category | Assessment | Goal | Change |',
    '| --- | ---: | --- | --- | --- | --- | --- |',
  ];
  for (const { finding, note } of rows.slice(0, MARKDOWN_LIST_LIMIT)) {
    const cells = [
      escapeMarkdownText(finding.severity),
      number(finding.score),
      escapeMarkdownText(finding.attack_name),
      escapeMarkdownText(finding.goal_category ?? '—'),
      escapeMarkdownText(finding.assessment_name ?? finding.assessment_id),
      escapeMarkdownText(truncate(finding.goal, GOAL_MAX_CHARS)),
      escapeMarkdownText(note || '—'),
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

function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

function number(value: number | null): string {
  return value === null ? 'unknown' : String(Math.round(value * 10_000) / 10_000);
}

function signed(value: number | null): string {
  if (value === null) return 'unknown';
  const rounded = Math.round(value * 10_000) / 10_000;
  return rounded > 0 ? `+${rounded}` : String(rounded);
}
