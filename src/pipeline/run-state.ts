/**
 * What a run knows as it goes: the effects it was given, each step's record, and the values later
 * steps need (snapshot, previous snapshot, diff, gate results, files written). One mutable object
 * owned by one run — never shared, never global — so the steps stay small functions of it.
 */
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { describeError } from '../errors.js';
import { hashFile } from '../snapshot/hash-file.js';
import type { SnapshotEffects, SnapshotResult, StoppedRequest } from '../snapshot/take-snapshot.js';
import type { VerifyResult } from '../snapshot/verify.js';
import type { Warehouse } from '../warehouse/db.js';
import type { GateResult } from './gates.js';
import type { GateProjects } from './gate-scope.js';
import { BASELINE_REASON } from './gates-baseline.js';
import { runOptionName, type RunConfig } from './run-config.js';
import type { OutputFile, StepName, StepRecord, StepStatus } from './run-summary.js';

/** Side effects of a run; everything but stderr and env has a production default. */
export interface PipelineEffects {
  /** Progress and the human summary. */
  stderr: (text: string) => void;
  /** Where AIRT_TOKEN is read (the only environment variable the pipeline reads). */
  env: Readonly<Record<string, string | undefined>>;
  /** Progress bar instead of plain lines. Default false. */
  stderrIsTTY?: boolean;
  /** No snapshot progress output. Default false. */
  quiet?: boolean;
  /** Clock for snapshot ids and summary times. Default: the system clock. */
  now?: () => Date;
  /**
   * Aborting stops the run at the end of the step in progress (the snapshot and report steps stop at
   * once): the summary says what was left, and the exit code is the abort's (130, or 143 for an
   * InterruptedError of SIGTERM). While the run holds its lock, the first SIGINT/SIGTERM is left to
   * whoever aborts this signal (see stop-signals.ts).
   */
  signal?: AbortSignal;
  /** Called as each step starts (progress for library callers). */
  onStepStart?: (name: StepName) => void;
  /** HTTP implementation for the API client. */
  fetch?: SnapshotEffects['fetch'];
  /** Chromium for PDF reports. Default: AIRT_CHROMIUM (from env) or /usr/bin/chromium. */
  chromiumPath?: string;
}

export interface WrittenReportRecord {
  kind: string;
  project: string | null;
  format: string;
  /** The report file. */
  report: string;
  /** Every file written for it (report first, then charts). */
  files: string[];
  /** Bundle entry name prefix base: files are named `reports/<path relative to base>`. */
  base: string;
}

export interface StepOutcome {
  status?: StepStatus;
  detail?: string | null;
}

export class RunState {
  readonly startedAt: Date;
  readonly steps: StepRecord[] = [];
  readonly outputs: OutputFile[] = [];
  readonly warnings: string[] = [];
  readonly reportFiles: WrittenReportRecord[] = [];
  readonly paths = {
    diffMd: null as string | null,
    diffJson: null as string | null,
    gateMd: null as string | null,
    gateJson: null as string | null,
    gateJunit: null as string | null,
    bundle: null as string | null,
  };
  snapshot: SnapshotResult | null = null;
  /** Failed requests of a snapshot that stopped before writing a manifest (none otherwise). */
  stoppedRequests: readonly StoppedRequest[] = [];
  /** The on-disk snapshot `--since` reused trial files from. */
  since: string | null = null;
  /** The snapshot the diff and gates compare with: the recorded gated baseline, if in the database. */
  previousSnapshotId: string | null = null;
  /** Why previousSnapshotId is that snapshot (or none), as the gate report says it (gates-baseline.ts). */
  previousSnapshotReason: string = BASELINE_REASON.noGated;
  /** The gated baseline as recorded before this run (null: none); undefined until the load step reads it. */
  recordedBaseline: string | null | undefined = undefined;
  /** Projects in scope (keys), in report order. */
  projects: string[] = [];
  /** Every project the snapshot holds. */
  projectsInSnapshot: string[] = [];
  /**
   * The gates' scope, resolved once by the load step (gate-scope.ts): projects without a summary
   * included, and the configured ones the snapshot does not list.
   */
  gateProjects: GateProjects | null = null;
  rowsLoaded: number | null = null;
  /** The verify step's result, handed to the load so it does not hash every file again. */
  verification: VerifyResult | null = null;
  diffCounts: { new: number; resolved: number; regressed: number; persisting: number } | null = null;
  gateResults: GateResult[] = [];
  retention: { kept: string[]; deleted: string[]; kept_bytes: number; freed_bytes: number } | null = null;
  lockLost = false;
  /** The step running when the signal aborted the run; null while not interrupted. */
  interruptedDuring: StepName | null = null;
  /** True when the loop stopped before the last step because the run was interrupted. */
  stoppedEarly = false;
  /** True once every step succeeded and this snapshot was recorded as the next run's baseline. */
  baselineRecorded = false;
  /** The step in progress, for interruptedDuring. */
  private currentStep: StepName | null = null;
  /** Opened read-only on first use after the load step; closed by closeWarehouse(). */
  private warehouse: Warehouse | null = null;

  constructor(
    readonly config: RunConfig,
    readonly effects: PipelineEffects,
    readonly token: string,
    /** `<snapshot out>/<org>/<workspace>`. */
    readonly workspaceDir: string,
  ) {
    this.startedAt = this.now();
  }

  now(): Date {
    return this.effects.now?.() ?? new Date();
  }

  /** `<output_dir>/<snapshot id>/`, once there is a snapshot. */
  get runDir(): string | null {
    return this.snapshot === null ? null : path.join(this.config.output_dir, this.snapshot.snapshotId);
  }

  warn(message: string): void {
    this.warnings.push(message);
  }

  /** True when the step ran and did not fail. */
  succeeded(name: StepName): boolean {
    const step = this.steps.find((s) => s.name === name);
    return step !== undefined && step.status !== 'failed' && step.status !== 'skipped';
  }

  /**
   * Runs a step unless a step it needs did not succeed; records status, duration and detail. An
   * error fails the step (its message is recorded) and the run carries on to the summary.
   */
  async step(name: StepName, needs: readonly StepName[], work: () => Promise<StepOutcome>): Promise<void> {
    this.currentStep = name;
    const missing = needs.find((need) => !this.succeeded(need));
    if (missing !== undefined) {
      this.steps.push({
        name,
        status: 'skipped',
        duration_ms: 0,
        detail: null,
        error: `needs ${missing}, which did not succeed`,
      });
      return;
    }
    this.effects.onStepStart?.(name);
    const started = performance.now();
    try {
      const outcome = await work();
      this.steps.push({
        name,
        status: outcome.status ?? 'ok',
        duration_ms: Math.round(performance.now() - started),
        detail: outcome.detail ?? null,
        error: null,
      });
    } catch (error) {
      this.steps.push({
        name,
        status: 'failed',
        duration_ms: Math.round(performance.now() - started),
        detail: null,
        // Library errors name options as a call spells them; a run names its config keys instead.
        error: error instanceof Error ? describeError(error, runOptionName) : String(error),
      });
    }
  }

  /** Records a step that was not run on purpose (e.g. bundle disabled). */
  skip(name: StepName, reason: string): void {
    this.currentStep = name;
    this.steps.push({ name, status: 'skipped', duration_ms: 0, detail: reason, error: null });
  }

  /**
   * The warehouse for the steps that read it (diff, reports, gates): opened read-only once, after the
   * load step has written and closed it, instead of once per step and per report.
   */
  async warehouseConnection(): Promise<DuckDBConnection> {
    if (this.warehouse === null) {
      const { openWarehouse } = await import('../warehouse/db.js');
      this.warehouse = await openWarehouse(this.config.database, { readOnly: true });
    }
    return this.warehouse.conn;
  }

  /** Remembers the step in progress when the run's signal aborts (or had aborted before it began). */
  watchInterruption(): () => void {
    const signal = this.effects.signal;
    if (signal === undefined) return () => undefined;
    const onAbort = (): void => {
      this.interruptedDuring ??= this.currentStep ?? 'snapshot';
    };
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    return () => signal.removeEventListener('abort', onAbort);
  }

  /** Closes the shared warehouse, if it was opened; safe to call more than once. */
  closeWarehouse(): void {
    this.warehouse?.close();
    this.warehouse = null;
  }

  /** Hashes a file the run wrote and lists it in the summary's outputs. */
  async recordOutput(file: string): Promise<void> {
    const digest = await hashFile(file);
    if (digest === undefined) throw new Error(`${file} was written but is missing`);
    this.outputs.push({ path: file, sha256: digest.sha256, bytes: digest.bytes });
  }
}
