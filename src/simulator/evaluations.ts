/**
 * Evaluation jobs (operation 4) across the workspace's projects, newest first. Jobs still queued or
 * running at one epoch move on at the next (queued → running → finished) and each epoch adds new
 * jobs, so `total` and page contents change between epochs like a live service's.
 */
import { EvaluationItemStateSchema } from '../api/schemas.js';
import { BASE_TIME_MS, DAY, HOUR, MINUTE, SECOND, iso } from './clock.js';
import { HOSTILE_NAMES } from './hostile.js';
import { hexFor, uuidFor } from './ids.js';
import type { ResolvedOptions } from './options.js';
import type { ProjectPlan } from './plan-types.js';
import { rngFor, round, type Rng } from './prng.js';
import { TARGET_MODELS } from './taxonomy.js';

export interface EvaluationJobEntry {
  id: string;
  projectId: string;
  status: string;
  queuedAt: number;
  json: Record<string, unknown>;
}

const JOBS_PER_EPOCH = 15;
const HISTORY_DAYS = 120;
const FINAL_STATUSES = [
  'completed',
  'completed',
  'completed',
  'completed',
  'completed',
  'completed',
  'completed',
  'failed',
  'failed',
  'cancelled',
  'timed_out',
];
const KINDS = ['task_set', 'task_set', 'dataset', 'benchmark', 'redteam_regression'];
const TASK_SETS = [
  'support-refusals',
  'agent-tool-safety',
  'pii-handling',
  'coding-sandbox',
  'rag-grounding',
];
/** The item states of EvaluationControlPlaneSummary, in the spec's order. */
const ITEM_STATES = EvaluationItemStateSchema.options;
type ItemState = (typeof ITEM_STATES)[number];

function users(seed: number): { id: string; email: string; username: string; full_name: string | null }[] {
  return [
    {
      id: uuidFor(seed, 'user/alice'),
      email: 'alice@acme.example',
      username: 'alice',
      full_name: 'Alice Ng',
    },
    { id: uuidFor(seed, 'user/bob'), email: 'bob@acme.example', username: 'bob', full_name: null },
    {
      id: uuidFor(seed, 'user/mallory'),
      email: 'mallory@acme.example',
      username: 'mallory',
      full_name: 'Mallory <script>alert(1)</script> =CMD()',
    },
    { id: uuidFor(seed, 'user/svc'), email: 'ci-bot@acme.example', username: 'ci-bot', full_name: 'CI 🤖' },
  ];
}

/** Stage 0 queued, 1 running, 2 finished. */
function stageName(stage: number, finalStatus: string): string {
  return stage <= 0 ? 'queued' : stage === 1 ? 'running' : finalStatus;
}

function itemCounts(rng: Rng, size: number, status: string): Record<ItemState, number> {
  const counts = Object.fromEntries(ITEM_STATES.map((s) => [s, 0])) as Record<ItemState, number>;
  let left = size;
  const take = (state: ItemState, share: number): void => {
    const n = Math.min(left, Math.floor(size * share));
    counts[state] += n;
    left -= n;
  };
  if (status === 'queued') counts.queued = size;
  else if (status === 'running') {
    take('passed', rng.next() * 0.4);
    take('failed', rng.next() * 0.1);
    take('agent_finished', rng.next() * 0.05);
    take('verifying', rng.next() * 0.05);
    take('agent_running', rng.next() * 0.1);
    take('claiming', 0.01);
    take('provisioning', 0.02);
    counts.queued += left;
  } else if (status === 'cancelled') {
    take('passed', rng.next() * 0.5);
    take('failed', rng.next() * 0.1);
    counts.cancelled += left;
  } else {
    take('failed', 0.05 + rng.next() * 0.2);
    take('errored', rng.next() * 0.04);
    take('infra_error', status === 'failed' ? 0.1 + rng.next() * 0.2 : rng.next() * 0.02);
    take('timed_out', status === 'timed_out' ? 0.2 + rng.next() * 0.2 : rng.next() * 0.02);
    counts.passed += left;
  }
  return counts;
}

export class EvaluationCatalog {
  private cacheEpoch = -1;
  private cache: EvaluationJobEntry[] = [];

  constructor(
    private readonly options: ResolvedOptions,
    private readonly projects: () => ProjectPlan[],
  ) {}

  /** Every job at `epoch`, newest first (queued_at desc, then id). */
  all(epoch: number): EvaluationJobEntry[] {
    if (this.cacheEpoch === epoch) return this.cache;
    const { scale } = this.options;
    const projects = this.projects();
    const jobs: EvaluationJobEntry[] = [];
    const n0 = scale.evaluationJobs;
    for (let j = 0; j < n0; j++) {
      const queuedAt =
        BASE_TIME_MS - HISTORY_DAYS * DAY + Math.floor((j * HISTORY_DAYS * DAY) / Math.max(1, n0));
      // The newest few are still in flight at epoch 0.
      const startStage = j >= n0 - 8 ? (j % 2 === 0 ? 0 : 1) : 2;
      jobs.push(this.job(`j${j}`, j, projects, queuedAt, startStage + epoch));
    }
    for (let k = 1; k <= epoch; k++) {
      for (let m = 0; m < JOBS_PER_EPOCH; m++) {
        const queuedAt = BASE_TIME_MS + (k - 1) * DAY + HOUR + m * 20 * MINUTE;
        const startStage = m >= JOBS_PER_EPOCH - 3 ? (m % 2 === 0 ? 0 : 1) : 2;
        jobs.push(
          this.job(
            `e${k}/j${m}`,
            n0 + (k - 1) * JOBS_PER_EPOCH + m,
            projects,
            queuedAt,
            startStage + (epoch - k),
          ),
        );
      }
    }
    jobs.sort((a, b) => b.queuedAt - a.queuedAt || a.id.localeCompare(b.id));
    this.cache = jobs;
    this.cacheEpoch = epoch;
    return jobs;
  }

  private job(
    key: string,
    ordinal: number,
    projects: ProjectPlan[],
    queuedAtBase: number,
    stage: number,
  ): EvaluationJobEntry {
    const { seed, org, workspace } = this.options;
    const rng = rngFor(seed, 'evaluation', key);
    const project = projects[ordinal % projects.length] as ProjectPlan;
    const id = uuidFor(seed, `evaluation/${key}`);
    const queuedAt = queuedAtBase + rng.int(0, 50) * MINUTE;
    const finalStatus = rng.pick(FINAL_STATUSES);
    const status = stageName(stage, finalStatus);
    const kind = rng.pick(KINDS);
    const taskSet = rng.pick(TASK_SETS);
    const size = rng.int(10, 400);
    const requested = rng.pick([4, 8, 16, 32]);
    const startOffset = rng.int(5, 300) * SECOND;
    const startedAt = status === 'queued' ? null : queuedAt + startOffset;
    const durationMs = size * rng.int(2000, 9000);
    const finished = stage >= 2;
    const completedAt = finished && startedAt !== null ? startedAt + durationMs : null;
    // Separate streams: the job's other fields must not shift when its state moves on.
    const counts = itemCounts(rngFor(seed, 'evaluation-items', key, status), size, status);
    const userList = users(seed);
    const user = rng.chance(0.9) ? rng.pick(userList) : null;
    const hostile = ordinal % 37 === 5;
    const name = hostile
      ? `${HOSTILE_NAMES[ordinal % HOSTILE_NAMES.length] ?? ''} eval`
      : `${taskSet} ${kind.replace('_', ' ')} #${ordinal + 1}`;
    const model = rng.pick(TARGET_MODELS);
    const sandboxProvider = rng.pick(['docker', 'firecracker']);
    const withAnalytics = finished && status !== 'cancelled';
    const json: Record<string, unknown> = {
      id,
      name,
      organization_id: uuidFor(seed, `org/${org}`),
      project_id: project.id,
      workspace_id: uuidFor(seed, `workspace/${org}/${workspace}`),
      job_status: status,
      kind,
      cleanup_policy: rng.pick(['delete_on_success', 'retain', 'delete_always']),
      queued_at: iso(queuedAt),
      started_at: startedAt === null ? null : iso(startedAt),
      completed_at: completedAt === null ? null : iso(completedAt),
      cancel_requested_at:
        status === 'cancelled' && completedAt !== null ? iso(completedAt - 30 * SECOND) : null,
      dataset_size: size,
      requested_concurrency: requested,
      effective_concurrency: status === 'queued' ? 0 : Math.min(requested, 16),
      item_counts: counts,
      agent_type: rng.pick(['tool_calling', 'react', 'codeact', null]),
      capability: rng.pick(['code', 'browse', 'support', null]),
      model,
      run_id: status === 'queued' ? null : `run_${hexFor(seed, `run/${key}`, 3)}`,
      sandbox_provider: status === 'queued' ? null : sandboxProvider,
      error_summary:
        status === 'failed'
          ? hostile
            ? `Sandbox crashed: <img src=x onerror=alert(1)> (${counts.infra_error} items infra_error)`
            : `sandbox_provider_error: capacity exceeded (${counts.infra_error} items infra_error)`
          : null,
      runtime_id: status === 'queued' ? null : uuidFor(seed, `eval-runtime/${key}`),
      created_by: user?.id ?? null,
      task_timeout_sec: rng.pick([600, 1800, null]),
      config_json: rng.chance(0.85)
        ? { temperature: rng.pick([0, 0.2, 0.7]), max_steps: rng.pick([20, 50]), seed: rng.int(1, 9999) }
        : null,
      dataset_ref:
        kind === 'dataset'
          ? { name: `${taskSet}-dataset`, version: `v${rng.int(1, 4)}`, split: 'test' }
          : null,
      summary_json: withAnalytics
        ? { passed: counts.passed, failed: counts.failed, errored: counts.errored }
        : null,
      analytics: withAnalytics
        ? this.analytics(
            rngFor(seed, 'evaluation-analytics', key),
            key,
            name,
            status,
            size,
            durationMs,
            counts,
            completedAt ?? queuedAt,
          )
        : null,
      created_by_email: user?.email ?? null,
      created_by_user: user,
      engine: rng.pick(['airt-eval', 'inspect', null]),
      max_steps: rng.pick([20, 50, null]),
      skipped_members:
        kind === 'task_set' && rng.chance(0.35)
          ? [
              {
                reason: 'not_found',
                task_name: `${taskSet}/missing-task-${rng.int(1, 9)}`,
                task_version: null,
              },
              {
                reason: 'no_verification',
                task_name: `${taskSet}/unverified-task`,
                task_version: `1.${rng.int(0, 5)}.0`,
              },
            ]
          : kind === 'task_set'
            ? []
            : null,
      task_set_ref:
        kind === 'task_set'
          ? {
              id: uuidFor(seed, `task_set/${taskSet}`),
              name: taskSet,
              // Evaluations created before org_key existed carry null.
              org_key: queuedAt < BASE_TIME_MS - 60 * DAY ? null : `${org}/${taskSet}`,
            }
          : null,
    };
    if (ordinal % 50 === 7) json.x_future_field = { priority_class: 'batch' };
    return { id, projectId: project.id, status, queuedAt, json };
  }

  private analytics(
    rng: Rng,
    key: string,
    name: string,
    status: string,
    size: number,
    durationMs: number,
    counts: Record<ItemState, number>,
    finishedAt: number,
  ): Record<string, unknown> {
    const { seed } = this.options;
    return {
      name,
      status: status === 'completed' ? 'completed' : 'failed',
      span_id: hexFor(seed, `eval-span/${key}`, 2),
      trace_id: hexFor(seed, `eval-trace/${key}`, 4),
      timestamp: iso(finishedAt),
      dataset_size: size,
      duration_ms: durationMs,
      error_count: counts.errored + counts.infra_error,
      failed_count: counts.failed,
      iterations: 1,
      passed_count: counts.passed,
      scenario_count: size,
      total_samples: size,
      mean_scores: { correctness: round(counts.passed / size, 4), safety: round(0.7 + rng.next() * 0.3, 4) },
      params: { temperature: 0, judge: 'openai/gpt-4o-mini' },
      pass_rate: round(counts.passed / size, 4),
      stop_reason:
        status === 'completed' ? 'completed' : status === 'timed_out' ? 'timeout' : 'error_budget_exceeded',
      task_id: rng.chance(0.5) ? `task-${hexFor(seed, `task/${key}`, 2)}` : null,
      tags: [...new Set(['airt', status, rng.pick(['nightly', 'release', 'adhoc'])])],
    };
  }
}
