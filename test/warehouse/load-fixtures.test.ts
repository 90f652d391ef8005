import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshots, type LoadResult } from '../../src/warehouse/loader.js';
import { readNamedQuery } from '../../src/warehouse/named-queries.js';
import { runQuery } from '../../src/warehouse/query.js';
import { FIXTURES, rows, tableCounts, tempDir } from './helpers.js';

/** Hand-checked counts of the fixture snapshots (see fixtures/snapshots/README.md). */
const EXPECTED: Record<string, Record<string, number>> = {
  '20260301T060000Z-first': {
    snapshots: 1,
    projects: 2,
    assessments: 3,
    attack_runs: 7,
    reports: 3,
    asr_breakdown: 17,
    compliance_matrix: 116,
    compliance_posture: 9,
    attack_effectiveness: 7,
    transform_effectiveness: 4,
    goals: 7,
    vulnerabilities: 6,
    risk_trend: 3,
    executive_summary: 2,
    risk_by_domain: 3,
    findings: 15,
    review_events: 1,
    trials: 15,
    trial_tool_calls: 3,
    message_parts: 31,
    evaluation_jobs: 2,
    evaluation_skipped_members: 2,
    analytics_warnings: 0,
    schema_drift: 0,
    load_warnings: 0,
    altered_values: 0,
    snapshot_files: 8,
    risk_acceptances: 0,
  },
  '20260315T060000Z-second': {
    snapshots: 1,
    projects: 2,
    assessments: 4,
    attack_runs: 9,
    reports: 4,
    asr_breakdown: 21,
    compliance_matrix: 164,
    compliance_posture: 9,
    attack_effectiveness: 8,
    transform_effectiveness: 6,
    goals: 8,
    vulnerabilities: 7,
    risk_trend: 4,
    executive_summary: 2,
    risk_by_domain: 3,
    findings: 20,
    review_events: 2,
    trials: 19,
    trial_tool_calls: 3,
    message_parts: 39,
    evaluation_jobs: 3,
    evaluation_skipped_members: 2,
    analytics_warnings: 1,
    schema_drift: 3,
    load_warnings: 4,
    altered_values: 0,
    snapshot_files: 11,
    risk_acceptances: 0,
  },
  '20260320T060000Z-partial': {
    snapshots: 1,
    projects: 2,
    assessments: 1,
    attack_runs: 1,
    reports: 1,
    asr_breakdown: 2,
    compliance_matrix: 48,
    compliance_posture: 4,
    attack_effectiveness: 1,
    transform_effectiveness: 0,
    goals: 1,
    vulnerabilities: 1,
    risk_trend: 1,
    executive_summary: 1,
    risk_by_domain: 1,
    findings: 2,
    review_events: 0,
    trials: 0,
    trial_tool_calls: 0,
    message_parts: 0,
    evaluation_jobs: 0,
    evaluation_skipped_members: 0,
    analytics_warnings: 0,
    schema_drift: 0,
    load_warnings: 2,
    altered_values: 0,
    snapshot_files: 3,
    risk_acceptances: 0,
  },
};

const A4 = 'a0000000-0000-4000-8000-000000000004';

describe('loading the fixture snapshots', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;
  let first: LoadResult;

  beforeAll(async () => {
    work = await tempDir();
    db = path.join(work.dir, 'airt.duckdb');
    first = await loadSnapshots(db, [FIXTURES.first, FIXTURES.second, FIXTURES.partial], {
      now: () => new Date('2026-04-01T00:00:00Z'),
    });
  });
  afterAll(() => work.cleanup());

  it('loads every table with the known row counts', () => {
    for (const snapshot of first.snapshots) {
      expect(snapshot.outcome).toBe('loaded');
      expect(snapshot.rows).toEqual(EXPECTED[snapshot.snapshotId]);
    }
  });

  it('marks the partial snapshot partial and records why', async () => {
    expect(
      await rows(db, `SELECT snapshot_id, status, verified FROM snapshots ORDER BY snapshot_id`),
    ).toEqual([
      { snapshot_id: '20260301T060000Z-first', status: 'complete', verified: true },
      { snapshot_id: '20260315T060000Z-second', status: 'complete', verified: true },
      { snapshot_id: '20260320T060000Z-partial', status: 'partial', verified: true },
    ]);
    const warnings = await rows(
      db,
      `SELECT code FROM load_warnings WHERE snapshot_id = '20260320T060000Z-partial' ORDER BY ordinal`,
    );
    expect(warnings.map((w) => w.code)).toEqual(['project_not_found', 'failed_request']);
  });

  it('re-loading is a no-op and says so', async () => {
    const before = await tableCounts(db);
    const again = await loadSnapshots(db, [FIXTURES.first, FIXTURES.second, FIXTURES.partial]);
    expect(again.snapshots.map((s) => s.outcome)).toEqual([
      'already_loaded',
      'already_loaded',
      'already_loaded',
    ]);
    expect(await tableCounts(db)).toEqual(before);
  });

  it('keeps both snapshots of a project; latest_* shows the newest', async () => {
    const latest = await rows(
      db,
      `SELECT project_key, snapshot_id FROM latest_project_snapshots ORDER BY project_key`,
    );
    expect(latest).toEqual([
      { project_key: 'checkout-bot', snapshot_id: '20260320T060000Z-partial' },
      { project_key: 'payments-bot', snapshot_id: '20260315T060000Z-second' },
      { project_key: 'support-agent', snapshot_id: '20260315T060000Z-second' },
    ]);
    const assessments = await rows(
      db,
      `SELECT project_key, count(*) AS n FROM latest_assessments GROUP BY ALL ORDER BY ALL`,
    );
    expect(assessments).toEqual([
      { project_key: 'checkout-bot', n: 1 },
      { project_key: 'payments-bot', n: 3 },
      { project_key: 'support-agent', n: 1 },
    ]);
    const trend = await rows(
      db,
      `SELECT snapshot_id, attack_weighted_asr FROM (${stripSemicolon((await readNamedQuery('asr_trend')).sql)}) WHERE project_key = 'payments-bot'`,
    );
    expect(trend).toEqual([
      { snapshot_id: '20260301T060000Z-first', attack_weighted_asr: 0.6 },
      { snapshot_id: '20260315T060000Z-second', attack_weighted_asr: 0.5714 },
    ]);
  });

  it('keeps the analytics_warnings slice out of every clean table and view, never as zeros', async () => {
    expect(await rows(db, `SELECT field, slice FROM analytics_warnings`)).toEqual([
      { field: 'asr_by_category', slice: 'asr_by_category' },
    ]);
    // The garbage is kept for audit only…
    const [raw] = await rows(
      db,
      `SELECT raw_value ->> '$.entries.tap_attack.asr' AS asr FROM analytics_warnings`,
    );
    expect(raw?.asr).toBe('n/a');
    // …and is nowhere else: no category rows for that assessment, in the table or the latest view.
    for (const table of ['asr_breakdown', 'latest_asr_breakdown']) {
      const found = await rows(
        db,
        `SELECT dimension, count(*) AS n FROM ${table} WHERE assessment_id = '${A4}' GROUP BY ALL ORDER BY ALL`,
      );
      expect(found).toEqual([
        { dimension: 'attack', n: 2 },
        { dimension: 'transform', n: 2 },
      ]);
    }
    const [assessment] = await rows(
      db,
      `SELECT erroneous_fields FROM latest_assessments WHERE assessment_id = '${A4}'`,
    );
    expect(assessment?.erroneous_fields).toEqual(['asr_by_category']);
  });

  it('named queries report the exclusion instead of a zero', async () => {
    const result = await runQuery(db, (await readNamedQuery('asr_by_category')).sql);
    const byCategory: Record<string, Record<string, unknown>> = Object.fromEntries(
      result.rows.map((r) => [
        String(r[0]),
        Object.fromEntries(result.columns.map((c, i) => [c.name, r[i]])),
      ]),
    );
    // The flagged assessment's categories (system_prompt_leak via tap_attack, jailbreak_general) would
    // have added attacks; jailbreak_general exists only there, so it is absent rather than 0.
    expect(byCategory.jailbreak_general).toBeUndefined();
    expect(byCategory.system_prompt_leak).toMatchObject({ total_attacks: 1, successful_attacks: 1, asr: 1 });
    for (const row of Object.values(byCategory)) expect(row.excluded_assessments).toBe(1);
    const coverage = await runQuery(db, (await readNamedQuery('compliance_coverage')).sql);
    expect(coverage.columns.map((c) => c.name)).toContain('excluded_assessments');
  });

  it('loads legacy compliance cells with NULL attacks_used/total_trials and legacy = true', async () => {
    const legacy = await rows(
      db,
      `SELECT count(*) AS n, count(attacks_used) AS attacks_used, count(total_trials) AS total_trials, bool_and(legacy) AS legacy
       FROM compliance_matrix WHERE assessment_id = 'a0000000-0000-4000-8000-000000000002'`,
    );
    expect(legacy).toEqual([{ n: 20, attacks_used: 0, total_trials: 0, legacy: true }]);
    const modern = await rows(
      db,
      `SELECT count(*) AS n FROM compliance_matrix WHERE legacy AND assessment_id <> 'a0000000-0000-4000-8000-000000000002'`,
    );
    expect(modern).toEqual([{ n: 0 }]);
  });

  it('keeps trials in file order, hostile text byte for byte, and unknown keys in extra', async () => {
    const ordered = await rows(
      db,
      `SELECT trial_ordinal, trial_index, score FROM trials WHERE snapshot_id = '20260301T060000Z-first' AND assessment_id = 'a0000000-0000-4000-8000-000000000001' ORDER BY trial_ordinal`,
    );
    expect(ordered.map((r) => r.score)).toEqual([0.2, 0.92, 0.35, 0.74, 0.1, 0.1, 0.25]);
    const [hostile] = await rows(
      db,
      `SELECT candidate, response FROM trials WHERE snapshot_id = '20260301T060000Z-first' AND assessment_id = 'a0000000-0000-4000-8000-000000000003' AND trial_ordinal = 0`,
    );
    expect(hostile?.candidate).toContain('=HYPERLINK("http://evil.example/steal","Click me")');
    expect(hostile?.candidate).toContain('<script>alert("x")</script> | col | break\n');
    expect(hostile?.response).toContain('\u202e');
    const parts = await rows(
      db,
      `SELECT role, part_ordinal, kind, source_byte_size FROM message_parts WHERE snapshot_id = '20260301T060000Z-first'
       AND assessment_id = 'a0000000-0000-4000-8000-000000000003' AND trial_ordinal = 0 ORDER BY role, part_ordinal`,
    );
    expect(parts).toEqual([
      { role: 'candidate', part_ordinal: 0, kind: 'text', source_byte_size: null },
      { role: 'candidate', part_ordinal: 1, kind: 'image', source_byte_size: 48213 },
      { role: 'response', part_ordinal: 0, kind: 'text', source_byte_size: null },
    ]);
    const extra = await rows(
      db,
      `SELECT DISTINCT extra ->> '$.judge_model' AS judge FROM trials WHERE assessment_id = '${A4}'`,
    );
    expect(extra).toEqual([{ judge: 'openai/gpt-4o-mini' }]);
    const [project] = await rows(
      db,
      `SELECT extra ->> '$.risk_appetite.owner' AS owner FROM projects WHERE snapshot_id = '20260315T060000Z-second' AND project_key = 'payments-bot'`,
    );
    expect(project?.owner).toBe('ciso@acme.example');
  });

  it('loads a job listed on two pages once, and skipped members', async () => {
    const jobs = await rows(
      db,
      `SELECT evaluation_id, page, items_passed, analytics_pass_rate FROM evaluation_jobs WHERE snapshot_id = '20260315T060000Z-second' ORDER BY evaluation_id`,
    );
    expect(jobs.map((j) => [j.evaluation_id, j.page])).toEqual([
      ['d0000000-0000-4000-8000-000000000001', 1],
      ['d0000000-0000-4000-8000-000000000002', 1],
      ['d0000000-0000-4000-8000-000000000003', 2],
    ]);
    expect(jobs[2]?.analytics_pass_rate).toBeNull();
  });

  it('lists every check in @consistency, the deliberate disagreement of the fixture first', async () => {
    const result = await rows(db, stripSemicolon((await readNamedQuery('consistency')).sql));
    expect(result[0]).toEqual({
      snapshot_id: '20260301T060000Z-first',
      project_key: 'support-agent',
      assessment_id: null,
      check_name: 'total_reports',
      status: 'disagrees',
      service_value: 2,
      recomputed_value: 1,
      detail: null,
      excluded_assessments: 0,
    });
    expect(result.filter((row) => row.status === 'disagrees')).toHaveLength(1);
    // The checks that agree are listed too, so a reader sees what was checked.
    const agreeing = result.filter((row) => row.status === 'agrees').map((row) => row.check_name);
    expect(agreeing).toEqual(expect.arrayContaining(['total_findings', 'total_attacks', 'overall_asr']));
    expect(result.findIndex((row) => row.status === 'agrees')).toBeGreaterThan(0);
  });

  it('knows the triage state of findings and hides closed ones from @top_open_findings', async () => {
    const open = await rows(db, stripSemicolon((await readNamedQuery('top_open_findings')).sql));
    const ids = open.map((f) => f.attack_run_id);
    expect(ids).not.toContain('f0000000-0000-4000-8000-000000001001'); // false_positive
    // accepted_risk stays open, as in every figure (only false_positive and remediated close a finding).
    expect(open[0]).toMatchObject({
      attack_run_id: 'f0000000-0000-4000-8000-000000003001',
      severity: 'high',
      score: 0.95,
      finding_status: 'accepted_risk',
    });
    expect(open[1]).toMatchObject({ severity: 'high', score: 0.81, finding_status: 'open' });
  });
});

function stripSemicolon(sql: string): string {
  return sql.trim().replace(/;$/, '');
}
