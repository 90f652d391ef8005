/**
 * The gate report, as JSON (for machines and the bundle) and Markdown (for people and CI logs): every
 * gate with its value and status, and for each tripped gate the rows that tripped it. Both name the
 * snapshot they were measured on (id and manifest root hash), which bundle verification checks.
 * Row labels and fields come from the service (attack names, goal categories, assessment names) and
 * are escaped; in both outputs their bidi and control characters are shown visibly (text-safety), as
 * the terminal prints the Markdown and people `cat` the JSON.
 */
import { escapeMarkdownText, markdownCode, terminalSafeJson } from '../text-safety.js';
import { provenanceLine, unverifiedMarkdownLine } from '../snapshot/provenance-line.js';
import type { ExpiringAcceptance } from '../metrics/read-acceptances.js';
import { expiringAcceptancesMarkdown } from '../diff/acceptances-markdown.js';
import type { EvidenceRow, EvidenceValue, GateResult } from './gates.js';
import { compareGate } from './gate-expression.js';

export const GATE_REPORT_FORMAT = 'airt-gate-report/1';

/** Rows shown per tripped gate in Markdown; the JSON report always has all of them. */
const MARKDOWN_ROW_LIMIT = 50;

/** Every gate's result with its measurements and evidence, for Markdown and JSON output. */
export interface GateReport {
  format: typeof GATE_REPORT_FORMAT;
  snapshot_id: string;
  previous_snapshot_id: string | null;
  /**
   * Why the gates compared with that snapshot, e.g. `the gated baseline (…)`; null when the builder
   * was not told.
   */
  previous_snapshot_reason: string | null;
  /** Manifest root hash of the snapshot the gates were measured on (provenance). */
  root_sha256: string | null;
  /**
   * The measured or compared snapshot(s) loaded although they failed verification (forced): the gate
   * results rest on files that do not match their manifests. Present only when there are some.
   */
  unverified_snapshots?: string[];
  /**
   * The org and workspace of the snapshot, present when the database holds more than one (org,
   * workspace): the results name projects by key, which is unique only inside a workspace.
   */
  workspace?: { org: string; workspace: string };
  tripped: boolean;
  counts: { gates: number; pass: number; fail: number; unknown: number; insufficient_evidence: number };
  results: GateResult[];
  /**
   * Dated risk acceptances that hold now and end within 30 days: their findings count as open (and
   * may trip a gate) once they expire. Present only when there are some.
   */
  expiring_acceptances?: ExpiringAcceptance[];
}

/** The gate report of a run: each gate's result with its evidence rows. */
export function buildGateReport(input: {
  snapshotId: string;
  previousSnapshotId: string | null;
  /** Why that previous snapshot (gates-baseline.ts words the reasons). */
  previousSnapshotReason?: string | undefined;
  rootSha256: string | null;
  /** Of the two snapshots, those loaded unverified (snapshot-lookup.ts unverifiedSnapshotIds). */
  unverifiedSnapshots?: readonly string[] | undefined;
  workspace?: { org: string; workspace: string } | undefined;
  results: GateResult[];
  expiringAcceptances?: ExpiringAcceptance[] | undefined;
}): GateReport {
  const count = (status: GateResult['status']): number =>
    input.results.filter((r) => r.status === status).length;
  return {
    format: GATE_REPORT_FORMAT,
    snapshot_id: input.snapshotId,
    previous_snapshot_id: input.previousSnapshotId,
    previous_snapshot_reason: input.previousSnapshotReason ?? null,
    root_sha256: input.rootSha256,
    ...(input.unverifiedSnapshots === undefined || input.unverifiedSnapshots.length === 0
      ? {}
      : { unverified_snapshots: [...input.unverifiedSnapshots] }),
    ...(input.workspace === undefined ? {} : { workspace: input.workspace }),
    tripped: input.results.some((r) => r.trips),
    counts: {
      gates: input.results.length,
      pass: count('pass'),
      fail: count('fail'),
      unknown: count('unknown'),
      insufficient_evidence: count('insufficient_evidence'),
    },
    results: input.results,
    ...(input.expiringAcceptances === undefined || input.expiringAcceptances.length === 0
      ? {}
      : { expiring_acceptances: input.expiringAcceptances }),
  };
}

/**
 * Deterministic JSON (fixed field order from the builders, two-space indent, final newline). Unsafe
 * characters are written as `\uXXXX` escapes, so a parser still reads back the exact data.
 */
export function gateReportJson(report: GateReport): string {
  return `${terminalSafeJson(report)}\n`;
}

/** A gate report as Markdown. */
export function gateReportMarkdown(report: GateReport): string {
  const lines: string[] = ['# Gate report', ''];
  // The same warning, in the same shape, as a report of a forced load (verify BUNDLE.zip finds it).
  const unverified = report.unverified_snapshots ?? [];
  if (unverified.length > 0)
    lines.push(
      unverifiedMarkdownLine(
        unverified,
        'these gate results rest on files that do not match the manifest, not on the snapshot whose root hash is shown.',
      ),
      '',
    );
  lines.push(
    `Snapshot ${markdownCode(report.snapshot_id)}, compared with ` +
      `${report.previous_snapshot_id === null ? 'no previous snapshot' : markdownCode(report.previous_snapshot_id)}` +
      `${report.previous_snapshot_reason === null ? '' : `: ${escapeMarkdownText(report.previous_snapshot_reason)}`}.`,
  );
  // Read back by `airt-report verify BUNDLE.zip` to tie this report to the bundled manifest.
  lines.push(provenanceLine(report.snapshot_id, report.root_sha256), '');
  if (report.workspace !== undefined) {
    lines.push(
      `Org and workspace: ${markdownCode(`${report.workspace.org}/${report.workspace.workspace}`)}.`,
      '',
    );
  }
  if (report.results.length === 0) {
    lines.push('No gates are configured.', '', ...expiringAcceptancesMarkdown(report.expiring_acceptances));
    return lines.join('\n');
  }
  const { gates, pass, fail, unknown, insufficient_evidence: insufficient } = report.counts;
  lines.push(
    `**${report.tripped ? 'Tripped' : insufficient > 0 ? 'No gate tripped' : 'All gates hold'}**: ${gates} checked, ${pass} passed, ${fail} failed, ${unknown} unknown` +
      `${insufficient > 0 ? `, ${insufficient} with insufficient evidence (neither passed nor failed)` : ''}.`,
    '',
    '| Gate | Project | Value | Status |',
    '| --- | --- | ---: | --- |',
  );
  for (const result of report.results) {
    const status = result.trips
      ? `**${escapeMarkdownText(result.status_text)}**`
      : escapeMarkdownText(result.status_text);
    lines.push(
      `| ${markdownCode(result.gate)} | ${escapeMarkdownText(result.project)} | ${resultValue(result)} | ${status} |`,
    );
  }
  lines.push('');
  for (const result of report.results) {
    const explain = result.trips || result.status === 'insufficient_evidence';
    if (!explain && result.note === null && result.excluded.length === 0) continue;
    lines.push(
      `## ${markdownCode(result.gate)} on ${escapeMarkdownText(result.project)}: ${escapeMarkdownText(result.status_text)}`,
      '',
    );
    if (result.note !== null) lines.push(escapeMarkdownText(result.note), '');
    if (result.excluded.length > 0) {
      lines.push('Excluded by analytics warnings:', '');
      for (const exclusion of result.excluded) {
        lines.push(
          `- assessment ${markdownCode(exclusion.assessment_id)}: ${escapeMarkdownText(exclusion.field)} ` +
            `(${escapeMarkdownText(exclusion.reason)})`,
        );
      }
      lines.push('');
    }
    if (result.status === 'fail') lines.push(...rowsTable(result.tripping_rows, failRowsHeading(result)), '');
    else if (result.status === 'unknown' && result.tripping_rows.length > 0)
      lines.push(...rowsTable(result.tripping_rows, 'Findings of unknown severity that could count'), '');
  }
  lines.push(...expiringAcceptancesMarkdown(report.expiring_acceptances));
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}

/** The value, or the range a count lies in when findings of unknown severity leave it unknown. */
function resultValue(result: GateResult): string {
  if (result.value === null && result.value_range !== undefined)
    return `${result.value_range.min} to ${result.value_range.max}`;
  return formatValue(result.value);
}

/**
 * What a failed gate's rows are: each one breaking the threshold itself (a min/max metric's rows), or
 * the rows behind a pooled value or count, some of which are within it (an assessment at 0.14 under
 * `overall_asr <= 0.25` did not trip the gate; the pooled value did).
 */
function failRowsHeading(result: GateResult): string {
  const each = result.tripping_rows.every(
    (row) => row.value !== null && !compareGate(row.value, result.op, result.threshold),
  );
  return each ? 'Rows that tripped it' : 'Rows behind the value';
}

function rowsTable(rows: readonly EvidenceRow[], heading: string): string[] {
  if (rows.length === 0) return ['No individual rows: the value itself breaks the threshold.'];
  const columns: string[] = [];
  for (const row of rows) {
    for (const key of Object.keys(row.fields)) if (!columns.includes(key)) columns.push(key);
  }
  const shown = rows.slice(0, MARKDOWN_ROW_LIMIT);
  const header = ['Row', 'Value', ...columns.map(escapeMarkdownText)];
  const align = ['---', '---:', ...columns.map(() => '---')];
  const lines = [`${heading} (${rows.length}):`, '', tableLine(header), tableLine(align)];
  for (const row of shown) {
    const cells = columns.map((column) => formatCell(row.fields[column]));
    lines.push(tableLine([escapeMarkdownText(row.label), formatValue(row.value), ...cells]));
  }
  if (rows.length > shown.length) {
    lines.push('', `… and ${rows.length - shown.length} more rows in gate-report.json.`);
  }
  return lines;
}

function tableLine(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}

function formatCell(value: EvidenceValue | undefined): string {
  if (value === undefined || value === null) return '—';
  if (typeof value === 'number') return formatValue(value);
  return escapeMarkdownText(String(value));
}

/** Numbers as written in the data, rounded to 4 decimals so float noise does not reach the report. */
function formatValue(value: number | null): string {
  if (value === null) return '—';
  return String(Math.round(value * 10_000) / 10_000);
}
