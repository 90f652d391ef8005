import { marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { GateSyntaxError, parseGateExpression } from '../../src/pipeline/gate-expression.js';
import { buildGateReport, gateReportJson, gateReportMarkdown } from '../../src/pipeline/gate-report.js';
import { judgeGate, type MetricMeasurement } from '../../src/pipeline/gates.js';

// Characters that act instead of showing (the text-safety set): C0/C1 controls except tab and line
// feed, bidi marks/overrides/isolates, zero-width characters and the line/paragraph separators.
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- finding raw control characters is the point
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF]/u;

function measurement(partial: Partial<MetricMeasurement>): MetricMeasurement {
  return { value: null, aggregate: 'value', rows: [], exclusions: [], note: null, ...partial };
}

describe('gate expressions', () => {
  it('parses every metric kind and operator', () => {
    expect(parseGateExpression('new_critical_findings <= 0').metric).toEqual({
      kind: 'new_critical_findings',
    });
    expect(parseGateExpression('  overall_asr<0.25 ').text).toBe('overall_asr < 0.25');
    expect(parseGateExpression('framework.owasp_llm.failing_categories <= 2').metric).toEqual({
      kind: 'framework_failing_categories',
      framework: 'owasp_llm',
    });
    expect(parseGateExpression('framework.nist.coverage_pct >= 75').metric).toEqual({
      kind: 'framework_coverage_pct',
      framework: 'nist',
    });
    expect(parseGateExpression('category.credential_leak.asr <= 0.1').metric).toEqual({
      kind: 'category_asr',
      category: 'credential_leak',
    });
    for (const op of ['<', '<=', '>', '>=', '==', '!=']) {
      expect(parseGateExpression(`min_trials_per_category ${op} 20`).op).toBe(op);
    }
    expect(parseGateExpression('risk_score <= 1e1').threshold).toBe(10);
  });

  it('refuses malformed expressions and unknown metrics with a message naming the problem', () => {
    expect(() => parseGateExpression('overall_asr')).toThrow(GateSyntaxError);
    expect(() => parseGateExpression('overall_asr =< 1')).toThrow(/not of the form/);
    expect(() => parseGateExpression('overall_asr <= high')).toThrow(/threshold "high" is not a number/);
    expect(() => parseGateExpression('overall_asr <= 0x10')).toThrow(/not a number/);
    expect(() => parseGateExpression('category.credential_leak.score <= 1')).toThrow(
      /unknown gate metric.*known metrics/,
    );
    expect(() => parseGateExpression('framework..failing_categories <= 1')).toThrow(/unknown gate metric/);
  });
});

describe('judgeGate', () => {
  const asr = parseGateExpression('category.credential_leak.asr <= 0.1');
  const rows = [
    { label: 'assessment A', value: 0.05, fields: { assessment_id: 'a' } },
    { label: 'assessment B', value: 0.3, fields: { assessment_id: 'b' } },
  ];

  it('passes and fails, and for a max metric lists only the rows over the threshold', () => {
    const fail = judgeGate(asr, 'p', measurement({ value: 0.3, aggregate: 'max', rows }), 'trip');
    expect(fail).toMatchObject({ status: 'fail', status_text: 'fail', trips: true, rows_total: 2 });
    expect(fail.tripping_rows.map((r) => r.label)).toEqual(['assessment B']);
    const pass = judgeGate(
      parseGateExpression('category.credential_leak.asr <= 0.5'),
      'p',
      measurement({ value: 0.3, aggregate: 'max', rows }),
      'trip',
    );
    expect(pass).toMatchObject({ status: 'pass', trips: false, tripping_rows: [] });
  });

  it('lists every row behind a count', () => {
    const gate = parseGateExpression('new_critical_findings <= 0');
    const result = judgeGate(gate, 'p', measurement({ value: 2, aggregate: 'count', rows }), 'trip');
    expect(result.tripping_rows).toHaveLength(2);
  });

  it('says when analytics-warning exclusions shaped the result, and is unknown when all was excluded', () => {
    const exclusions = [{ assessment_id: 'c', field: 'asr_by_category', reason: 'older format' }];
    const partly = judgeGate(
      asr,
      'p',
      measurement({ value: 0.05, aggregate: 'max', rows: rows.slice(0, 1), exclusions }),
      'trip',
    );
    expect(partly.status_text).toBe('pass (excludes 1 assessment with erroneous asr_by_category)');
    expect(partly.trips).toBe(false);
    const all = judgeGate(asr, 'p', measurement({ value: null, exclusions }), 'trip');
    expect(all).toMatchObject({
      status: 'unknown',
      status_text: 'unknown (all data excluded: 1 assessment with erroneous asr_by_category)',
      trips: true,
    });
    expect(judgeGate(asr, 'p', measurement({ value: null }), 'warn')).toMatchObject({
      status_text: 'unknown (no data)',
      trips: false,
    });
  });

  it('calls the rows of a pooled value the rows behind it: some of them are within the threshold', () => {
    const rows = [
      { label: 'assessment A', value: 0.9, fields: {} },
      { label: 'assessment B', value: 0.1, fields: {} },
    ];
    const fail = judgeGate(asr, 'proj', measurement({ value: 0.6, aggregate: 'value', rows }), 'trip');
    expect(fail.status).toBe('fail');
    const markdown = gateReportMarkdown(
      buildGateReport({
        snapshotId: 'S2',
        previousSnapshotId: 'S1',
        rootSha256: 'f'.repeat(64),
        results: [fail],
      }),
    );
    expect(markdown).toContain('Rows behind the value (2):');
    expect(markdown).not.toContain('Rows that tripped it');
  });

  it('renders a gate report naming the tripping rows, with untrusted text escaped', async () => {
    const hostileRows = [
      {
        label: '<img src=x onerror=alert(1)> | x',
        value: 0.9,
        fields: { attack: '[link](javascript:alert(1))' },
      },
    ];
    const fail = judgeGate(
      asr,
      'proj',
      measurement({ value: 0.9, aggregate: 'max', rows: hostileRows }),
      'trip',
    );
    const report = buildGateReport({
      snapshotId: 'S2',
      previousSnapshotId: 'S1',
      rootSha256: 'f'.repeat(64),
      results: [fail],
    });
    const markdown = gateReportMarkdown(report);
    expect(markdown).toContain('Rows that tripped it (1)');
    const html = await marked.parse(markdown, { gfm: true });
    expect(html).not.toContain('<img');
    expect(html).not.toContain('href="javascript');
    expect(html).toContain('&lt;img');
    const row = markdown.split('\n').find((line) => line.includes('onerror'));
    expect(row?.replace(/\\\|/g, '').split('|').length).toBe(5); // 3 columns
    const json = JSON.parse(gateReportJson(report)) as {
      tripped: boolean;
      results: { tripping_rows: unknown[] }[];
    };
    expect(json.tripped).toBe(true);
    expect(json.results[0]?.tripping_rows).toEqual(hostileRows);
  });

  it('shows bidi and control characters from the data visibly in Markdown and JSON, JSON still reading back the original', async () => {
    // The spoofed assessment name of the user tryout, plus an isolate, a bell and an ANSI colour.
    const name = 'Release\u202Eexe.2v candidate 2026-01-07 \u2066x\u2069 \u0007\u001B[31mred';
    const hostileRows = [{ label: name, value: 0.9, fields: { assessment_name: name } }];
    const fail = judgeGate(
      asr,
      name,
      measurement({
        value: 0.9,
        aggregate: 'max',
        rows: hostileRows,
        exclusions: [{ assessment_id: name, field: 'asr_by_category', reason: name }],
        note: name,
      }),
      'trip',
    );
    const report = buildGateReport({
      snapshotId: 'S2',
      previousSnapshotId: 'S1',
      rootSha256: 'f'.repeat(64),
      results: [fail],
      expiringAcceptances: [
        {
          project_key: name,
          attack_run_id: 'run-1',
          attack_name: name,
          goal_category: name,
          severity: 'high',
          accepted_by: name,
          reason: name,
          accepted_until: '2026-01-20',
          days_left: 13,
        },
      ],
    });

    // `airt-report gates` prints this Markdown on the terminal as well as writing it with --md.
    const markdown = gateReportMarkdown(report);
    expect(markdown).not.toMatch(UNSAFE);
    expect(markdown).toContain('Release\\u{202e}exe');
    const row = markdown.split('\n').find((line) => line.startsWith('| Release'));
    expect(row?.split('|').length).toBe(5); // still one row of 3 columns
    const html = await marked.parse(markdown, { gfm: true });
    expect(html).not.toMatch(UNSAFE);
    expect(html).toContain('Release\\u{202e}exe.2v candidate');

    const json = gateReportJson(report);
    expect(json).not.toMatch(UNSAFE);
    expect(json).toContain('Release\\u202eexe');
    const parsed = JSON.parse(json) as typeof report;
    expect(parsed.results[0]?.tripping_rows[0]?.label).toBe(name);
    expect(parsed).toEqual(report);
  });
});
