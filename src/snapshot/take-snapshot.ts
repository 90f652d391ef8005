/**
 * `takeSnapshot`: fetches a workspace into a verifiable, atomic, resumable snapshot directory.
 *
 * ```
 *  prepare ── new <id>.partial/  or  --resume DIR (journal of finished files)  [+ --since PREV manifest]
 *     │
 *  1 config ─────────── GET /api/v1/config (no token) → api/app versions
 *     │
 *  2 evaluations ────── page 1 → total → pages 2..n concurrently (more if total grew; bounded)
 *     │                 → project ids, total_changed / duplicate_id warnings
 *  3 summaries ──────── --project keys, then job project ids not already covered (404 → warning)
 *     │
 *  4 trials ─────────── every assessment of every summary (reuse: journal ▸ --since link ▸ fetch)
 *     │                 → possibly_truncated when a list is exactly --trials-limit long
 *  5 findings ───────── latest FindingDetail per finding from the triage journal (--journal)
 *     │
 *  6 publish ────────── sweep, fsync, manifest.json, journal removed, rename to <id>/ last (publish.ts)
 * ```
 * Every body is stored under a temp name and renamed (fetch-to-file.ts), journaled, fsynced in the
 * background (flusher.ts) and validated beside the requests (check-body.ts: a body still in memory on
 * the main thread in slices, a larger one from its file on a worker, check-pool.ts), so an
 * interruption at any point loses at most the requests in flight.
 * A request that fails after the client's retries is recorded and the snapshot ends `partial`;
 * 401, 426 and an abort (SIGINT) stop the run and keep the `.partial` directory for `--resume`; an
 * abort after phase 5 lets publishing finish and is reported afterwards. When every request failed,
 * no directory is left.
 */
import { constants } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createApiClient } from '../api/client.js';
import { normalizeBaseUrl } from '../api/connection-settings.js';
import type { ApiClientOptions } from '../api/client-types.js';
import {
  ApiError,
  HttpError,
  isApiError,
  isUpgradeRequiredError,
  UpgradeRequiredError,
} from '../api/errors.js';
import type { RetryPolicy } from '../api/retry.js';
import { neutralizeControls } from '../api/error-body.js';
import {
  abortExitCode,
  CliError,
  describeError,
  interruptionText,
  InvalidOptionError,
  libraryOptionName,
  type OptionWording,
  WordedError,
} from '../errors.js';
import { buildManifest } from './build-manifest.js';
import { DEFAULT_TRIALS_LIMIT, configTarget, summaryTarget } from './fetch-plan.js';
import { FileStore } from './file-store.js';
import { RunStopper } from './run-stopper.js';
import {
  journalHeader,
  journalWhenStarted,
  startJournal,
  type JournalFile,
  type JournalHeader,
  type JournalWriter,
} from './journal.js';
import type { LinkFunction } from './link-file.js';
import type { FailedRequest, Manifest } from './manifest.js';
import { createProgress, type ProgressReporter } from './progress.js';
import { checkSameRun, prepareResume, type ResumePoint } from './resume.js';
import { safeSegment } from './safe-path.js';
import { loadPreviousSnapshot, type PreviousSnapshot } from './since.js';
import { pathExists, releaseSnapshotDir, reserveSnapshotDir } from './snapshot-id.js';
import { runPhases, type PhaseContext } from './snapshot-phases.js';
import { finishPublishing, publishSnapshot } from './publish.js';

/** What to snapshot and how; one-line meaning and default on each field. */
export interface SnapshotOptions {
  /** Service address. */
  baseUrl: string;
  org: string;
  workspace: string;
  /** Access token for operations 1-5; never written anywhere. */
  token?: string | undefined;
  /** Where the user sets the token, for messages about it. Default: AIRT_TOKEN or --token-file FILE. */
  tokenSource?: string | undefined;
  /** Root directory; the snapshot goes to `<out>/<org>/<workspace>/<snapshot_id>/`. */
  out: string;
  /** Projects (slug or UUID) to include besides those found in evaluation jobs. Default none. */
  projects?: readonly string[] | undefined;
  /** Requests in flight at most. Default 8. */
  concurrency?: number | undefined;
  /** `limit` of each trial list request, 1–5000. Default 5000. */
  trialsLimit?: number | undefined;
  /** Ask only for jailbreak trials. Default false. */
  jailbreaksOnly?: boolean | undefined;
  /**
   * A previous snapshot whose unchanged trial lists are hard-linked (copied where linking is
   * impossible) instead of fetched; fetched files identical to its files are linked too.
   */
  since?: string | undefined;
  /** An unfinished (`.partial`) or partial snapshot to continue. Its recorded options apply. */
  resume?: string | undefined;
  /** Triage journal (JSON Lines) to copy FindingDetail bodies from. */
  journal?: string | undefined;
  /** Retry policy overrides for the API client. */
  retry?: Partial<RetryPolicy> | undefined;
  /** Per-attempt timeout in ms. Default the client's (30 s). */
  timeoutMs?: number | undefined;
}

/** Side effects, injectable for tests; every field has a production default. */
export interface SnapshotEffects {
  /** Clock for the snapshot id and the manifest's times. Default: the system clock. */
  now?: () => Date;
  /** Random part of a new snapshot id (4 hex characters). Default: the system's random source. */
  snapshotIdSuffix?: () => string;
  /** HTTP implementation handed to the API client. Default: undici over keep-alive. */
  fetch?: ApiClientOptions['fetch'];
  /** Aborting stops the run cleanly and keeps the `.partial` directory resumable. */
  signal?: AbortSignal;
  /** Progress sink. Default: silent. */
  progress?: ProgressReporter;
  /** Hard-link implementation for sharing `--since` files. Default: fs.link. */
  link?: LinkFunction;
  /**
   * Called once the working `<id>.partial` directory exists (new or resumed): where a run that stops
   * can be continued from with `resume`. The CLI uses it to print its resume command.
   */
  onWorkingDirectory?: (partialDir: string) => void;
}

/** A finished snapshot: its directory, id, status (`complete` or `partial`) and manifest. */
export interface SnapshotResult {
  /** The finished snapshot directory. */
  dir: string;
  snapshotId: string;
  status: Manifest['status'];
  manifest: Manifest;
}

const MAX_CONCURRENCY = 64;

function checkInteger(option: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InvalidOptionError(
      option,
      (name) => `${name(option)} must be a whole number from ${min} to ${max}, got ${value}.`,
    );
  }
  return value;
}

/** Options in effect: for `resume`, the run's recorded options win; conflicting explicit ones are refused. */
function effectiveOptions(options: SnapshotOptions, header: JournalHeader | undefined): Manifest['options'] {
  const wanted = {
    projects: [...new Set(options.projects ?? [])],
    trials_limit: options.trialsLimit ?? DEFAULT_TRIALS_LIMIT,
    jailbreaks_only: options.jailbreaksOnly ?? false,
    since: options.since === undefined ? null : path.resolve(options.since),
  };
  if (!header) return wanted;
  const recorded = header.options;
  const conflicts: string[] = [];
  if (options.trialsLimit !== undefined && options.trialsLimit !== recorded.trials_limit)
    conflicts.push('trialsLimit');
  if (options.jailbreaksOnly !== undefined && options.jailbreaksOnly !== recorded.jailbreaks_only) {
    conflicts.push('jailbreaksOnly');
  }
  if (options.since !== undefined && wanted.since !== recorded.since) conflicts.push('since');
  const extraProjects = wanted.projects.filter((p) => !recorded.projects.includes(p));
  if (extraProjects.length > 0) conflicts.push('projects');
  if (conflicts.length > 0) {
    throw new InvalidOptionError(
      'resume',
      (name) =>
        `${name('resume')} continues a snapshot with its recorded options; ` +
        `${conflicts.map(name).join(', ')} differ. Drop them, or start a new snapshot.`,
    );
  }
  return recorded;
}

function silentProgress(): ProgressReporter {
  return createProgress({ write: () => undefined, isTTY: false, quiet: true });
}

/**
 * Takes a snapshot (or finishes one with `resume`). Resolves with the finished directory, also when
 * some requests failed (`status: 'partial'`; the CLI turns that into exit code 3). Rejects when the
 * run cannot finish: with the API client's typed error as it is (`isAuthenticationError(e)` for a bad
 * token, `isUpgradeRequiredError(e)` for an outdated client), an InvalidOptionError for an unusable
 * option, or a SnapshotStoppedError (interrupted, disk failure) naming the kept `.partial` directory;
 * `effects.onWorkingDirectory` says where that directory is in every case.
 */
export async function takeSnapshot(
  options: SnapshotOptions,
  effects: SnapshotEffects = {},
): Promise<SnapshotResult> {
  const now = effects.now ?? (() => new Date());
  const progress = effects.progress ?? silentProgress();
  const concurrency = checkInteger('concurrency', options.concurrency ?? 8, 1, MAX_CONCURRENCY);
  if (options.trialsLimit !== undefined)
    checkInteger('trialsLimit', options.trialsLimit, 1, DEFAULT_TRIALS_LIMIT);
  for (const project of options.projects ?? []) summaryTarget(options.org, options.workspace, project);
  // The client checks the address too, but only once it is created, after the working directory is.
  normalizeBaseUrl(options.baseUrl);

  if (options.journal !== undefined) {
    await access(options.journal, constants.R_OK).catch((error: NodeJS.ErrnoException) => {
      throw new InvalidOptionError(
        'journal',
        (name) =>
          `Cannot read the triage journal ${name('journal')} ${options.journal}: ${error.code ?? error.message}.`,
      );
    });
  }
  let runOptions = effectiveOptions(options, undefined);
  const resumeDir = options.resume;
  const resumePoint = resumeDir
    ? await prepareResume(resumeDir, (header) => {
        const { org, workspace, baseUrl } = options;
        checkSameRun(header, { dir: resumeDir, org, workspace, baseUrl });
        runOptions = effectiveOptions(options, header);
      })
    : undefined;
  if (resumePoint?.readyManifest) return publishPrepared(resumePoint, resumePoint.readyManifest);
  const previous: PreviousSnapshot | undefined = runOptions.since
    ? await loadPreviousSnapshot(runOptions.since)
    : undefined;

  let partialDir: string;
  let snapshotId: string;
  let startedAt: string;
  let finished: ReadonlyMap<string, JournalFile>;
  // The folders a new snapshot created on the way to its directory (`<out>/<org>/<workspace>`): a run
  // that leaves no directory removes them too (releaseSnapshotDir), a resumed one created none.
  let createdFolder: string | undefined;
  if (resumePoint) {
    ({ partialDir, snapshotId } = resumePoint);
    startedAt = resumePoint.header.started_at;
    finished = resumePoint.finished;
  } else {
    const parent = path.resolve(options.out, safeSegment(options.org), safeSegment(options.workspace));
    const started = now();
    ({ partialDir, snapshotId, createdFolder } = await reserveSnapshotDir({
      parent,
      now: started,
      org: options.org,
      workspace: options.workspace,
      suffix: effects.snapshotIdSuffix,
    }));
    startedAt = started.toISOString();
    finished = new Map();
  }
  const finalDir = path.join(path.dirname(partialDir), snapshotId);
  const header = journalHeader({
    snapshot_id: snapshotId,
    org: options.org,
    workspace: options.workspace,
    base_url: options.baseUrl,
    started_at: startedAt,
    options: runOptions,
  });
  await mkdir(partialDir, { recursive: true });
  effects.onWorkingDirectory?.(partialDir);
  // The journal is written while the first requests are under way (it costs two fsyncs); files wait
  // for it (FileStore's `ready`), and a journal that cannot be written stops the run at the first one.
  const journalStarted = startJournal(partialDir, header, [...finished.values()]);
  const journal: JournalWriter = journalWhenStarted(journalStarted);
  const writable = journalStarted.then(() => undefined);
  // Observed now: when the run stops before its first write, the failure is not left unhandled.
  writable.catch(() => undefined);

  const stopper = new RunStopper(effects.signal);
  const client = createApiClient({
    baseUrl: options.baseUrl,
    token: options.token,
    concurrency,
    signal: stopper.signal,
    onRetry: () => progress.retry(),
    userAgentSuffix: 'snapshot',
    ...(options.tokenSource !== undefined ? { tokenSource: options.tokenSource } : {}),
    ...(effects.fetch ? { fetch: effects.fetch } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
  const store = new FileStore({
    dir: partialDir,
    client,
    journal,
    ready: writable,
    progress,
    stopper,
    now,
    concurrency,
    finished,
    previous,
    link: effects.link,
  });
  const context: PhaseContext = {
    org: options.org,
    workspace: options.workspace,
    options: runOptions,
    journalFile: options.journal === undefined ? undefined : path.resolve(options.journal),
    store,
    stopper,
    progress,
    previous,
  };
  try {
    const outcome = await runPhases(context);
    const manifest = buildManifest({
      snapshotId,
      org: options.org,
      workspace: options.workspace,
      startedAt,
      finishedAt: now().toISOString(),
      baseUrl: options.baseUrl,
      apiVersion: outcome.apiVersion,
      appVersion: outcome.appVersion,
      options: runOptions,
      projects: outcome.projects,
      files: store.entries.values(),
      warnings: outcome.warnings,
      failures: store.failures,
    });
    await journal.close();
    progress.stop();
    if (manifest.files.length === 0) {
      // Every request failed (nothing listens there, wrong address): an empty snapshot is of no use and
      // nothing in it is worth resuming, so no directory is left that verify or load would accept (nor
      // the empty org/workspace folders made for it).
      await releaseSnapshotDir({ partialDir, createdFolder });
      throw nothingFetched(manifest, store.failureErrors);
    }
    // From here on the run is publishing: a SIGINT/SIGTERM no longer stops it half-way (the steps are
    // quick and local); it is reported once the snapshot is in place.
    await publishSnapshot(partialDir, finalDir, manifest, { synced: await store.flushed() });
    if (effects.signal?.aborted) throw interruptedWhilePublishing(effects.signal, finalDir, manifest);
    return { dir: finalDir, snapshotId, status: manifest.status, manifest };
  } catch (error) {
    if (error instanceof SnapshotStop) throw error;
    // Let background validations and flushes finish before the directory is kept or removed.
    await store.drain().catch(() => undefined);
    await store.close();
    await journal.close();
    progress.stop();
    const onlyConfig = [...store.stored].every((file) => file === configTarget().file);
    if (!resumePoint && onlyConfig && !effects.signal?.aborted) {
      // Nothing worth resuming (e.g. a wrong token): leave no directory behind, nor the folders made for it.
      await releaseSnapshotDir({ partialDir, createdFolder });
      throw explainStop(error, undefined, context);
    }
    throw explainStop(error, partialDir, context, effects.signal);
  } finally {
    await store.close();
    await client.close();
  }
}

/** A request a snapshot that stopped without a manifest could not make (for the run summary). */
export interface StoppedRequest {
  method: string;
  /** Path and query, relative to the base URL. */
  path: string;
  /** HTTP status, or null when no response came. */
  status: number | null;
  attempts: number;
  error: string;
}

/** A StoppedRequest whose error still names options through `name` (see OptionWording). */
interface WordedStoppedRequest extends Omit<StoppedRequest, 'error'> {
  error: OptionWording;
}

/**
 * An error takeSnapshot raises after it has already settled the directory: passed on as it is. Its
 * message quotes the failures' own wording, so each caller names the settings in its words (the
 * library `options.baseUrl`, the CLI `--base-url / AIRT_BASE_URL`, a run `connection.base_url`).
 */
class SnapshotStop extends WordedError {
  override readonly name = 'SnapshotStop';
  /** The requests that failed, when the snapshot stopped before a manifest could list them. */
  failedRequests: readonly WordedStoppedRequest[] = [];
}

function nothingFetched(manifest: Manifest, errors: ReadonlyMap<FailedRequest, ApiError>): CliError {
  // A failure's error words its advice for each caller; the manifest's text names settings plainly.
  const wordingOf = (failure: FailedRequest): OptionWording => {
    const error = errors.get(failure);
    return error === undefined ? () => failure.error : (name) => error.describeWith(name);
  };
  const first = manifest.failed_requests[0];
  const firstWording: OptionWording = first === undefined ? () => 'every request failed.' : wordingOf(first);
  // The first failure already says what to check (address, service down) and what to do next.
  const stop = new SnapshotStop((name) => {
    const reason = neutralizeControls(firstWording(name));
    return `Nothing was fetched, so there is no snapshot: ${reason}${/[.!?]$/.test(reason) ? '' : '.'}`;
  });
  stop.failedRequests = manifest.failed_requests.map((failure) => ({
    method: failure.method,
    path: failure.path,
    status: failure.status,
    attempts: failure.attempts,
    error: wordingOf(failure),
  }));
  return stop;
}

/**
 * The failed requests behind an error takeSnapshot threw, when no manifest records them: the list of a
 * snapshot that fetched nothing, or the one request whose failure stopped the snapshot. Their errors
 * name options as `name` spells them (default: the library's `options.baseUrl`).
 */
export function stoppedRequestsOf(
  error: unknown,
  name: (option: string) => string = libraryOptionName,
): readonly StoppedRequest[] {
  if (error instanceof SnapshotStop && error.failedRequests.length > 0) {
    return error.failedRequests.map((request) => ({ ...request, error: request.error(name) }));
  }
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 5; depth += 1) {
    if (cause instanceof ApiError) {
      return [
        {
          method: cause.method,
          path: cause.path,
          status: cause instanceof HttpError ? cause.status : null,
          attempts: cause.attempts,
          error: cause.describeWith(name),
        },
      ];
    }
    cause = cause.cause;
  }
  return [];
}

function interruptedWhilePublishing(signal: AbortSignal, dir: string, manifest: Manifest): CliError {
  const partial =
    manifest.status === 'partial' ? ' (status partial: see failed_requests in manifest.json)' : '';
  return new SnapshotStop(
    () =>
      `${interruptionText(signal)} while the snapshot was being published; publishing was completed first, ` +
      `so the snapshot is finished and usable${partial}: ${dir}`,
    abortExitCode(signal),
  );
}

/** `--resume` of a `.partial` stopped while publishing: its verified manifest is kept, only the rename is left. */
async function publishPrepared(resumePoint: ResumePoint, manifest: Manifest): Promise<SnapshotResult> {
  const finalDir = path.join(path.dirname(resumePoint.partialDir), resumePoint.snapshotId);
  if (await pathExists(finalDir)) {
    throw new InvalidOptionError(
      'resume',
      (name) =>
        `${name('resume')} ${resumePoint.partialDir}: ${finalDir} exists too; keep one of them and remove the other.`,
    );
  }
  await finishPublishing(resumePoint.partialDir, finalDir);
  return { dir: finalDir, snapshotId: resumePoint.snapshotId, status: manifest.status, manifest };
}

/**
 * Why a snapshot stopped before it was finished, when the unfinished `<id>.partial` directory was kept:
 * an interruption, or a failure that is not the API client's (those are passed on as they are). Pass
 * `partialDir` as `resume` to continue.
 */
export class SnapshotStoppedError extends CliError {
  override readonly name = 'SnapshotStoppedError';
  /** What stopped the run, one sentence. */
  readonly reason: string;
  private readonly wording: OptionWording;
  constructor(
    /** What stopped the run; a wording when it names options (a stopping error's `describeWith`). */
    reason: string | OptionWording,
    /** The kept working directory, to pass as `resume`. */
    readonly partialDir: string,
    exitCode: CliError['exitCode'],
    cause?: unknown,
  ) {
    const wording = typeof reason === 'string' ? () => reason : reason;
    super(`${wording(libraryOptionName)} The unfinished snapshot is kept in ${partialDir}.`, exitCode, {
      cause,
    });
    this.wording = wording;
    this.reason = wording(libraryOptionName);
  }
  /** The reason with option names spelled by `name` (the CLI's flags). */
  reasonWith(name: (option: string) => string): string {
    return this.wording(name);
  }
  /** The message with option names spelled by `name`. */
  describeWith(name: (option: string) => string): string {
    return `${this.wording(name)} The unfinished snapshot is kept in ${this.partialDir}.`;
  }
}

/**
 * What to throw for whatever stopped the run. The API client's typed errors pass unchanged (a caller
 * tells a wrong token from an outage by type); a 426 gains the service's api_version from the config
 * the run fetched. Other failures and interruptions with a kept directory become SnapshotStoppedError.
 */
function explainStop(
  error: unknown,
  partialDir: string | undefined,
  context: PhaseContext,
  signal?: AbortSignal,
): Error {
  if (signal?.aborted && partialDir !== undefined) {
    return new SnapshotStoppedError(
      `${interruptionText(signal)} before the snapshot was finished.`,
      partialDir,
      abortExitCode(signal),
    );
  }
  const apiVersion = context.versions?.apiVersion;
  if (isUpgradeRequiredError(error) && error.apiVersion === undefined && apiVersion) {
    const fields = { status: error.status, type: error.type, detail: error.detail, errors: error.errors };
    return new UpgradeRequiredError(error, fields, error.attempts, apiVersion);
  }
  if (isApiError(error)) return error;
  if (error instanceof CliError) {
    return partialDir === undefined
      ? error
      : new SnapshotStoppedError((name) => describeError(error, name), partialDir, error.exitCode, error);
  }
  const reason = `The snapshot stopped: ${error instanceof Error ? error.message : String(error)}.`;
  return partialDir === undefined
    ? new CliError(reason, undefined, { cause: error })
    : new SnapshotStoppedError(reason, partialDir, 1, error);
}
