/**
 * The gate report as JUnit XML, the test-report format GitLab, Jenkins, GitHub Actions reporters and
 * Azure DevOps show natively: one `<testcase>` per gate and project (as in the gate report), a
 * `<failure>` for a result that trips the run (the message names value, operator, threshold and how
 * many rows are behind it; the body lists those rows: for a count left unknown by findings of unknown
 * severity, those findings), `<skipped>` for a result that neither passes nor trips (insufficient
 * evidence, an unknown gate under `on_unknown_gate: warn`).
 *
 * Attacker-influenced text (project keys, row labels from attack and goal names) is XML-escaped;
 * controls, bidi and invisible characters are shown as `\u{…}` (the project's one rule, text-safety),
 * lone surrogates become U+FFFD, and the few code points XML 1.0 cannot hold at all (U+FFFE, U+FFFF)
 * are removed, so any JUnit reader parses the file. No timestamp or duration: the same gate report
 * gives the same bytes.
 */
import { replaceLoneSurrogates, showUnsafeCharacters } from '../text-safety.js';
import type { GateReport } from './gate-report.js';
import type { EvidenceRow, GateResult } from './gates.js';

/** Rows listed in one failure's body; gate-report.json has them all. */
const ROW_LIMIT = 200;
const SUITE_NAME = 'airt-report gates';

// What XML 1.0 allows beyond tab, LF and CR; controls were already shown visibly before this runs.
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text safe for XML character data and attribute values (double-quoted). */
export function xmlText(text: string): string {
  return showUnsafeCharacters(replaceLoneSurrogates(text))
    .replace(NOT_XML, '')
    .replace(/&/gu, '&amp;')
    .replace(/</gu, '&lt;')
    .replace(/>/gu, '&gt;')
    .replace(/"/gu, '&quot;')
    .replace(/'/gu, '&apos;');
}

/** Attribute values: newlines and tabs as character references, or XML readers fold them to spaces. */
function attribute(text: string): string {
  return xmlText(text).replace(/\n/gu, '&#10;').replace(/\r/gu, '&#13;').replace(/\t/gu, '&#9;');
}

function formatValue(value: number | null): string {
  return value === null ? 'unknown' : String(Math.round(value * 10_000) / 10_000);
}

function caseName(result: GateResult): string {
  return `${result.gate} [${result.project}]`;
}

/** "overall_asr is 0.5833, threshold <= 0.25 does not hold; 12 rows behind it". */
export function failureMessage(result: GateResult): string {
  const rows = result.tripping_rows.length;
  const behind =
    rows === 0
      ? 'no individual rows: the value itself breaks the threshold'
      : `${rows} ${rows === 1 ? 'row' : 'rows'} behind it`;
  if (result.status === 'unknown') {
    // A count that findings of unknown severity leave between two values: the rows are those findings.
    const value =
      result.value_range === undefined
        ? 'value unknown'
        : `value between ${result.value_range.min} and ${result.value_range.max}`;
    const findings =
      rows === 0 ? '' : `; ${rows} ${rows === 1 ? 'finding' : 'findings'} of unknown severity behind it`;
    return `${result.gate}: ${value}, threshold ${result.op} ${result.threshold} cannot be checked (${result.status_text})${findings}`;
  }
  return `${result.gate}: value ${formatValue(result.value)}, threshold ${result.op} ${result.threshold} does not hold (${result.status_text}); ${behind}`;
}

function rowLine(row: EvidenceRow): string {
  const fields = Object.entries(row.fields)
    .map(([key, value]) => `${key}=${value === null ? '—' : String(value)}`)
    .join(', ');
  return `- ${row.label}${row.value === null ? '' : ` (value ${formatValue(row.value)})`}${fields ? `: ${fields}` : ''}`;
}

function failureBody(result: GateResult): string {
  const lines = [`Project: ${result.project}`];
  if (result.note !== null) lines.push(`Note: ${result.note}`);
  for (const exclusion of result.excluded) {
    lines.push(`Excluded: assessment ${exclusion.assessment_id} ${exclusion.field} (${exclusion.reason})`);
  }
  if (result.tripping_rows.length > 0) {
    const heading =
      result.status === 'unknown' ? 'Findings of unknown severity that could count' : 'Rows behind it';
    lines.push(`${heading} (${result.tripping_rows.length}):`);
    lines.push(...result.tripping_rows.slice(0, ROW_LIMIT).map(rowLine));
    const more = result.tripping_rows.length - ROW_LIMIT;
    if (more > 0) lines.push(`… and ${more} more rows in gate-report.json`);
  }
  return lines.join('\n');
}

function testcase(result: GateResult): string[] {
  const head = `    <testcase name="${attribute(caseName(result))}" classname="${attribute(`airt-report.gates.${result.project}`)}"`;
  if (result.trips) {
    const type = result.status === 'unknown' ? 'unknown' : 'gate_failed';
    return [
      `${head}>`,
      `      <failure message="${attribute(failureMessage(result))}" type="${type}">${xmlText(failureBody(result))}</failure>`,
      '    </testcase>',
    ];
  }
  if (result.status !== 'pass' && result.status !== 'fail') {
    return [
      `${head}>`,
      `      <skipped message="${attribute(`${result.gate}: ${result.status_text}`)}"/>`,
      '    </testcase>',
    ];
  }
  return [`${head}/>`];
}

/** The whole report as one JUnit XML document (one suite; its properties name the snapshot). */
export function gateReportJunit(report: GateReport): string {
  const tests = report.results.length;
  const failures = report.results.filter((result) => result.trips).length;
  const skipped = report.results.filter(
    (result) => !result.trips && result.status !== 'pass' && result.status !== 'fail',
  ).length;
  const counts = `tests="${tests}" failures="${failures}" errors="0" skipped="${skipped}"`;
  const properties: [string, string | null][] = [
    ['snapshot_id', report.snapshot_id],
    ['previous_snapshot_id', report.previous_snapshot_id],
    ['root_sha256', report.root_sha256],
    ...(report.workspace === undefined
      ? []
      : ([['workspace', `${report.workspace.org}/${report.workspace.workspace}`]] as [string, string][])),
  ];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${SUITE_NAME}" ${counts}>`,
    `  <testsuite name="${SUITE_NAME}" ${counts}>`,
    '    <properties>',
    ...properties.map(
      ([name, value]) => `      <property name="${name}" value="${attribute(value ?? '')}"/>`,
    ),
    '    </properties>',
    ...report.results.flatMap(testcase),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
