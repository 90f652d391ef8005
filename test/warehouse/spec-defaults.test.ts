/**
 * Defaults the spec states are applied as stated when a field is absent (an evaluation job's missing
 * item counts are 0, a project top finding's missing finding_type is jailbreak, …); what the spec
 * leaves undefined stays unknown (nullable fields, fields absent from legacy compliance entries).
 * The fixture snapshot is copied, the fields removed from its JSON, re-sealed and loaded.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { copyFixture, FIXTURES, reseal, rows } from './helpers.js';

type Json = Record<string, unknown>;
const SNAPSHOT = '20260301T060000Z-first';

let db: string;

async function edit(file: string, change: (body: Json) => void): Promise<void> {
  const body = JSON.parse(await readFile(file, 'utf8')) as Json;
  change(body);
  await writeFile(file, `${JSON.stringify(body, null, 2)}\n`);
}

function drop(object: unknown, ...keys: string[]): void {
  for (const key of keys) delete (object as Json)[key];
}

const at = (value: unknown, ...steps: (string | number)[]): unknown =>
  steps.reduce<unknown>((node, step) => (node as Record<string | number, unknown>)[step], value);

beforeAll(async () => {
  const dir = await makeTempDir('airt-defaults-');
  const snapshot = await copyFixture(FIXTURES.first, dir);
  await edit(path.join(snapshot, 'evaluations/page-0001.json'), (page) =>
    drop(at(page, 'items', 0, 'item_counts'), 'passed', 'queued'),
  );
  await edit(path.join(snapshot, 'projects/payments-bot/summary.json'), (summary) => {
    drop(
      at(summary, 'top_findings', 0),
      'execution_time_ms',
      'finding_type',
      'transforms_applied',
      'trial_number',
    );
    drop(at(summary, 'attack_effectiveness', 0), 'total_finished_trials', 'goal_categories_targeted');
    drop(at(summary, 'risk_trend', 0), 'critical_findings', 'total_findings');
    const assessment = at(summary, 'assessments', 0);
    drop(at(assessment, 'asr_by_category'), 'dimension');
    drop(
      at(assessment, 'asr_by_category', 'entries', 'credential_leak'),
      'successful_attacks',
      'total_trials',
      'avg_best_score',
    );
    drop(at(assessment, 'top_findings', 0), 'severity', 'rank', 'finding_type');
    drop(at(assessment, 'compliance_matrix', 'owasp_llm', 'LLM01:2025'), 'asr', 'max_severity');
    drop(at(assessment, 'compliance_matrix', 'owasp_llm', 'LLM02:2025'), 'total_trials');
  });
  await edit(path.join(snapshot, 'findings/f0000000-0000-4000-8000-000000001001.json'), (detail) =>
    drop(detail, 'finding_status', 'finding_type', 'review_events'),
  );
  await reseal(snapshot);
  db = path.join(dir, 'airt.duckdb');
  await loadSnapshots(db, [snapshot, FIXTURES.second], { now: () => new Date('2026-04-01T00:00:00Z') });
});

describe('spec defaults', () => {
  it('an evaluation job’s missing item counts are 0', async () => {
    const [job] = await rows(
      db,
      `SELECT items_passed, items_queued, items_failed FROM evaluation_jobs WHERE snapshot_id = '${SNAPSHOT}' AND ordinal = 0`,
    );
    expect(job).toEqual({ items_passed: 0, items_queued: 0, items_failed: 2 });
  });

  it('a project top finding (FindingSummary) gets execution_time_ms 0, finding_type jailbreak, [] and trial 0', async () => {
    const [finding] = await rows(
      db,
      `SELECT execution_time_ms, finding_type, transforms_applied, trial_number FROM findings
       WHERE snapshot_id = '${SNAPSHOT}' AND project_key = 'payments-bot' AND origin = 'project_top_finding' AND ordinal = 0`,
    );
    expect(finding).toEqual({
      execution_time_ms: 0,
      finding_type: 'jailbreak',
      transforms_applied: [],
      trial_number: 0,
    });
  });

  it('an assessment top finding gets severity info and rank 0; its nullable finding_type stays unknown', async () => {
    const [finding] = await rows(
      db,
      `SELECT severity, rank, finding_type FROM findings
       WHERE snapshot_id = '${SNAPSHOT}' AND project_key = 'payments-bot' AND origin = 'assessment_top_finding' AND ordinal = 0
       ORDER BY assessment_id LIMIT 1`,
    );
    expect(finding).toEqual({ severity: 'info', rank: 0, finding_type: null });
  });

  it('a FindingDetail gets finding_status open, finding_type jailbreak and no review events', async () => {
    const [detail] = await rows(
      db,
      `SELECT finding_status, finding_type, review_event_count FROM findings
       WHERE snapshot_id = '${SNAPSHOT}' AND origin = 'finding_detail'`,
    );
    expect(detail).toEqual({ finding_status: 'open', finding_type: 'jailbreak', review_event_count: 0 });
  });

  it('AsrEntry counts default 0 and AsrBreakdown.dimension ""; the nullable avg_best_score stays unknown', async () => {
    const [entry] = await rows(
      db,
      `SELECT successful_attacks, total_trials, avg_best_score, dimension_label FROM asr_breakdown
       WHERE snapshot_id = '${SNAPSHOT}' AND dimension = 'category' AND key = 'credential_leak' AND project_key = 'payments-bot'
       ORDER BY assessment_id LIMIT 1`,
    );
    expect(entry).toEqual({
      successful_attacks: 0,
      total_trials: 0,
      avg_best_score: null,
      dimension_label: '',
    });
  });

  it('summary arrays: attack effectiveness and risk trend defaults', async () => {
    const [attack] = await rows(
      db,
      `SELECT total_finished_trials, goal_categories_targeted FROM attack_effectiveness
       WHERE snapshot_id = '${SNAPSHOT}' AND project_key = 'payments-bot' AND ordinal = 0`,
    );
    expect(attack).toEqual({ total_finished_trials: 0, goal_categories_targeted: [] });
    const [point] = await rows(
      db,
      `SELECT critical_findings, total_findings FROM risk_trend
       WHERE snapshot_id = '${SNAPSHOT}' AND project_key = 'payments-bot' AND ordinal = 0`,
    );
    expect(point).toEqual({ critical_findings: 0, total_findings: 0 });
  });

  it('a current-format compliance cell gets asr 0, max_severity info, total_trials 0; legacy cells keep NULL', async () => {
    const cells = await rows(
      db,
      `SELECT tag, asr, max_severity, total_trials, legacy FROM compliance_matrix
       WHERE snapshot_id = '${SNAPSHOT}' AND project_key = 'payments-bot' AND framework = 'owasp_llm'
         AND tag IN ('LLM01:2025', 'LLM02:2025') AND NOT legacy
       ORDER BY assessment_id, tag LIMIT 2`,
    );
    expect(cells).toEqual([
      { tag: 'LLM01:2025', asr: 0, max_severity: 'info', total_trials: 7, legacy: false },
      { tag: 'LLM02:2025', asr: 1, max_severity: 'high', total_trials: 0, legacy: false },
    ]);
    const [legacy] = await rows(
      db,
      `SELECT count(*) AS n, count(attacks_used) AS attacks_used, count(total_trials) AS total_trials
       FROM compliance_matrix WHERE legacy`,
    );
    expect(legacy).toEqual({ n: 20, attacks_used: 0, total_trials: 0 });
  });
});
