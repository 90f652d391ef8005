/**
 * Gets one file of a snapshot into the working directory, whichever way is cheapest and still
 * trustworthy — reuse from an interrupted run (hash vouched by the journal), a hard link (or, where
 * impossible, a copy) from `--since` (vouched by PREV's manifest), or a fetch (linked to PREV's file
 * when the bytes are identical) — reads the facts the plan needs next, and queues the
 * file's validation, which runs in the background and completes its manifest entry.
 * A request that fails for good becomes a `failed_requests` entry; so does one whose stored body its
 * validation finds is not valid JSON (a trial list too long to check while it arrived): its file is
 * removed, so `--resume` fetches it again. Errors that make going on pointless (401, 426, an abort)
 * stop the whole run.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import pLimit, { type LimitFunction } from 'p-limit';
import type { ApiClient } from '../api/client-types.js';
import { ApiError, isAuthenticationError, isNotFoundError, isUpgradeRequiredError } from '../api/errors.js';
import { answerProblem, checkBody, isInvalidJson, type BodyCheck } from './check-body.js';
import { CheckPool } from './check-pool.js';
import { failedRequest, failedTarget, unusableFile, type FailedItem } from './failed-request.js';
import { Flusher } from './flusher.js';
import type { FetchTarget } from './fetch-plan.js';
import { fetchToFile } from './fetch-to-file.js';
import { hashFile } from './hash-file.js';
import type { JournalFile, JournalWriter } from './journal.js';
import type { LinkFunction } from './link-file.js';
import type { FailedRequest, ManifestFile } from './manifest.js';
import type { ProgressReporter } from './progress.js';
import { resolveInside } from './safe-path.js';
import { linkIdenticalPrevious, shareFromPrevious, type Validation } from './share-previous.js';
import type { PreviousSnapshot } from './since.js';
import type { RunStopper } from './run-stopper.js';

/** Errors after which no further request can succeed: wrong token, outdated client. */
function isFatalApiError(error: unknown): boolean {
  return isAuthenticationError(error) || isUpgradeRequiredError(error);
}

export interface ObtainOptions<F = unknown> {
  /** Return 'not_found' for a 404 instead of recording a failure (missing projects are a warning). */
  notFoundIsResult?: boolean;
  /**
   * With notFoundIsResult: also record the 404 as a failed request. A project the user named with
   * --project that does not exist is a failed item (the snapshot is partial), not just a warning.
   */
  notFoundIsFailure?: boolean;
  /** A `--since` file to link (or copy) instead of fetching. */
  reuse?: { source: string; file: ManifestFile };
  /** Extra manifest fields (e.g. the assessment's updated_at and status for --since). */
  extra?: Partial<ManifestFile>;
  /**
   * A request running beside this one whose outcome an error that stops the run must not cut short:
   * the stop waits for it. The first evaluation page goes out with the config, and a 426 on the page
   * must still find the service's api_version from the config for its message.
   */
  stopAfter?: Promise<unknown>;
  /**
   * Receives the facts as soon as a fetched body held in memory has arrived, before its file is
   * written (which may wait behind the thread pool's fsyncs), so the requests that depend on them can
   * start at once. obtain() still resolves only once the file is stored, with the same facts; if the
   * file cannot be stored the run stops.
   */
  onFacts?: (facts: F) => void;
}

export type Obtained<F> = { stored: JournalFile; facts: F } | 'not_found' | 'failed';

export interface FileStoreOptions {
  dir: string;
  client: ApiClient;
  journal: JournalWriter;
  progress: ProgressReporter;
  stopper: RunStopper;
  now: () => Date;
  concurrency: number;
  /**
   * Resolves once files may be written into the working directory (its journal exists); every file
   * operation waits for it, the requests do not. Default: at once.
   */
  ready?: Promise<void> | undefined;
  /** Files an interrupted run finished, by path (from its journal). */
  finished: ReadonlyMap<string, JournalFile>;
  /** The `--since` snapshot, whose files are shared instead of stored again. */
  previous?: PreviousSnapshot | undefined;
  /** Hard-link implementation (default fs.link); tests make it fail like another filesystem. */
  link?: LinkFunction | undefined;
}

/** A file in place under its final name, with PREV's validation when the bytes are PREV's. */
interface Taken {
  file: JournalFile;
  validation?: Validation | undefined;
  /** The body, when fetched and held in memory: facts and validation read it there. */
  content?: Uint8Array | undefined;
}

/**
 * Project summaries up to this size are held in memory until stored (other bodies: SPILL_BYTES): the
 * trial lists wait for a summary's facts, which are then parsed at once instead of read back from
 * disk. Summaries are few (one per project) and a few MB at most, so this adds little to what is held.
 */
const SUMMARY_HOLD_BYTES = 4 * 1024 * 1024;

/**
 * Bodies held for validation at most, in bytes: validation runs one file at a time and may lag
 * behind the requests; past this, bodies are read back from disk (on a worker) instead of held.
 */
const MAX_HELD_FOR_CHECK_BYTES = 8 * 1024 * 1024;

export class FileStore {
  /** Validated files: the manifest's `files`, complete once `drain()` resolved. */
  readonly entries = new Map<string, ManifestFile>();
  /** Files on disk under their final name in this run (validated or not yet). */
  readonly stored = new Set<string>();
  readonly failures: FailedRequest[] = [];
  /**
   * The error behind each of `failures`, for messages shown now: its `describeWith` names options as
   * the caller does (a snapshot that fetched nothing quotes it in the caller's words). The failure's
   * own `error` text is stored in the manifest and read later by any interface, so it names settings
   * in plain words ("the service's base URL"), never one caller's spelling.
   */
  readonly failureErrors = new Map<FailedRequest, ApiError>();
  private readonly io: LimitFunction;
  /**
   * Validation of a body not in memory (spilled, linked, or past the held budget) runs on worker
   * threads (started on the first such body), one file per worker at a time, so memory stays flat
   * and the main thread is free for the requests.
   */
  private readonly pool = new CheckPool();
  private readonly fileChecks: LimitFunction = pLimit(this.pool.size);
  /**
   * A body still in memory is validated here, one at a time, in slices that yield to the event loop
   * (checkBody): the quick schema check makes that cheaper than starting a worker, copying the body
   * over and parsing it a second time (a summary's facts already parsed it; check-body keeps that).
   */
  private readonly memoryChecks: LimitFunction = pLimit(1);
  /** fsyncs each stored file in the background; publishing skips the files it has flushed. */
  private readonly flusher = new Flusher();
  /** Queued validations and journal lines: drain() waits for all of them. */
  private readonly pending: Promise<void>[] = [];
  /** Directories made (or being made) in this run: each is created once, whoever asks first. */
  private readonly dirs = new Map<string, Promise<void>>();
  private heldForCheck = 0;

  constructor(private readonly options: FileStoreOptions) {
    // The client bounds requests in flight; twice as many slots here let one request's file write
    // and rename overlap the next request instead of idling a connection.
    this.io = pLimit(options.concurrency * 2);
  }

  /** Absolute path of a snapshot-relative file, proven to stay inside the working directory. */
  resolve(relative: string): string {
    return resolveInside(this.options.dir, relative);
  }

  /**
   * Resolves once `file` may be written: its directory exists (made once per directory; a failed
   * attempt is tried again next time) and so does the run's journal (`ready`).
   */
  ensureDir(file: string): Promise<void> {
    const dir = path.dirname(file);
    let made = this.dirs.get(dir);
    if (!made) {
      made = Promise.all([this.options.ready, mkdir(dir, { recursive: true })]).then(() => undefined);
      made.catch(() => this.dirs.delete(dir));
      this.dirs.set(dir, made);
    }
    return made;
  }

  /**
   * Stores `target` (reused, copied or fetched), reads its facts with `facts` and queues its
   * validation. Resolves to the stored file and the facts, 'not_found', or 'failed' (recorded).
   * Rejects only when the run must stop.
   */
  async obtain<F = null>(
    target: FetchTarget,
    facts?: (file: string, content?: Uint8Array) => Promise<F>,
    options: ObtainOptions<F> = {},
  ): Promise<Obtained<F>> {
    const { stopper, progress } = this.options;
    let taken: Taken;
    const file = this.resolve(target.file);
    let early: Promise<F> | undefined;
    const readEarly =
      facts && options.onFacts
        ? (content: Uint8Array): void => {
            early = facts(file, content);
            early.then(options.onFacts, () => undefined);
          }
        : undefined;
    try {
      taken = await this.io(async (): Promise<Taken> => {
        if (stopper.stopped) throw stopper.error;
        const finished = await this.reuseFinished(target, file);
        if (finished) return { file: finished };
        return (
          (await this.shareFromSince(target, file, options)) ??
          (await this.fetch(target, file, options, readEarly))
        );
      });
    } catch (error) {
      if (stopper.stopped) throw stopper.error;
      if (isFatalApiError(error)) {
        await options.stopAfter?.catch(() => undefined);
        stopper.stop(error);
        throw error;
      }
      if (!(error instanceof ApiError)) throw error;
      if (options.notFoundIsResult && isNotFoundError(error)) {
        if (options.notFoundIsFailure) this.recordFailure(failedTarget(target), error);
        else progress.done(0);
        return 'not_found';
      }
      this.recordFailure(failedTarget(target), error);
      return 'failed';
    }
    this.record(taken.file, taken.validation, taken.content);
    return { stored: taken.file, facts: facts ? await (early ?? facts(file, taken.content)) : (null as F) };
  }

  /**
   * Queues the journal line of a file that is on disk under its final name, and its validation; its
   * manifest entry appears when validation is done (drain() waits for both). Also used for files that did not come from a request
   * (findings copied from the triage journal). `known` is PREV's validation of the same bytes: a
   * shared file is then not read at all.
   */
  record(stored: JournalFile, known?: Validation, content?: Uint8Array): void {
    this.stored.add(stored.path);
    // A linked file's bytes were made durable when the earlier snapshot was published.
    if (stored.stored !== 'linked') this.flusher.flush(stored.path, this.resolve(stored.path));
    // Not waited for here: the line matters only to a later resume, and a write queued behind the
    // thread pool's fsyncs would hold up the requests that wait for this file's facts (a summary's
    // trial lists). A failed write stops the run as a failed check does; drain() waits for it.
    const journaled = this.options.journal.append(stored);
    journaled.catch((error: unknown) => this.options.stopper.stop(error));
    this.pending.push(journaled);
    if (known) {
      this.entries.set(stored.path, { ...stored, ...known });
      return;
    }
    const file = this.resolve(stored.path);
    let held =
      content && this.heldForCheck + content.byteLength <= MAX_HELD_FOR_CHECK_BYTES ? content : undefined;
    this.heldForCheck += held?.byteLength ?? 0;
    const validation = (held ? this.memoryChecks : this.fileChecks)(async () => {
      const size = held?.byteLength ?? 0;
      const body = held;
      held = undefined;
      try {
        if (this.options.stopper.stopped) return;
        await this.validate(stored, file, body);
      } finally {
        this.heldForCheck -= size;
      }
    });
    // Observed here so a failure stops the run at once instead of waiting for drain().
    validation.catch((error: unknown) => this.options.stopper.stop(error));
    this.pending.push(validation);
  }

  /**
   * Validates one stored file into its entry: a body still in memory right here, anything else on a
   * worker thread from its file.
   */
  private async validate(stored: JournalFile, file: string, content: Uint8Array | undefined): Promise<void> {
    const check = content
      ? await checkBody(stored.kind, file, stored.bytes, content)
      : await this.pool.run({ kind: stored.kind, file, bytes: stored.bytes, content: undefined });
    if (stored.request !== null && isInvalidJson(check.issues)) {
      await this.unusable({ ...stored, request: stored.request }, file, check);
      return;
    }
    this.entries.set(stored.path, {
      ...stored,
      records: check.records,
      issues: check.issues,
      issues_total: check.issuesTotal,
      unknown_keys: check.unknownKeys,
    });
  }

  /**
   * A stored body its validation found is not JSON at all: no answer, so its request failed. The file
   * goes (a journal line naming it no longer matches anything, so `--resume` fetches it again) and the
   * request is recorded as failed; the snapshot ends partial.
   */
  private async unusable(
    stored: JournalFile & { request: NonNullable<JournalFile['request']> },
    file: string,
    check: BodyCheck,
  ): Promise<void> {
    this.stored.delete(stored.path);
    await rm(file, { force: true });
    const { item, error } = unusableFile(stored, check);
    // The request is already counted as done in the progress (its body arrived).
    this.recordFailure(item, error, true);
  }

  /** Waits for every queued validation and journal line; rethrows what stopped the run, if anything did. */
  async drain(): Promise<void> {
    // The last journal lines are written now: their batch's timer would hold up publishing.
    this.options.journal.flush();
    await Promise.allSettled(this.pending);
    if (this.options.stopper.stopped) throw this.options.stopper.error;
  }

  /** Files flushed in the background so far, once the flushes under way are done (for publishing). */
  async flushed(): Promise<ReadonlySet<string>> {
    await this.flusher.settle();
    return this.flusher.synced;
  }

  /** Ends the validation workers and the background flushes (a check still running fails). */
  async close(): Promise<void> {
    await this.flusher.settle(true);
    await this.pool.close();
  }

  private base(
    target: FetchTarget,
    options: Omit<ObtainOptions, 'onFacts'>,
  ): Omit<JournalFile, 'sha256' | 'bytes' | 'status' | 'fetched_at'> {
    const identity = Object.fromEntries(Object.entries(target.identity).filter(([, v]) => v !== undefined));
    return {
      path: target.file,
      kind: target.kind,
      request: { method: target.request.method, path: target.requestPath },
      ...identity,
      ...options.extra,
    };
  }

  /** A file an interrupted run finished: reused when its hash still matches the journal. */
  private async reuseFinished(target: FetchTarget, file: string): Promise<JournalFile | undefined> {
    const previous = this.options.finished.get(target.file);
    if (!previous || previous.request?.path !== target.requestPath) return undefined;
    const digest = await hashFile(file);
    if (!digest || digest.sha256 !== previous.sha256 || digest.bytes !== previous.bytes) return undefined;
    this.options.progress.reused(digest.bytes);
    return previous;
  }

  /** `--since`: PREV's unchanged file linked (or copied) into place; undefined to fetch instead. */
  private async shareFromSince(
    target: FetchTarget,
    file: string,
    options: Omit<ObtainOptions, 'onFacts'>,
  ): Promise<Taken | undefined> {
    const { previous, link } = this.options;
    if (!options.reuse || !previous) return undefined;
    await this.ensureDir(file);
    const shared = await shareFromPrevious(previous, options.reuse, file, link);
    if (!shared) return undefined;
    this.options.progress.reused(shared.digest.bytes);
    const entry = options.reuse.file;
    return {
      file: {
        ...this.base(target, options),
        sha256: shared.digest.sha256,
        bytes: shared.digest.bytes,
        status: entry.status,
        fetched_at: entry.fetched_at,
        reused_from: { snapshot_id: previous.snapshotId, sha256: entry.sha256 },
        stored: shared.stored,
        ...(shared.stored === 'linked' ? { linked_from: previous.snapshotId } : {}),
      },
      validation: shared.validation,
    };
  }

  private async fetch(
    target: FetchTarget,
    file: string,
    options: Omit<ObtainOptions, 'onFacts'>,
    onReceived?: (content: Uint8Array) => void,
  ): Promise<Taken> {
    const { previous, link } = this.options;
    const same: { linked: boolean; validation?: Validation | undefined } = { linked: false };
    const body = await fetchToFile(this.options.client, target.request, file, {
      // Made while the request is under way: the request never waits for the file system.
      directory: this.ensureDir(file),
      ...(target.kind === 'project_summary' ? { holdUpToBytes: SUMMARY_HOLD_BYTES } : {}),
      // The flusher fsyncs the new file through the descriptor that wrote it (see flusher.ts).
      takeDescriptor: (fd) => this.flusher.flushOpen(target.file, file, fd),
      ...(onReceived ? { onReceived } : {}),
      // A body that is not JSON fails the attempt before it is stored or its facts are read: the
      // client repeats it, and if it never comes whole the request fails (its summary's trial lists
      // are then not silently left out: the snapshot is partial, and --resume asks again).
      bodyProblem: (body) => answerProblem(target.kind, body),
      beforeCommit: async (digest) => {
        const linked = await linkIdenticalPrevious(previous, target.file, digest, file, link);
        if (linked) Object.assign(same, { linked: true, validation: linked.validation });
        return same.linked;
      },
    });
    this.options.progress.done(body.bytes);
    return {
      file: {
        ...this.base(target, options),
        sha256: body.sha256,
        bytes: body.bytes,
        status: body.status,
        fetched_at: this.options.now().toISOString(),
        stored: same.linked ? 'linked' : 'fetched',
        ...(same.linked && previous ? { linked_from: previous.snapshotId } : {}),
      },
      validation: same.validation,
      content: body.content,
    };
  }

  /** `counted`: the request is already counted as done in the progress. */
  private recordFailure(item: FailedItem, error: ApiError, counted = false): void {
    if (!counted) this.options.progress.failed();
    const failure = failedRequest(item, error);
    this.failures.push(failure);
    this.failureErrors.set(failure, error);
  }
}
