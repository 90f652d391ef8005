/**
 * A diff row's before, after and change never contradict each other: two different values that round
 * alike at the usual decimals (risk 8.11 → 8.06 at one decimal) are shown with more, so the row reads
 * "8.11 | 8.06 | -0.05", not "8.1 | 8.1 | -0.1". The JSON carries the exact values.
 */
import { describe, expect, it } from 'vitest';
import { diffJson, diffMarkdown, projectDiff, type SnapshotDiff } from '../../src/diff/diff-report.js';
import { diffFindings } from '../../src/diff/finding-lifecycle.js';
import { metricDeltas, type ProjectMetrics } from '../../src/diff/metric-deltas.js';
import { changeDigits, formatLift, formatPercent } from '../../src/number-format.js';

function diffOf(before: ProjectMetrics, after: ProjectMetrics): SnapshotDiff {
  return {
    format: 'airt-diff/1',
    from: { snapshot_id: 's3', fetched_at: null, root_sha256: null },
    to: { snapshot_id: 's4', fetched_at: null, root_sha256: null },
    projects: [projectDiff('demo', diffFindings([], []), metricDeltas(before, after))],
    schema_drift: [],
  };
}

const base: ProjectMetrics = {
  overall_asr: 0.2,
  risk_score: 6,
  asr_by_category: {},
  coverage_by_framework: {},
  evaluation_pass_rates: {},
};

/** The Markdown table row of the metric labelled `label`, as its cells. */
function row(markdown: string, label: string): string[] {
  const line = markdown.split('\n').find((l) => l.startsWith(`| ${label} |`));
  expect(line, `a row for ${label}`).toBeDefined();
  return (line ?? '')
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim());
}

describe('diff figures that round alike', () => {
  it('shows a risk score change with the decimals that tell its sides apart', () => {
    const diff = diffOf({ ...base, risk_score: 8.11 }, { ...base, risk_score: 8.06 });
    expect(row(diffMarkdown(diff), 'risk score')).toEqual(['risk score', '8.11', '8.06', '-0.05']);
    // The JSON carries the exact values, not the display.
    const json = JSON.parse(diffJson(diff)) as SnapshotDiff;
    expect(json.projects[0]?.metrics.find((m) => m.key === 'risk_score')).toMatchObject({
      from: 8.11,
      to: 8.06,
      delta: -0.05,
    });
  });

  it('shows percentages (ASR, coverage, pass rates) the same way', () => {
    const markdown = diffMarkdown(
      diffOf(
        {
          ...base,
          overall_asr: 0.45612,
          asr_by_category: { jailbreak: 0.3001 },
          coverage_by_framework: { owasp_llm: 40.04 },
          evaluation_pass_rates: { nightly: 0.9 },
        },
        {
          ...base,
          overall_asr: 0.45638,
          asr_by_category: { jailbreak: 0.3004 },
          coverage_by_framework: { owasp_llm: 40.01 },
          evaluation_pass_rates: { nightly: 0.8999 },
        },
      ),
    );
    expect(row(markdown, 'overall ASR')).toEqual(['overall ASR', '45.61%', '45.64%', '+0.03 pp']);
    expect(row(markdown, 'category ASR: `jailbreak`')).toEqual([
      'category ASR: `jailbreak`',
      '30.01%',
      '30.04%',
      '+0.03 pp',
    ]);
    expect(row(markdown, 'framework coverage: `owasp_llm`')).toEqual([
      'framework coverage: `owasp_llm`',
      '40.04%',
      '40.01%',
      '-0.03 pp',
    ]);
    expect(row(markdown, 'evaluation pass rate: `nightly`')).toEqual([
      'evaluation pass rate: `nightly`',
      '90.00%',
      '89.99%',
      '-0.01 pp',
    ]);
  });

  it('keeps the usual decimals when they already tell the sides apart', () => {
    const markdown = diffMarkdown(diffOf(base, { ...base, overall_asr: 0.3, risk_score: 5.5 }));
    expect(row(markdown, 'risk score')).toEqual(['risk score', '6.0', '5.5', '-0.5']);
    expect(row(markdown, 'overall ASR')).toEqual(['overall ASR', '20.0%', '30.0%', '+10.0 pp']);
    const unchanged = diffMarkdown(diffOf(base, base));
    expect(row(unchanged, 'risk score')).toEqual(['risk score', '6.0', '6.0', '0.0']);
  });

  it('never shows a nonzero change between sides that read alike, or a zero one between sides that differ', () => {
    const values = [0, 0.1, 0.12, 0.123, 0.1234, 0.12345, 0.4999, 0.5, 0.50004, 0.99996, 1];
    for (const from of values) {
      for (const to of values) {
        const [metric] = metricDeltas({ ...base, overall_asr: from }, { ...base, overall_asr: to });
        const delta = metric?.delta ?? null;
        const digits = changeDigits(from * 100, to * 100, delta === null ? null : delta * 100, 1);
        const [before, after, change] = [
          formatPercent(from, digits),
          formatPercent(to, digits),
          formatLift(delta, digits),
        ];
        const zero = Number.parseFloat(change) === 0;
        expect(before === after, `${from} → ${to}: ${before} | ${after} | ${change}`).toBe(zero);
      }
    }
  });
});

describe('changeDigits', () => {
  it('adds decimals only as far as the sides and change need', () => {
    expect(changeDigits(8.11, 8.06, -0.05, 1)).toBe(2);
    expect(changeDigits(6, 5.5, -0.5, 1)).toBe(1);
    expect(changeDigits(8.149, 8.151, 0.002, 1)).toBe(3);
    expect(changeDigits(1, 1, 0, 1)).toBe(1);
    expect(changeDigits(null, 8.06, null, 1)).toBe(1);
    expect(changeDigits(0.1234567, 0.1234568, 0.0000001, 1)).toBe(6);
  });
});
