/**
 * One rule for unsafe characters in every terminal and Markdown output: a finding or name holding
 * U+202E (bidi override), U+2028 (line separator), U+200B (zero width space) or an ESC sequence
 * reaches none of the diff (Markdown and JSON, file or terminal), the query table/markdown formats,
 * triage's terminal text, the run summary or bundle verification raw.
 */
import { describe, expect, it } from 'vitest';
import { diffFindings, type FindingRecord } from '../src/diff/finding-lifecycle.js';
import { diffJson, diffMarkdown, projectDiff, type SnapshotDiff } from '../src/diff/diff-report.js';
import { humanSummary } from '../src/pipeline/run-summary.js';
import { bundleVerificationText } from '../src/pipeline/verify-bundle.js';
import { sanitizeText } from '../src/report/untrusted-text.js';
import { terminalSafe, terminalSafeJson } from '../src/triage/terminal-text.js';
import { formatResult } from '../src/warehouse/output-format.js';
import { markdownCode, neutralizeControls } from '../src/text-safety.js';

const HOSTILE = 'evil\u202Etxt.exe\u2028next\u200Bhidden\u001B[31mred\u001B]0;title\u0007';
// eslint-disable-next-line no-control-regex -- finding raw control characters is the point
const RAW = /[\u202E\u2028\u2029\u200B\u001B\u0007]/u;

function finding(id: string): FindingRecord {
  return {
    attack_run_id: id,
    assessment_id: 'a1',
    assessment_name: HOSTILE,
    attack_name: HOSTILE,
    goal_category: HOSTILE,
    goal: HOSTILE,
    severity: 'critical',
    score: 0.9,
    finding_status: null,
  };
}

function hostileDiff(): SnapshotDiff {
  const lifecycle = diffFindings([], [finding('r1')]);
  return {
    format: 'airt-diff/1',
    from: null,
    to: { snapshot_id: 's2', fetched_at: '2026-03-15T06:00:00Z', root_sha256: 'ab'.repeat(32) },
    projects: [
      projectDiff(HOSTILE, lifecycle, [
        { group: 'category', key: HOSTILE, from: 0.1, to: 0.5, delta: 0.4, presence: 'both' } as never,
      ]),
    ],
    schema_drift: [{ file_kind: HOSTILE, added: [HOSTILE], removed: [] }],
  };
}

describe('text safety across outputs', () => {
  it('diff Markdown and JSON carry no raw bidi, separator, zero-width or ESC character', () => {
    const diff = hostileDiff();
    const markdown = diffMarkdown(diff);
    expect(markdown).not.toMatch(RAW);
    expect(markdown).toContain('\\u{202e}');
    const json = diffJson(diff);
    expect(json).not.toMatch(RAW);
    // Still the same values for a JSON reader.
    expect((JSON.parse(json) as SnapshotDiff).projects[0]?.project).toBe(HOSTILE);
  });

  it('query table and markdown formats neutralize the same characters', () => {
    const result = { columns: [{ name: HOSTILE, type: 'VARCHAR', json: false }], rows: [[HOSTILE]] };
    for (const format of ['table', 'markdown'] as const) {
      expect(formatResult(result, format)).not.toMatch(RAW);
    }
  });

  it('triage terminal text, run summary lines and bundle verification text are inert', () => {
    expect(terminalSafe(HOSTILE)).not.toMatch(RAW);
    expect(terminalSafeJson({ note: HOSTILE })).not.toMatch(RAW);
    const verification = bundleVerificationText({
      bundle: HOSTILE,
      ok: false,
      entries: 1,
      checked: 0,
      provenance_checked: [],
      root_sha256: null,
      problems: [HOSTILE],
      notes: [HOSTILE],
      // A signer's principals come from the allowed_signers file: shown inert too.
      signature: {
        status: 'verified',
        source: 'bundle',
        signer: HOSTILE,
        key_fingerprint: 'SHA256:x',
        detail: HOSTILE,
      },
    } as never);
    expect(verification).not.toMatch(RAW);
    const summary = humanSummary(
      {
        interruption: null,
        snapshot: { id: 's1' },
        org: 'o',
        workspace: 'w',
        outcome: 'failed',
        exit_code: 1,
        steps: [{ name: 'load', status: 'failed', duration_ms: 1, error: HOSTILE, detail: null }],
        gates: [{ gate: HOSTILE, project: HOSTILE, status_text: HOSTILE, trips: true, value: null }],
        warnings: [HOSTILE],
        failed_steps: ['load'],
        failed_requests: [{ method: 'GET', path: HOSTILE, status: null, attempts: 1, error: HOSTILE }],
        baseline: { advanced: false, snapshot_id: HOSTILE, reason: HOSTILE },
      } as never,
      null,
    );
    expect(summary).not.toMatch(RAW);
  });

  it('one rule: every helper shows the characters visibly instead of dropping them', () => {
    for (const text of [neutralizeControls(HOSTILE), markdownCode(HOSTILE), terminalSafe(HOSTILE)]) {
      expect(text).not.toMatch(RAW);
      expect(text).toContain('\\u{200b}');
    }
    // The report keeps its own label style for the same set.
    expect(sanitizeText('a\u200Bb\u202Ec')).toBe('a[U+200B]b[U+202E]c');
  });
});
