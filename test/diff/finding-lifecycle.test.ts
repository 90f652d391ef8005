import { readFileSync } from 'node:fs';
import { marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { diffFindings, findingFingerprint, type FindingRecord } from '../../src/diff/finding-lifecycle.js';
import { diffSchemaDrift } from '../../src/diff/schema-drift-diff.js';
import { metricDeltas, type ProjectMetrics } from '../../src/diff/metric-deltas.js';
import { diffMarkdown, projectDiff, type SnapshotDiff } from '../../src/diff/diff-report.js';

interface LifecycleFixture {
  from: FindingRecord[];
  to: FindingRecord[];
  expected: {
    new: string[];
    resolved: [string, string][];
    regressed: [string, string][];
    persisting: [string, string][];
  };
}

const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/diff/lifecycle.json', import.meta.url), 'utf8'),
) as LifecycleFixture;

describe('diffFindings on the hand-made fixture', () => {
  const lifecycle = diffFindings(fixture.from, fixture.to);

  it('finds exactly the known new, resolved, regressed and persisting findings, worst first', () => {
    expect(lifecycle.new.map((f) => f.attack_run_id)).toEqual(fixture.expected.new);
    expect(lifecycle.resolved.map((r) => [r.from.attack_run_id, r.reason])).toEqual(
      fixture.expected.resolved,
    );
    expect(lifecycle.regressed.map((r) => [r.from.attack_run_id, r.to.attack_run_id])).toEqual(
      fixture.expected.regressed,
    );
    expect(lifecycle.persisting.map((p) => [p.from.attack_run_id, p.to.attack_run_id])).toEqual(
      fixture.expected.persisting,
    );
  });

  it('matches re-run findings by fingerprint and says so', () => {
    const rerun = lifecycle.persisting.find((p) => p.to.attack_run_id === 'run-rerun-new');
    expect(rerun?.matched_by).toBe('fingerprint');
    expect(lifecycle.persisting.find((p) => p.to.attack_run_id === 'run-persist')?.matched_by).toBe(
      'attack_run_id',
    );
  });

  it('names what got worse', () => {
    const reasons: Record<string, string[]> = Object.fromEntries(
      lifecycle.regressed.map((r) => [r.to.attack_run_id ?? '', r.reasons]),
    );
    expect(reasons['run-sev-up']).toEqual(['severity medium → high']);
    expect(reasons['run-score-up']).toEqual(['score 0.6 → 0.65']);
    expect(reasons['run-reopened']).toEqual(['reopened (was false_positive)']);
    expect(reasons['run-info-up']).toEqual(['severity info → critical', 'score 0.2 → 0.95']);
  });

  it('is independent of input order', () => {
    const shuffled = diffFindings([...fixture.from].reverse(), [...fixture.to].reverse());
    expect(shuffled).toEqual(lifecycle);
  });

  it('treats every open finding as new without a previous snapshot', () => {
    const first = diffFindings([], fixture.to);
    const tracked = fixture.to.filter(
      (f) =>
        f.finding_status !== 'false_positive' && f.finding_status !== 'remediated' && f.severity !== 'info',
    );
    expect(first.new.map((f) => f.attack_run_id).sort()).toEqual(tracked.map((f) => f.attack_run_id).sort());
    expect(first.resolved).toEqual([]);
  });

  it('normalizes goal text in the fingerprint but keeps attack and category apart', () => {
    const base = { attack_name: 'tap_attack', goal_category: 'x', goal: 'Leak  the\nKEY ' };
    expect(findingFingerprint(base)).toBe(findingFingerprint({ ...base, goal: 'leak the key' }));
    expect(findingFingerprint(base)).not.toBe(findingFingerprint({ ...base, attack_name: 'pair_attack' }));
    expect(findingFingerprint(base)).not.toBe(findingFingerprint({ ...base, goal_category: 'y' }));
  });
});

describe('metric deltas and schema drift', () => {
  const before: ProjectMetrics = {
    overall_asr: 0.2,
    risk_score: 6,
    asr_by_category: { credential_leak: 0.1, tool_misuse: null, gone: 0.3 },
    coverage_by_framework: { owasp_llm: 40 },
    evaluation_pass_rates: { nightly: 0.9 },
  };
  const after: ProjectMetrics = {
    overall_asr: 0.3,
    risk_score: 5.5,
    asr_by_category: { credential_leak: 0.25, tool_misuse: 0.4, fresh: 0.5 },
    coverage_by_framework: { owasp_llm: 50 },
    evaluation_pass_rates: { nightly: 0.8 },
  };

  it('computes deltas and never differences against an unknown value', () => {
    const deltas = metricDeltas(before, after);
    const byKey = Object.fromEntries(deltas.map((d) => [`${d.group}:${d.key}`, d]));
    expect(byKey['overall:overall_asr']?.delta).toBe(0.1);
    expect(byKey['overall:risk_score']?.delta).toBe(-0.5);
    expect(byKey['category_asr:credential_leak']?.delta).toBe(0.15);
    expect(byKey['category_asr:tool_misuse']).toMatchObject({
      from: null,
      to: 0.4,
      delta: null,
      presence: 'both',
    });
    expect(byKey['category_asr:gone']).toMatchObject({ presence: 'removed', delta: null });
    expect(byKey['category_asr:fresh']).toMatchObject({ presence: 'added', delta: null });
    expect(byKey['framework_coverage:owasp_llm']?.delta).toBe(10);
    expect(byKey['evaluation_pass_rate:nightly']?.delta).toBe(-0.1);
  });

  it('lists keys added and removed per file kind', () => {
    expect(
      diffSchemaDrift(
        { project_summary: ['$.a', '$.b'], trials: ['$[*].x'] },
        { project_summary: ['$.b', '$.c'], trials: ['$[*].x'], config: ['$.new'] },
      ),
    ).toEqual([
      { file_kind: 'config', added: ['$.new'], removed: [] },
      { file_kind: 'project_summary', added: ['$.c'], removed: ['$.a'] },
    ]);
  });

  it('renders Markdown with hostile text escaped and tables intact', async () => {
    const lifecycle = diffFindings(fixture.from, fixture.to);
    const diff: SnapshotDiff = {
      format: 'airt-diff/1',
      from: { snapshot_id: 'A', fetched_at: null, root_sha256: null },
      to: { snapshot_id: 'B', fetched_at: null, root_sha256: null },
      projects: [projectDiff('demo', lifecycle, metricDeltas(before, after))],
      schema_drift: [],
    };
    const markdown = diffMarkdown(diff);
    expect(markdown).toContain('1 new, 5 resolved, 4 regressed, 4 persisting findings.');
    const html = await marked.parse(markdown, { gfm: true });
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;script&gt;');
    for (const line of markdown.split('\n').filter((l) => l.startsWith('| ') && l.includes('persona'))) {
      // 7 columns → 8 unescaped pipes.
      expect(line.replace(/\\\|/g, '').split('|').length - 1).toBe(8);
    }
  });
});
