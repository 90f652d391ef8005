/** Small, schema-valid response bodies for tests against a scripted server. */

export const TOKEN = 'tok-SECRET-4242-abcdefgh';

export function configBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    api_version: '1.7.0',
    app_version: '2026.2.1',
    deployment_mode: 'saas',
    website_url: 'https://airt.example.test',
    airgapped: false,
    slack_enabled: true,
    ...overrides,
  };
}

export function findingBody(id: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    assessment_id: '00000000-0000-4000-8000-0000000000aa',
    attack_name: 'crescendo',
    goal: 'exfiltrate the system prompt',
    goal_category: 'prompt_leak',
    status: 'completed',
    severity: 'high',
    finding_status: 'false_positive',
    created_at: '2026-01-05T10:00:00Z',
    completed_at: '2026-01-05T10:05:00Z',
    best_score: 0.9,
    execution_time_s: 300,
    finished_trials: 10,
    total_trials: 10,
    compliance_tags: null,
    transforms_applied: ['base64'],
    ...overrides,
  };
}

export function autoRefillBody(): Record<string, unknown> {
  return {
    enabled: true,
    has_payment_method: true,
    month_count: 2,
    month_reset: '2026-02-01T00:00:00Z',
    monthly_cap: 10,
    quantity: 2,
    threshold: 5000,
  };
}

/** The n-th evaluation job (ids are deterministic UUIDs). */
export function evaluationJob(n: number): Record<string, unknown> {
  return {
    id: jobId(n),
    name: `eval ${n}`,
    organization_id: '00000000-0000-4000-8000-000000000001',
    project_id: '00000000-0000-4000-8000-000000000002',
    workspace_id: '00000000-0000-4000-8000-000000000003',
    job_status: 'completed',
    kind: 'benchmark',
    cleanup_policy: 'always',
    queued_at: '2026-01-01T00:00:00Z',
    started_at: null,
    completed_at: null,
    cancel_requested_at: null,
    dataset_size: 10,
    requested_concurrency: 2,
    effective_concurrency: 2,
    item_counts: { passed: 10 },
    agent_type: null,
    capability: null,
    model: null,
    run_id: null,
    sandbox_provider: null,
    error_summary: null,
    runtime_id: null,
    created_by: null,
    task_timeout_sec: null,
    config_json: null,
    dataset_ref: null,
    summary_json: null,
  };
}

export function jobId(n: number): string {
  return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

/** A page of jobs `from`..`to` (inclusive) claiming `total`. */
export function evaluationPage(
  page: number,
  from: number,
  to: number,
  total: number,
): Record<string, unknown> {
  const items = [];
  for (let n = from; n <= to; n++) items.push(evaluationJob(n));
  return { items, page, page_size: 100, total };
}
