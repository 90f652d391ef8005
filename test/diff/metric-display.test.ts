/**
 * A diff row's before, after and change never contradict each other: two different values that round
 * alike at the usual decimals (risk 8.11 → 8.06 at one decimal) are shown with more, so the row reads
 * "8.11 | 8.06 | -0.05", not "8.1 | 8.1 | -0.1". The JSON carries the exact values.
 */
import { describe, expect, it } from 'vitest';
import { diffJson, diffMarkdown, projectDiff, type SnapshotDiff } from '../../src/diff/diff-report.js';
import { diffFindings } from '../../src/diff/finding-lifecycle.js';
import { metricDeltas, type MetricDelta, type ProjectMetrics } from '../../src/diff/metric-deltas.js';
import {
  changeDigits,
  formatLift,
  formatPercent,
  formatSignedDecimal,
  isNoChange,
} from '../../src/number-format.js';

function diffOf(before: ProjectMetrics, after: ProjectMetrics): SnapshotDiff {
  return diffWith(metricDeltas(before, after));
}

function diffWith(metrics: MetricDelta[]): SnapshotDiff {
  return {
    format: 'airt-diff/1',
    from: { snapshot_id: 's3', fetched_at: null, root_sha256: null },
    to: { snapshot_id: 's4', fetched_at: null, root_sha256: null },
    projects: [projectDiff('demo', diffFindings([], []), metrics)],
    schema_drift: [],
  };
}

/** An overall metric known on both sides, its delta exactly as given (not rounded as metricDeltas does). */
function overall(key: 'overall_asr' | 'risk_score', from: number, to: number, delta: number): MetricDelta {
  return { group: 'overall', key, from, to, delta, presence: 'both', excluded: null };
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
    expect(changeDigits(0.1234561, 0.1234572, 0.0000011, 1)).toBe(6);
    // Percent 35% → 42%; risk 8.14 → 8.25 reads 8.1 | 8.3 | +0.1 (rounded figures, one last-place unit).
    expect(changeDigits(35, 42, 7, 1)).toBe(1);
    expect(changeDigits(8.14, 8.25, 0.11, 1)).toBe(1);
  });

  it('treats a change below what maxDigits can show as no change (floating-point noise)', () => {
    // 0.3 against 0.1 + 0.2, in percent: 30 | 30.000000000000004 | 5.6e-15.
    const [from, to] = [0.3 * 100, (0.1 + 0.2) * 100];
    expect(changeDigits(from, to, to - from, 1)).toBe(1);
    expect(changeDigits(to, from, from - to, 1)).toBe(1);
    // A change of 1e-7 cannot show at six decimals: no change, though the sides differ.
    expect(changeDigits(0.1234567, 0.1234568, 0.0000001, 1)).toBe(1);
    expect(changeDigits(0.1234567, 0.1234568, 0.0000001, 1, 7)).toBe(7);
    expect(isNoChange(5.6e-15)).toBe(true);
    expect(isNoChange(-4.9e-7)).toBe(true);
    expect(isNoChange(0)).toBe(true);
    expect(isNoChange(1e-6)).toBe(false);
    expect(isNoChange(null)).toBe(false);
    expect(isNoChange(Number.NaN)).toBe(false);
  });

  it('reads a change that rounds to zero as zero, whatever its sign', () => {
    for (const tiny of [5.6e-17, -5.6e-17, 0.0004, -0.0004]) {
      expect(formatLift(tiny)).toBe('0.0 pp');
      expect(formatSignedDecimal(tiny * 100, 1)).toBe('0.0');
    }
    expect(formatLift(0.0005)).toBe('+0.1 pp');
    expect(formatLift(0.125)).toBe('+12.5 pp');
    expect(formatLift(-0.125)).toBe('-12.5 pp');
  });
});

describe('a diff row that only floating-point noise changed', () => {
  it('reads exactly as an unchanged row', () => {
    // The same figure reached by different sums: 0.1 + 0.2 against 0.3, 8.1 + 0.2 against 8.3.
    const rows = (asr: [number, number], risk: [number, number]): string[][] => {
      const markdown = diffMarkdown(
        diffWith([
          overall('overall_asr', asr[0], asr[1], asr[1] - asr[0]),
          overall('risk_score', risk[0], risk[1], risk[1] - risk[0]),
        ]),
      );
      return [row(markdown, 'overall ASR'), row(markdown, 'risk score')];
    };
    const unchanged = [
      ['overall ASR', '30.0%', '30.0%', '0.0 pp'],
      ['risk score', '8.3', '8.3', '0.0'],
    ];
    expect(rows([0.3, 0.3], [8.3, 8.3])).toEqual(unchanged);
    expect(rows([0.3, 0.1 + 0.2], [8.3, 8.1 + 0.2])).toEqual(unchanged);
    expect(rows([0.1 + 0.2, 0.3], [8.1 + 0.2, 8.3])).toEqual(unchanged);
  });
});

describe('a diff row of ordinary figures', () => {
  it('keeps one decimal, and more only where sides or change would read alike', () => {
    const markdown = diffMarkdown(
      diffOf(
        { ...base, overall_asr: 0.35, risk_score: 8.11 },
        { ...base, overall_asr: 0.42, risk_score: 8.06 },
      ),
    );
    expect(row(markdown, 'overall ASR')).toEqual(['overall ASR', '35.0%', '42.0%', '+7.0 pp']);
    expect(row(markdown, 'risk score')).toEqual(['risk score', '8.11', '8.06', '-0.05']);
    const thirds = diffMarkdown(diffOf({ ...base, overall_asr: 1 / 3 }, { ...base, overall_asr: 2 / 3 }));
    expect(row(thirds, 'overall ASR')).toEqual(['overall ASR', '33.3%', '66.7%', '+33.3 pp']);
  });
});

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Where changeDigits breaks its rule for a row, as text; null where it keeps it. */
function ruleBroken(before: number, after: number, change: number, digits = 1, maxDigits = 6): string | null {
  const d = changeDigits(before, after, change, digits, maxDigits);
  const noise = Math.abs(change) < 0.5 / 10 ** maxDigits;
  const reads = (n: number): boolean =>
    before.toFixed(n) !== after.toFixed(n) && Number(change.toFixed(n)) !== 0;
  const range = Array.from({ length: maxDigits - digits + 1 }, (_, i) => digits + i);
  // Noise: digits. Otherwise the smallest d at which the sides differ and the change is not zero.
  const expected = noise ? digits : (range.find(reads) ?? maxDigits);
  return d === expected ? null : `${before} → ${after} (${change}), digits ${digits}: ${d}, not ${expected}`;
}

describe('changeDigits, property over seeded random rows', () => {
  const random = seeded(20260105);
  const decimals = (n: number, max: number): number => Math.round(random() * max * 10 ** n) / 10 ** n;
  const ROWS = 20000;

  it('values with at most 4 decimals: the smallest d that reads them apart, never more than max(digits, decimals)', () => {
    const broken: string[] = [];
    for (let i = 0; i < ROWS; i += 1) {
      const n = Math.floor(random() * 5);
      const max = random() < 0.5 ? 10 : 100;
      const [before, after] = [decimals(n, max), decimals(n, max)];
      for (const digits of [1, 2]) {
        const d = changeDigits(before, after, after - before, digits);
        const wrong = ruleBroken(before, after, after - before, digits);
        if (wrong !== null) broken.push(wrong);
        else if (d > Math.max(digits, n)) broken.push(`${before} → ${after}, digits ${digits}: ${d}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('arbitrary values, values close by and noise, digits 0 to 3', () => {
    const broken: string[] = [];
    for (let i = 0; i < ROWS; i += 1) {
      const scale = [1, 10, 100][Math.floor(random() * 3)] ?? 1;
      const [before, after] = [random() * scale, random() * scale];
      const digits = Math.floor(random() * 4);
      const near = before + (random() - 0.5) * 10 ** -Math.floor(random() * 10);
      for (const to of [after, near]) {
        const wrong = ruleBroken(before, to, to - before, digits);
        if (wrong !== null) broken.push(wrong);
      }
    }
    expect(broken).toEqual([]);
  });
});
