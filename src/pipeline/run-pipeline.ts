/**
 * `runPipeline`: one scheduled run, what cron or CI calls.
 *
 * ```
 *  lock (database + workspace snapshot dir)
 *   │
 *   1 snapshot ── --since = newest finished snapshot of the workspace on disk
 *   2 verify ──── every hash and the root hash
 *   3 load ────── into the DuckDB warehouse (idempotent)
 *   4 diff ────── against the previous snapshot in the database → diff.md / diff.json
 *   5 reports ─── configured kinds × projects × formats (executive: "Since last snapshot")
 *   6 gates ───── every gate on every project → gate-report.md / gate-report.json
 *   7 bundle ──── zip: reports, manifest, gate report, diff, SHA256SUMS, README
 *   8 retention ─ keep the newest N finished snapshots of the workspace
 *   │
 *  baseline ────── this snapshot becomes the next run's baseline only if every step succeeded on a
 *   │              complete snapshot (run-baseline.ts)
 *  run-summary.json + human summary on stderr; exit 0 ok · 1 failed · 3 partial snapshot · 4 gate tripped
 *  · 130/143 interrupted; the first that applies of 130/143, 1, 4, 3 wins (a gate tripped on a partial
 *  snapshot exits 4; partial_snapshot in the summary and its first line still say partial)
 * ```
 * A failed step skips the steps that need it, never the summary. A snapshot that fetched nothing from
 * the service (unreachable, even if a triage journal gave it files) fails the run. Gates trip after
 * the reports are written, so a tripped run still leaves its reports. Retention runs only when
 * nothing failed. Only a run whose every step succeeded on a complete snapshot becomes the baseline
 * of the next run's diff, gates and "Since last snapshot" (run-baseline.ts); an interrupted run stops
 * after the step in progress and says what it left (interruption.ts).
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { abortExitCode } from '../errors.js';
import { buildSnapshotId, randomSnapshotSuffix } from '../snapshot/snapshot-id.js';
import { safeSegment } from '../snapshot/safe-path.js';
import { writeOutputFile } from '../output-file.js';
import { VERSION } from '../version.js';
import { describeInterruption } from './interruption.js';
import { acquireRunLock, type ReleaseRunLock } from './lock.js';
import { settleBaseline } from './run-baseline.js';
import { resolveRunToken, type RunConfig } from './run-config.js';
import {
  RUN_SUMMARY_FILE,
  RUN_SUMMARY_FORMAT,
  decideOutcome,
  humanSummary,
  runSummaryJson,
  type RunSummary,
} from './run-summary.js';
import { RunState, type PipelineEffects } from './run-state.js';
import { guardStopSignals } from './stop-signals.js';
import {
  bundleStep,
  diffStep,
  gatesStep,
  loadStep,
  reportsStep,
  retentionStep,
  snapshotStep,
  verifyStep,
} from './run-steps.js';

export type { PipelineEffects } from './run-state.js';

/** What runPipeline did: the exit code, the run summary and where it was written. */
export interface PipelineResult {
  exitCode: number;
  summary: RunSummary;
  /** Where run-summary.json was written; null only if even that failed. */
  summaryPath: string | null;
}

/**
 * Runs the pipeline for a validated config. Throws only before the run starts (no token, another run
 * holds the lock); everything after is recorded in the summary and reflected in the exit code.
 */
export async function runPipeline(config: RunConfig, effects: PipelineEffects): Promise<PipelineResult> {
  const token = await resolveRunToken(config, effects.env);
  const { org, workspace } = config.connection;
  const workspaceDir = path.join(config.snapshot.out_dir, safeSegment(org), safeSegment(workspace));
  const state = new RunState(config, effects, token, workspaceDir);
  // Installed before the lock: taking it loads signal-exit, which would otherwise kill the run.
  const releaseSignals = guardStopSignals(effects.signal);
  let release: ReleaseRunLock;
  try {
    release = await acquireRunLock([config.database, workspaceDir], {
      waitSeconds: config.lock.wait_seconds,
      onCompromised: (error) => {
        state.lockLost = true;
        state.warn(`the run lock was lost mid-run (${error.message}); another run may have started`);
      },
    });
  } catch (error) {
    releaseSignals();
    throw error;
  }
  const stopWatching = state.watchInterruption();
  try {
    for (const [index, step] of STEPS.entries()) {
      await step(state);
      // An interrupted run stops at the end of the step in progress; the summary says what was left.
      if (effects.signal?.aborted === true && index < STEPS.length - 1) {
        state.stoppedEarly = true;
        break;
      }
    }
    return await finish(state);
  } finally {
    stopWatching();
    state.closeWarehouse();
    await release();
    releaseSignals();
  }
}

const STEPS: readonly ((state: RunState) => Promise<void>)[] = [
  snapshotStep,
  verifyStep,
  loadStep,
  diffStep,
  reportsStep,
  gatesStep,
  bundleStep,
  retentionStep,
];

async function finish(state: RunState): Promise<PipelineResult> {
  const { config, effects } = state;
  // Settled before the summary: the summary says what the next run compares with.
  const baseline = await settleBaseline(state);
  // Named like a snapshot id (second, org/workspace, random suffix): two configs sharing one output_dir
  // that fail in the same second (a cron starting several at 02:00) never share a summary directory.
  const runDir =
    state.runDir ??
    path.join(
      config.output_dir,
      `failed-${buildSnapshotId(state.startedAt, config.connection.org, config.connection.workspace, randomSnapshotSuffix())}`,
    );
  // Interrupted only if the abort cut work short: one arriving during the last step changes nothing.
  const cutShort =
    effects.signal?.aborted === true &&
    (state.stoppedEarly || state.steps.some((step) => step.status === 'failed'));
  const interruption = cutShort ? describeInterruption(state) : null;
  const { outcome, exitCode } = decideOutcome({
    interrupted: cutShort && effects.signal ? abortExitCode(effects.signal) : null,
    failed: state.steps.some((step) => step.status === 'failed') || state.lockLost,
    tripped: state.gateResults.some((result) => result.trips),
    partial: state.snapshot?.status === 'partial',
  });
  const manifest = state.snapshot?.manifest;
  const summary: RunSummary = {
    format: RUN_SUMMARY_FORMAT,
    tool_version: VERSION,
    config: config.source,
    org: config.connection.org,
    workspace: config.connection.workspace,
    started_at: state.startedAt.toISOString(),
    finished_at: state.now().toISOString(),
    outcome,
    exit_code: exitCode,
    partial_snapshot: state.snapshot?.status === 'partial',
    interruption,
    snapshot: {
      id: manifest?.snapshot_id ?? null,
      dir: state.snapshot?.dir ?? null,
      status: manifest?.status ?? null,
      root_sha256: manifest?.root_sha256 ?? null,
      since: state.since,
      files: manifest?.files.length ?? null,
      failed_requests: manifest?.failed_requests.length ?? null,
      warnings: manifest?.warnings.length ?? null,
    },
    previous_snapshot_id: state.previousSnapshotId,
    baseline,
    projects: state.projects,
    steps: state.steps,
    failed_steps: state.steps.filter((step) => step.status === 'failed').map((step) => step.name),
    failed_requests: (manifest?.failed_requests ?? state.stoppedRequests).map(
      ({ method, path: request, status, attempts, error }) => ({
        method,
        path: request,
        status,
        attempts,
        error,
      }),
    ),
    counts: {
      rows_loaded: state.rowsLoaded,
      findings_new: state.diffCounts?.new ?? null,
      findings_resolved: state.diffCounts?.resolved ?? null,
      findings_regressed: state.diffCounts?.regressed ?? null,
      findings_persisting: state.diffCounts?.persisting ?? null,
      reports: state.reportFiles.length,
      gates: state.gateResults.length,
      gates_tripped: state.gateResults.filter((result) => result.trips).length,
    },
    paths: {
      run_dir: runDir,
      database: config.database,
      diff_md: state.paths.diffMd,
      diff_json: state.paths.diffJson,
      gate_report_md: state.paths.gateMd,
      gate_report_json: state.paths.gateJson,
      gate_report_junit: state.paths.gateJunit,
      bundle: state.paths.bundle,
      reports: state.reportFiles.map((report) => report.report),
    },
    outputs: [...state.outputs].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    gates: state.gateResults.map(({ gate, project, status, status_text, trips, value, op, threshold }) => ({
      gate,
      project,
      status,
      status_text,
      trips,
      value,
      op,
      threshold,
    })),
    retention: state.retention,
    warnings: state.warnings,
  };
  let summaryPath: string | null = path.join(runDir, RUN_SUMMARY_FILE);
  try {
    await mkdir(runDir, { recursive: true });
    await writeOutputFile(summaryPath, runSummaryJson(summary));
  } catch (error) {
    effects.stderr(`run: cannot write ${summaryPath}: ${(error as Error).message}\n`);
    summaryPath = null;
  }
  effects.stderr(humanSummary(summary, summaryPath));
  return { exitCode, summary, summaryPath };
}
