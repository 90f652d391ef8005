/**
 * `run-summary.json`: what one `run` did — steps with durations, counts, every file it wrote (with
 * sha256, so the summary can be checked against the disk), gate results and the exit code — plus the
 * short human summary printed on stderr. Field order is fixed by the builders here, so two runs that
 * did the same work differ only in times and durations.
 */
import type { GateResult } from './gates.js';
import { terminalSafe } from '../text-safety.js';

export const RUN_SUMMARY_FORMAT = 'airt-run-summary/1';
export const RUN_SUMMARY_FILE = 'run-summary.json';

export type StepName = 'snapshot' | 'verify' | 'load' | 'diff' | 'reports' | 'gates' | 'bundle' | 'retention';

export type StepStatus = 'ok' | 'partial' | 'tripped' | 'failed' | 'skipped';

/** One pipeline step in the run summary: status, detail and timing. */
export interface StepRecord {
  name: StepName;
  status: StepStatus;
  duration_ms: number;
  /** One line on what the step did, e.g. `complete, 1,234 files`. */
  detail: string | null;
  /** Why it failed or was skipped. */
  error: string | null;
}

/** How a run ended; decides its exit code. */
export type RunOutcome = 'ok' | 'partial' | 'gate_tripped' | 'failed' | 'interrupted';

/** Why and where an interrupted run stopped, and what it left behind. */
export interface RunInterruption {
  /** The step in progress when the stop signal arrived. */
  step: StepName;
  /** What stopped it, e.g. `Interrupted by SIGTERM`. */
  reason: string;
  /** One line: the state left behind and what to do next. */
  message: string;
}

/** A request of the snapshot that failed for good (from the manifest's failed_requests). */
export interface FailedRequestRecord {
  method: string;
  /** Path and query, relative to the base URL. */
  path: string;
  /** HTTP status, or null when no response came (connection refused, timeout, …). */
  status: number | null;
  attempts: number;
  error: string;
}

/** Whether this run became the baseline of the next run's diff, gates and "Since last snapshot". */
export interface BaselineRecord {
  /** True when this run's snapshot is now the baseline (every step succeeded, snapshot complete). */
  advanced: boolean;
  /** The snapshot the next run compares with; null: none (every open finding counts as new). */
  snapshot_id: string | null;
  /** Why it did not advance; null when it did. */
  reason: string | null;
}

export interface OutputFile {
  /** Absolute path. */
  path: string;
  sha256: string;
  bytes: number;
}

/** The run summary (run-summary.json): steps, outcome, gates, failed requests and baseline. */
export interface RunSummary {
  format: typeof RUN_SUMMARY_FORMAT;
  tool_version: string;
  config: string | null;
  org: string;
  workspace: string;
  started_at: string;
  finished_at: string;
  outcome: RunOutcome;
  exit_code: number;
  /**
   * True when the snapshot is partial (some requests failed for good), whatever the outcome: a failed
   * run (1) or a tripped gate (4) wins the exit code over a partial snapshot (3), so a scheduler that
   * retries partial snapshots reads this, not the exit code.
   */
  partial_snapshot: boolean;
  /** Set when the run was interrupted (outcome `interrupted`); null otherwise. */
  interruption: RunInterruption | null;
  snapshot: {
    id: string | null;
    dir: string | null;
    status: 'complete' | 'partial' | null;
    root_sha256: string | null;
    since: string | null;
    files: number | null;
    failed_requests: number | null;
    warnings: number | null;
  };
  previous_snapshot_id: string | null;
  baseline: BaselineRecord;
  projects: string[];
  steps: StepRecord[];
  /** Names of the steps that failed, in run order. */
  failed_steps: StepName[];
  /** Every request of the snapshot that failed for good, in the manifest's order. */
  failed_requests: FailedRequestRecord[];
  counts: {
    rows_loaded: number | null;
    findings_new: number | null;
    findings_resolved: number | null;
    findings_regressed: number | null;
    findings_persisting: number | null;
    reports: number;
    gates: number;
    gates_tripped: number;
  };
  paths: {
    run_dir: string | null;
    database: string;
    diff_md: string | null;
    diff_json: string | null;
    gate_report_md: string | null;
    gate_report_json: string | null;
    /** JUnit XML of the gates, for CI test-report views. */
    gate_report_junit: string | null;
    bundle: string | null;
    reports: string[];
  };
  /** Every file the run wrote except this summary, sorted by path. */
  outputs: OutputFile[];
  gates: Pick<
    GateResult,
    'gate' | 'project' | 'status' | 'status_text' | 'trips' | 'value' | 'op' | 'threshold'
  >[];
  retention: { kept: string[]; deleted: string[]; kept_bytes: number; freed_bytes: number } | null;
  /** Problems worth a look that did not fail the run (unknown projects, compromised lock, …). */
  warnings: string[];
}

/**
 * The exit code for an outcome: interrupted (the abort's code, 130 for Ctrl-C) > failed 1 > gate
 * tripped 4 > partial snapshot 3 > ok 0. An interrupted run's later steps fail as a consequence,
 * so the interruption is what the exit code reports. A tripped gate wins over a partial snapshot: a
 * security gate that failed must never read as "partial, retry later"; the summary's
 * `partial_snapshot` and its first line still say the snapshot was partial.
 */
export function decideOutcome(input: {
  /** Exit code of the interruption (see abortExitCode), or null when the run was not interrupted. */
  interrupted: number | null;
  failed: boolean;
  tripped: boolean;
  partial: boolean;
}): {
  outcome: RunOutcome;
  exitCode: number;
} {
  if (input.interrupted !== null) return { outcome: 'interrupted', exitCode: input.interrupted };
  if (input.failed) return { outcome: 'failed', exitCode: 1 };
  if (input.tripped) return { outcome: 'gate_tripped', exitCode: 4 };
  if (input.partial) return { outcome: 'partial', exitCode: 3 };
  return { outcome: 'ok', exitCode: 0 };
}

export function runSummaryJson(summary: RunSummary): string {
  return `${JSON.stringify(summary, null, 2)}\n`;
}

const OUTCOME_TEXT: Record<RunOutcome, string> = {
  ok: 'ok',
  partial: 'finished with a partial snapshot',
  gate_tripped: 'a gate tripped',
  failed: 'failed',
  interrupted: 'interrupted (run it again; the snapshot step says how to continue an unfinished snapshot)',
};

/**
 * The stderr summary: what failed first (so a log shows the cause, e.g. the connection error, on
 * its first line), one line per step, every failed request, tripped gates, the baseline, where the
 * summary is.
 */
export function humanSummary(summary: RunSummary, summaryPath: string | null): string {
  const { interruption } = summary;
  const firstFailed =
    summary.outcome === 'failed' ? summary.steps.find((step) => step.status === 'failed') : undefined;
  const lines = [
    ...(firstFailed === undefined
      ? []
      : [`run failed at ${firstFailed.name}: ${oneLine(firstFailed.error ?? 'no reason recorded')}`]),
    interruption === null
      ? `run ${summary.snapshot.id ?? '(no snapshot)'} of ${summary.org}/${summary.workspace}: ` +
        `${OUTCOME_TEXT[summary.outcome]} (exit ${summary.exit_code})${partialTooText(summary)}`
      : `run interrupted during ${interruption.step} (${oneLine(interruption.reason)}, exit ${summary.exit_code}); ` +
        oneLine(interruption.message),
  ];
  for (const step of summary.steps) {
    const seconds = `${(step.duration_ms / 1000).toFixed(1)} s`;
    // The first failure is the summary's first line already; repeating a long message adds nothing.
    const note = step === firstFailed ? 'see the first line' : (step.error ?? step.detail ?? '');
    lines.push(
      `  ${step.name.padEnd(9)} ${step.status.padEnd(7)} ${seconds.padStart(7)}  ${oneLine(note)}`.trimEnd(),
    );
  }
  for (const request of summary.failed_requests) {
    const status = request.status === null ? 'no response' : `HTTP ${request.status}`;
    const attempts = `${request.attempts} attempt${request.attempts === 1 ? '' : 's'}`;
    lines.push(
      `  failed request: ${oneLine(request.method)} ${oneLine(request.path)} (${status}, ${attempts}): ${oneLine(request.error)}`,
    );
  }
  for (const gate of summary.gates.filter((g) => g.trips)) {
    // An unknown gate's status text already says so; only a measured value is worth repeating.
    const value = gate.value === null ? '' : ` (value ${gate.value})`;
    lines.push(
      `  tripped: ${oneLine(gate.gate)} on ${oneLine(gate.project)}: ${oneLine(gate.status_text)}${value}`,
    );
  }
  for (const warning of summary.warnings) lines.push(`  warning: ${oneLine(warning)}`);
  lines.push(`  baseline: ${baselineLine(summary.baseline)}`);
  if (summaryPath !== null) lines.push(`  summary: ${summaryPath}`);
  return `${lines.join('\n')}\n`;
}

/**
 * A partial snapshot that lost the exit code to a failure or a tripped gate is still named on the first
 * line: `a gate tripped (exit 4) on a partial snapshot: 3 failed requests; the next run fetches them again`.
 */
function partialTooText(summary: RunSummary): string {
  if (summary.snapshot.status !== 'partial' || summary.outcome === 'partial') return '';
  const failed = summary.snapshot.failed_requests ?? summary.failed_requests.length;
  return (
    ` on a partial snapshot: ${failed} failed request${failed === 1 ? '' : 's'}; ` +
    `the next run fetches ${failed === 1 ? 'it' : 'them'} again`
  );
}

function baselineLine(baseline: BaselineRecord): string {
  const next = baseline.snapshot_id ?? 'no snapshot (every open finding counts as new)';
  if (baseline.advanced) return `this run's snapshot ${next} is the next run's baseline`;
  return `not advanced (${oneLine(baseline.reason ?? 'unknown')}); the next run compares with ${oneLine(next)}`;
}

/** Project keys and messages can carry control, bidi and zero-width characters; shown visibly, one line each. */
function oneLine(text: string): string {
  return terminalSafe(text);
}
