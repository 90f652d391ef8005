import { describe, expect, it } from 'vitest';
import { findUnknownKeys, parseStrict, parseTolerant, SchemaValidationError } from '../../src/api/parse.js';
import {
  AssessmentDetailSchema,
  ComplianceCategorySchema,
  ConfigResponseSchema,
  ConfigureAutoRefillRequestSchema,
  EvaluationJobSchema,
  FindingDetailSchema,
  TaskSetReferenceSchema,
  UpdateFindingRequestSchema,
} from '../../src/api/schemas.js';

const uuid = '3f2b8c1e-6a4d-4e8b-9c1f-2d3e4f5a6b7c';
const now = '2026-01-05T10:00:00Z';

function assessment(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: uuid,
    name: 'Nightly jailbreak sweep',
    description: null,
    status: 'running',
    created_at: now,
    updated_at: now,
    completed_at: null,
    total_attacks: 0,
    total_trials: 0,
    overall_asr: null,
    attacker_config: null,
    target_config: null,
    attack_runs: [],
    reports: [],
    session_id: null,
    ...overrides,
  };
}

describe('schemas follow the spec field for field', () => {
  it('accepts an assessment with every nullable required field null and optional ones absent', () => {
    expect(parseStrict(AssessmentDetailSchema, assessment()).status).toBe('running');
  });

  it('rejects a missing required key and names its JSON path', () => {
    const { session_id: _dropped, ...withoutSession } = assessment();
    expect(() => parseStrict(AssessmentDetailSchema, withoutSession)).toThrow(SchemaValidationError);
    const result = parseTolerant(AssessmentDetailSchema, withoutSession);
    expect(result.ok).toBe(false);
    expect(result.issues.map((i) => i.path)).toEqual(['$.session_id']);
  });

  it('accepts legacy compliance entries that carry only tested, asr and max_severity', () => {
    const legacy = { tested: true, asr: 0.25, max_severity: 'high' };
    const parsed = parseStrict(ComplianceCategorySchema, legacy);
    expect(parsed.tested).toBe(true);
    expect(parsed.attacks_used).toBeUndefined();
    const withMatrix = assessment({ compliance_matrix: { owasp_llm: { 'LLM01:2025': legacy } } });
    expect(parseTolerant(AssessmentDetailSchema, withMatrix).ok).toBe(true);
  });

  it('accepts analytics_warnings and a task set reference whose org_key is null', () => {
    const warned = assessment({
      analytics_warnings: [{ field: 'asr_by_category', reason: 'legacy format' }],
    });
    expect(parseStrict(AssessmentDetailSchema, warned).analytics_warnings).toHaveLength(1);
    expect(parseStrict(TaskSetReferenceSchema, { id: uuid, name: 'core', org_key: null }).org_key).toBeNull();
  });

  it('applies the documented defaults', () => {
    const config = parseStrict(ConfigResponseSchema, {
      api_version: '1.4.0',
      app_version: '2026.11.1',
      deployment_mode: 'saas',
      website_url: 'https://example.test',
    });
    expect(config.credits_enabled).toBe(true);
    expect(config.integrations_enabled).toBe(true);
  });

  it('defaults finding_status to open and review_events to empty', () => {
    const finding = parseStrict(FindingDetailSchema, {
      id: uuid,
      assessment_id: uuid,
      attack_name: 'tap_attack',
      goal: 'Reveal the system prompt',
      goal_category: 'system_prompt_leak',
      status: 'completed',
      severity: 'high',
      created_at: now,
      completed_at: now,
      best_score: 0.8,
      execution_time_s: 12.5,
      finished_trials: 10,
      total_trials: 10,
      compliance_tags: null,
      transforms_applied: null,
    });
    expect(finding.finding_status).toBe('open');
    expect(finding.finding_type).toBe('jailbreak');
    expect(finding.review_events).toEqual([]);
  });
});

describe('tolerant parsing keeps what the spec does not know', () => {
  it('keeps unknown keys in the value and lists them as schema drift', () => {
    const body = assessment({ x_future_field: { nested: 1 }, attack_runs: [] });
    const result = parseTolerant(AssessmentDetailSchema, body);
    expect(result.ok).toBe(true);
    expect(result.ok && (result.value as Record<string, unknown>).x_future_field).toEqual({ nested: 1 });
    expect(result.unknownKeys).toEqual(['$.x_future_field']);
  });

  it('folds array indices so one new field on many items is reported once', () => {
    expect(
      findUnknownKeys(EvaluationJobSchema, {
        skipped_members: [
          { reason: 'not_found', task_name: 't', extra: 1 },
          { reason: 'not_found', task_name: 'u', extra: 2 },
        ],
      }),
    ).toEqual(['$.skipped_members[*].extra']);
  });

  it('reports keys named like Object.prototype members as unknown instead of crashing', () => {
    // Parsed JSON, as a service would send it: own keys "constructor", "toString" and "__proto__".
    const body = JSON.parse(
      '{"skipped_members":[{"reason":"not_found","task_name":"t","constructor":{"a":1},"toString":2}],"__proto__":{"x":1}}',
    ) as unknown;
    expect(findUnknownKeys(EvaluationJobSchema, body)).toEqual([
      '$.__proto__',
      '$.skipped_members[*].constructor',
      '$.skipped_members[*].toString',
    ]);
  });

  it('returns every problem with its path instead of throwing', () => {
    const result = parseTolerant(
      AssessmentDetailSchema,
      assessment({ status: 'exploded', total_trials: 'many' }),
    );
    expect(result.ok).toBe(false);
    expect(result.issues.map((i) => i.path).sort()).toEqual(['$.status', '$.total_trials']);
  });
});

describe('request bodies are checked before anything is sent', () => {
  it('enforces the auto-refill bounds at their edges', () => {
    const edge = { enabled: true, monthly_cap: 50, quantity: 10, threshold: 1_000_000 };
    expect(ConfigureAutoRefillRequestSchema.safeParse(edge).success).toBe(true);
    expect(ConfigureAutoRefillRequestSchema.safeParse({ ...edge, monthly_cap: 51 }).success).toBe(false);
    expect(ConfigureAutoRefillRequestSchema.safeParse({ ...edge, threshold: 999 }).success).toBe(false);
    expect(ConfigureAutoRefillRequestSchema.safeParse({ ...edge, quantity: 0 }).success).toBe(false);
  });

  it('rejects finding enum values outside the spec and unknown fields', () => {
    expect(UpdateFindingRequestSchema.safeParse({ finding_status: 'accepted_risk' }).success).toBe(true);
    expect(UpdateFindingRequestSchema.safeParse({ finding_status: 'wontfix' }).success).toBe(false);
    expect(UpdateFindingRequestSchema.safeParse({ status: 'open' }).success).toBe(false);
  });
});
