/**
 * Loads snapshot directories into the warehouse.
 *
 *   manifest.json ─▶ verify (sizes, sha256, root hash) ─▶ already loaded? ─▶ stage trials ─▶ BEGIN
 *     ─▶ summaries, evaluation pages, findings/ (parsed in JS, small) ─▶ rows per table
 *     ─▶ trials/ (DuckDB read_json, see trial-loader.ts)
 *     ─▶ row counts vs the manifest's `records` ─▶ COMMIT   (any error: ROLLBACK, DB unchanged)
 *
 * One transaction per snapshot. Loading a snapshot id again with the same root hash is a no-op; a
 * different root hash under the same id is refused. A partial snapshot loads and is marked partial.
 * A snapshot failing verification is refused unless `force`, and then marked verified = false.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  abortExitCode,
  CliError,
  interruptionText,
  InvalidOptionError,
  WordedError,
  type OptionWording,
} from '../errors.js';
import { handedOverVerification } from '../snapshot/handed-over-verification.js';
import { MANIFEST_FILE, type Manifest } from '../snapshot/manifest.js';
import { resolveInside } from '../snapshot/safe-path.js';
import { readManifest, verifySnapshot, type VerifyOptions, type VerifyResult } from '../snapshot/verify.js';
import { TrialFileRepairs } from './altered-values.js';
import { createWarehouseFile, needsCreation, removeAbandoned } from './create-warehouse.js';
import { inTransaction, openWarehouse, requireDatabase, type Warehouse } from './db.js';
import { forgetPruned } from './pruned-snapshots.js';
import { ensureSchema, warehouseVersion } from './ddl.js';
import { loadJournalInto, readTriageJournal, type JournalLoadResult, type ParsedJournal } from './journal.js';
import type { VerifyProblem } from './load-checks.js';
import { firstLoadWarnings, type LoadWarningRow } from './shown-warnings.js';
import { SnapshotLoad, type LoadProgress } from './snapshot-load.js';
import { SnapshotTrials } from './snapshot-trials.js';
import { heldTrialFiles } from './trial-content.js';
import { dropTrialStage, LoadMemoryError, UnreadableTrialFileError } from './trial-loader.js';
import { readKnownDigests, recordVerified } from './verified-files.js';
import { DEFAULT_LOCK_TIMEOUT_MS, openWarehouseLocked } from './warehouse-lock.js';

export { RecordCountError } from './load-checks.js';

/** DuckDB threads the whole-file fast path tries first (see loadOneSnapshot). */
const WHOLE_FILE_THREADS = 2;
const DEFAULT_MEMORY_LIMIT = '256MB';
export type { VerifyProblem } from './load-checks.js';
export type { LoadProgress } from './snapshot-load.js';

/** How loadSnapshots loads: force past verification, a triage journal, progress, clock, lock timeout. */
export interface LoadOptions {
  /** Load snapshots that fail verification (marked verified = false, problems in load_warnings). */
  force?: boolean;
  /** A triage journal (JSON Lines) to load after the snapshots. */
  journal?: string;
  /** Progress events; an exception thrown here aborts the current snapshot's load (rolled back). */
  onProgress?: (event: LoadProgress) => void;
  /** Clock for snapshots.loaded_at (tests pin it). */
  now?: () => Date;
  /**
   * DuckDB memory_limit for the load (default 256MB): beyond it DuckDB spills to disk, which keeps
   * the load of a million-trial snapshot under 1 GB of resident memory.
   */
  memoryLimit?: string;
  /**
   * How long to wait (ms) while another process holds the database's write lock, e.g. another
   * `load` (default 60 s); then the load fails naming the holder.
   */
  lockTimeoutMs?: number;
  /** This command as recorded for a load that waits on our lock (default 'airt-report load'). */
  command?: string;
  /**
   * Verifications of some of `dirs` this process has just made (a scheduled run's verify step), by
   * resolved directory: the load uses them instead of hashing every file again, as long as the
   * manifest on disk is still the one verified. A file changed in between is the same risk as one
   * changed between the load's own hashing and its reading of the file.
   */
  verified?: ReadonlyMap<string, VerifyResult>;
  /**
   * How many of each loaded snapshot's warnings to return (SnapshotLoadResult.firstWarnings), read
   * before the database is closed (default 0).
   */
  warningsShown?: number;
  /**
   * Aborting stops the load at once (the running DuckDB statement is interrupted) or at its next
   * step: the snapshot being loaded is rolled back, the ones committed before it stay, the database
   * is closed as after any failed load (a first load's temp file removed, or published when it
   * holds committed snapshots) and a LoadInterruptedError is thrown. A snapshot counts as done from
   * its commit on: an abort after it never reports it rolled back. A load that has finished (its
   * last snapshot committed, no journal left to load) returns normally.
   */
  signal?: AbortSignal;
}

/** A size DuckDB's memory_limit takes: a number and a unit (B, KB … TB, KiB … TiB). */
const MEMORY_LIMIT = /^\d+(\.\d+)?\s*([KMGT]i?)?B$/i;

/**
 * The memory limit, checked before any database is touched: DuckDB's own refusal names neither the
 * value nor the option ("Failed to set config").
 */
function checkedMemoryLimit(limit: string): string {
  if (MEMORY_LIMIT.test(limit.trim())) return limit.trim();
  throw new InvalidOptionError(
    'memoryLimit',
    (name) => `${name('memoryLimit')} ${JSON.stringify(limit)} is not a size; give one such as 256MB or 1GB.`,
  );
}

/** One snapshot's load: loaded or already present, with its row counts. */
export interface SnapshotLoadResult {
  dir: string;
  snapshotId: string;
  outcome: 'loaded' | 'already_loaded';
  status: 'complete' | 'partial';
  verified: boolean;
  /** Rows per table for this snapshot (empty when already loaded). */
  rows: Record<string, number>;
  warnings: number;
  /** Its first warnings, up to LoadOptions.warningsShown (none when already loaded). */
  firstWarnings: LoadWarningRow[];
}

/** What loadSnapshots did: each snapshot loaded or already present, and the journal's load. */
export interface LoadResult {
  snapshots: SnapshotLoadResult[];
  journal: JournalLoadResult | null;
}

/** A snapshot that failed verification (without --force), or that clashes with a loaded one. */
export class SnapshotRefusedError extends WordedError {
  override readonly name = 'SnapshotRefusedError';
  constructor(
    message: string | OptionWording,
    readonly problems: readonly VerifyProblem[] = [],
  ) {
    super(typeof message === 'string' ? () => message : message);
  }
}

/**
 * The load was stopped through LoadOptions.signal (the CLI: Ctrl-C, SIGTERM): exits 130/143, saying
 * what stays loaded. Loading the same directories again finishes the load (loaded ones are skipped).
 */
export class LoadInterruptedError extends CliError {
  override readonly name = 'LoadInterruptedError';
  constructor(
    signal: AbortSignal,
    /** Snapshots committed, or found already loaded, before the load stopped. */
    readonly done: readonly SnapshotLoadResult[],
    total: number,
    /** Whether a triage journal was still to load (it is loaded after every snapshot). */
    journal = false,
  ) {
    const loaded = done.filter((s) => s.outcome === 'loaded').length;
    const kept = loaded > 0 ? ` (${loaded} newly loaded, kept)` : '';
    const again = ' Run the same load again to finish it (loaded snapshots are skipped).';
    // Every snapshot done: only the journal can have been in progress (its load is one transaction).
    const rest =
      done.length < total
        ? `what was in progress was rolled back.${again}`
        : journal
          ? `the triage journal was not loaded.${again}`
          : 'nothing else was left to load.';
    super(
      `${interruptionText(signal)} during the load: ${done.length} of ${total} snapshot(s) done${kept}; ${rest}`,
      abortExitCode(signal),
      { cause: signal.reason },
    );
  }
}

/** Flattens verifySnapshot's result into per-file problems. */
function verifyProblems(result: VerifyResult): VerifyProblem[] {
  const problems: VerifyProblem[] = [
    ...result.missing.map((file) => ({ file, message: `${file}: listed in the manifest but missing` })),
    ...result.extra.map((file) => ({ file, message: `${file}: present but not listed in the manifest` })),
    ...result.modified.map((m) => ({
      file: m.path,
      message:
        m.reason === 'not_a_file'
          ? `${m.path}: not a regular file`
          : `${m.path}: sha256/size differ from the manifest`,
    })),
  ];
  if (!result.rootHash.ok)
    problems.push({
      file: MANIFEST_FILE,
      message: `${MANIFEST_FILE}: root_sha256 does not match the listed files`,
    });
  return problems.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

function refuseUnverified(dir: string, problems: readonly VerifyProblem[]): SnapshotRefusedError {
  const shown = problems.slice(0, 10).map((p) => `  ${p.message}`);
  if (problems.length > 10) shown.push(`  … and ${problems.length - 10} more`);
  return new SnapshotRefusedError(
    (name) =>
      `Snapshot ${dir} failed verification, not loaded:\n${shown.join('\n')}\nRe-take the snapshot, or load it anyway with ${name('force')} (it is then marked unverified).`,
    problems,
  );
}

/** Loads each directory in turn (one transaction each), then the journal if given. */
export async function loadSnapshots(
  dbPath: string,
  dirs: readonly string[],
  options: LoadOptions = {},
): Promise<LoadResult> {
  // Each snapshot's result as soon as it commits (or is found loaded): what an interrupted load
  // reports as kept, and what makes a first load's database worth publishing.
  const snapshots: SnapshotLoadResult[] = [];
  try {
    return await loadSnapshotsInto(dbPath, dirs, withStopChecks(options), snapshots);
  } catch (error) {
    if (options.signal?.aborted)
      throw new LoadInterruptedError(options.signal, [...snapshots], dirs.length, Boolean(options.journal));
    throw error;
  }
}

async function loadSnapshotsInto(
  dbPath: string,
  dirs: readonly string[],
  options: LoadOptions,
  snapshots: SnapshotLoadResult[],
): Promise<LoadResult> {
  // Inputs (the journal too) are checked before any database is touched, so a typo or a bad journal
  // leaves nothing behind and commits nothing.
  for (const dir of dirs) await readManifest(path.resolve(dir));
  const journal = options.journal ? await readTriageJournal(options.journal) : null;
  const memoryLimit = checkedMemoryLimit(options.memoryLimit ?? DEFAULT_MEMORY_LIMIT);
  const open = (file: string): Promise<Warehouse> => openWarehouse(file, { memoryLimit });
  options.signal?.throwIfAborted();
  if (dbPath === ':memory:') return loadInto(await open(dbPath), dirs, journal, options, snapshots);
  await removeAbandoned(dbPath);
  if (await needsCreation(dbPath)) {
    const created = await createWarehouseFile(
      dbPath,
      async (temp) => loadInto(await open(temp), dirs, journal, options, snapshots),
      () => snapshots.some((s) => s.outcome === 'loaded'),
    );
    if (created.published && created.result) return created.result;
    // Another load created the database meanwhile: load into it like into any existing database.
    snapshots.length = 0;
  }
  const warehouse = await openWarehouseLocked(dbPath, {
    memoryLimit,
    timeoutMs: options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
    command: options.command ?? 'airt-report load',
    ...(options.now ? { now: options.now } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return loadInto(warehouse, dirs, journal, options, snapshots);
}

/**
 * `options` whose progress events also check LoadOptions.signal: the load's steps report progress
 * often (each table, each batch of trial files), so an abort that finds no DuckDB statement running
 * stops the load at its next step, rolled back like any failure in it. Not once a snapshot is in the
 * database (committed, or found already loaded): it is done, and the next one checks before it starts.
 */
function withStopChecks(options: LoadOptions): LoadOptions {
  const { signal, onProgress } = options;
  if (signal === undefined) return options;
  return {
    ...options,
    onProgress: (event) => {
      onProgress?.(event);
      if (event.type !== 'committed' && event.type !== 'already_loaded') signal.throwIfAborted();
    },
  };
}

/**
 * Runs `work` on the warehouse's connection; an abort of `signal` meanwhile interrupts the DuckDB
 * statement running then (DuckDB drops an interrupt that finds none: the progress checks stop the
 * load instead). Only during `work`: the closing CHECKPOINT must never be interrupted.
 */
async function interruptible<T>(
  warehouse: Warehouse,
  signal: AbortSignal | undefined,
  work: () => Promise<T>,
): Promise<T> {
  if (signal === undefined) return work();
  signal.throwIfAborted();
  const interrupt = (): void => warehouse.conn.interrupt();
  signal.addEventListener('abort', interrupt, { once: true });
  try {
    return await work();
  } finally {
    signal.removeEventListener('abort', interrupt);
  }
}

/** What upgradeWarehouse found and left: the schema version before and after. */
export interface UpgradeResult {
  from: number;
  to: number;
}

/**
 * What every load does first, alone: brings an existing warehouse up to this airt-report's schema
 * (tables migrated and views recreated, in one transaction), loading nothing. For a database the
 * read-only commands refuse as older; a database at this version is left as it is.
 */
export async function upgradeWarehouse(
  dbPath: string,
  options: Pick<LoadOptions, 'lockTimeoutMs' | 'command' | 'now' | 'signal'> = {},
): Promise<UpgradeResult> {
  try {
    return await upgradeOpened(dbPath, options);
  } catch (error) {
    // The upgrade is one transaction: stopped, it is rolled back.
    if (options.signal?.aborted)
      throw new CliError(
        `${interruptionText(options.signal)} during the upgrade: nothing was changed. Run it again to upgrade the database.`,
        abortExitCode(options.signal),
        { cause: options.signal.reason },
      );
    throw error;
  }
}

async function upgradeOpened(
  dbPath: string,
  options: Pick<LoadOptions, 'lockTimeoutMs' | 'command' | 'now' | 'signal'>,
): Promise<UpgradeResult> {
  requireDatabase(dbPath);
  const warehouse = await openWarehouseLocked(dbPath, {
    memoryLimit: DEFAULT_MEMORY_LIMIT,
    timeoutMs: options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
    command: options.command ?? 'airt-report load',
    ...(options.now ? { now: options.now } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  try {
    return await interruptible(warehouse, options.signal, async () => {
      // Refuses a DuckDB file that is not a warehouse: an upgrade never turns one into it.
      const from = await warehouseVersion(warehouse.conn, dbPath);
      return { from, to: await ensureSchema(warehouse.conn, options.now) };
    });
  } finally {
    await warehouse.conn.run('CHECKPOINT').catch(() => undefined);
    warehouse.close();
  }
}

/**
 * Loads into an open warehouse and closes it, checkpointed (a new database's file is then complete
 * on its own). `snapshots` collects each snapshot's result as it commits: the caller may need them
 * when a later snapshot fails, or the load is stopped after a commit.
 */
async function loadInto(
  warehouse: Warehouse,
  dirs: readonly string[],
  journal: ParsedJournal | null,
  options: LoadOptions,
  snapshots: SnapshotLoadResult[],
): Promise<LoadResult> {
  const { signal } = options;
  try {
    return await interruptible(warehouse, signal, async () => {
      await ensureSchema(warehouse.conn, options.now);
      for (const dir of dirs) {
        signal?.throwIfAborted();
        await loadOneSnapshot(warehouse.conn, path.resolve(dir), options, (done) => snapshots.push(done));
      }
      // Stopped after the last snapshot's commit: the load is stopped only if a journal is left to load
      // (else it has finished, and returns as such: the caller sees the signal aborted).
      if (journal) signal?.throwIfAborted();
      const journalResult = journal ? await loadJournalInto(warehouse.conn, journal) : null;
      return { snapshots, journal: journalResult };
    });
  } finally {
    await warehouse.conn.run('CHECKPOINT').catch(() => undefined);
    warehouse.close();
  }
}

/** Told a snapshot's result once it is in the database: committed now, or found already loaded. */
type Settled = (result: SnapshotLoadResult) => void;

async function loadOneSnapshot(
  conn: DuckDBConnection,
  dir: string,
  options: LoadOptions,
  settled: Settled,
): Promise<void> {
  // Trial files DuckDB refuses although they are valid JSON (lone surrogates) are rewritten and the
  // snapshot loaded again: the fast path stays as it is for every other file. Bounded: each retry
  // repairs at least one more file, or the error stands.
  // The whole-file fast path runs on two threads first; should that run out of memory, the snapshot is
  // loaded again on one, which needs far less (trial-loader.ts). Bounded: once.
  const repairs = new TrialFileRepairs();
  let wholeFileThreads = WHOLE_FILE_THREADS;
  let inDatabase = false;
  const settle: Settled = (result) => {
    inDatabase = true;
    settled(result);
  };
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await stageVerifyAndLoad(conn, dir, options, repairs, attempt === 0, wholeFileThreads, settle);
        return;
      } catch (error) {
        // An interrupted statement is no reason to load again, nor is a failure after the commit.
        options.signal?.throwIfAborted();
        if (inDatabase) throw error;
        if (error instanceof LoadMemoryError && wholeFileThreads > 1) {
          wholeFileThreads = 1;
          options.onProgress?.({ type: 'retry_one_thread', dir, message: error.message });
          continue;
        }
        if (!(error instanceof UnreadableTrialFileError)) throw error;
        if (!(await repairTrialFiles(dir, error.relPath, repairs, attempt === 0))) throw error;
      }
    }
  } finally {
    await repairs.remove();
  }
}

/**
 * Repairs the file DuckDB refused; on the first refusal, every other trial file holding a lone
 * surrogate too (one retry instead of one per file). False when the refused file cannot be repaired.
 */
async function repairTrialFiles(
  dir: string,
  refused: string,
  repairs: TrialFileRepairs,
  scanAll: boolean,
): Promise<boolean> {
  if (!(await repairs.repair(resolveInside(dir, refused), refused))) return false;
  if (scanAll) {
    const manifest = await readManifest(dir);
    for (const file of manifest.files.filter((f) => f.kind === 'trials' && f.path !== refused)) {
      const full = resolveInside(dir, file.path);
      if ((await stat(full).catch(() => null))?.isFile()) await repairs.repair(full, file.path);
    }
  }
  return true;
}

async function stageVerifyAndLoad(
  conn: DuckDBConnection,
  dir: string,
  options: LoadOptions,
  repairs: TrialFileRepairs,
  firstAttempt: boolean,
  wholeFileThreads: number,
  settle: Settled,
): Promise<void> {
  // Staging the trials (DuckDB threads) overlaps with hashing the files (verify) when the snapshot is
  // new: optimistically, as if every file verifies. Nothing is written until verification passed;
  // if it did not, the stage is rebuilt from the files that did.
  const listed = await readManifest(dir);
  const given = handedOver(listed, dir, options);
  // Read before the stage starts: the stage runs on this connection while the files are hashed. Files
  // this warehouse hashed before and untouched since are not read again (verified-files.ts), nor trial
  // files whose content it already stores (it never reads their bytes: trial-content.ts). Hashing
  // stops at an abort like the rest of the load (LoadInterruptedError, rolled back).
  const verifyOptions: VerifyOptions = given
    ? {}
    : {
        known: await readKnownDigests(conn),
        held: await heldTrialFiles(conn, listed),
        signal: options.signal,
      };
  const verify = async (): Promise<VerifyResult> => given ?? verifySnapshot(dir, verifyOptions);
  const optimistic = firstAttempt && (await loadedRoot(conn, listed.snapshot_id)) === undefined;
  const staging = optimistic
    ? new SnapshotTrials(conn, dir, listed, new Set(listed.files.map((f) => f.path)), repairs).stage().then(
        () => null,
        (error: unknown) => ({ error }),
      )
    : Promise.resolve({ error: null, notStaged: true });
  try {
    await verifyAndLoad(conn, dir, options, staging, repairs, verify, wholeFileThreads, settle);
  } finally {
    await staging;
    // Stopped, the load ends here and closing the connection drops the temp tables: an interrupted
    // DROP must not turn a snapshot committed just before into a failed one.
    await stoppable(options.signal, () => dropTrialStage(conn), undefined);
  }
}

/**
 * `work` done after a commit, or on the way out: an abort interrupting it (the load is stopping)
 * gives `stopped` instead of an error, so what was committed stays reported as committed.
 */
async function stoppable<T>(signal: AbortSignal | undefined, work: () => Promise<T>, stopped: T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (signal?.aborted) return stopped;
    throw error;
  }
}

/** The snapshot's root hash in the database, or undefined when it is not loaded. */
async function loadedRoot(conn: DuckDBConnection, snapshotId: string): Promise<string | undefined> {
  const existing = await conn.runAndReadAll('SELECT root_sha256 FROM snapshots WHERE snapshot_id = $1', [
    snapshotId,
  ]);
  const root = existing.getRows()[0]?.[0];
  return root === undefined ? undefined : String(root);
}

async function verifyAndLoad(
  conn: DuckDBConnection,
  dir: string,
  options: LoadOptions,
  staging: Promise<{ error: unknown; notStaged?: boolean } | null>,
  repairs: TrialFileRepairs,
  verify: () => Promise<VerifyResult>,
  wholeFileThreads: number,
  settle: Settled,
): Promise<void> {
  const progress = options.onProgress ?? (() => undefined);
  const verification = await verify();
  const stageFailure = await staging;
  const { manifest } = verification;
  const snapshotId = manifest.snapshot_id;
  progress({ type: 'verify', dir, snapshotId, files: manifest.files.length, reused: verification.reused });
  const problems = verifyProblems(verification);
  if (!verification.ok && !options.force) throw refuseUnverified(dir, problems);
  const manifestSha256 = createHash('sha256')
    .update(await readFile(path.join(dir, MANIFEST_FILE)))
    .digest('hex');
  const damaged = new Set([...verification.missing, ...verification.modified.map((m) => m.path)]);
  // The root hash binds the manifest's records/issues to the bytes: without it nothing is vouched for.
  const verifiedFiles = new Set(
    verification.rootHash.ok ? manifest.files.map((f) => f.path).filter((p) => !damaged.has(p)) : [],
  );

  const existingRoot = await loadedRoot(conn, snapshotId);
  const base = { dir, snapshotId, status: manifest.status, verified: verification.ok };
  if (existingRoot !== undefined) {
    if (existingRoot === manifest.root_sha256) {
      settle({ ...base, outcome: 'already_loaded', rows: {}, warnings: 0, firstWarnings: [] });
      progress({ type: 'already_loaded', dir, snapshotId });
      return;
    }
    throw new SnapshotRefusedError(
      `Snapshot ${snapshotId} is already loaded with root hash ${existingRoot}, but ${dir} has root hash ${manifest.root_sha256}: two different snapshots share one id. Nothing was loaded; load it into another database.`,
    );
  }

  const trials = new SnapshotTrials(conn, dir, manifest, verifiedFiles, repairs, wholeFileThreads);
  const load = new SnapshotLoad(conn, dir, manifest, verifiedFiles, progress, trials);
  if (verification.ok && stageFailure && !stageFailure.notStaged) throw stageFailure.error;
  if (!verification.ok || stageFailure) {
    // The optimistic stage assumed every file verifies: rebuild it from the files that did.
    await dropTrialStage(conn);
    await trials.stage();
  }
  // The stage is outside the transaction (a temp table only): see trial-loader.ts for why.
  const { warnings, rows } = await inTransaction(conn, async () => {
    const loaded = await load.run(
      manifestSha256,
      problems,
      Boolean(options.force),
      (options.now ?? (() => new Date()))(),
    );
    // Committed with the load: a rolled-back load records nothing.
    await recordVerified(conn, verification.hashed);
    // Loaded again after retention pruned it: in the database as any other snapshot from now on.
    await forgetPruned(conn, snapshotId);
    return loaded;
  });
  // Done from here on, whatever stops the load now: an interrupted load counts it as kept (and a
  // first load's database holding it is published).
  const loaded: SnapshotLoadResult = { ...base, outcome: 'loaded', rows, warnings, firstWarnings: [] };
  settle(loaded);
  progress({ type: 'committed', snapshotId });
  // Read after the commit: stopped meanwhile, the load shows none of them (all are in load_warnings).
  if (warnings > 0)
    loaded.firstWarnings = await stoppable(
      options.signal,
      () => firstLoadWarnings(conn, snapshotId, options.warningsShown ?? 0),
      [],
    );
}

/**
 * The caller's verification of `dir` (LoadOptions.verified), if `onDisk` (the manifest as read now) is
 * still the one it verified.
 */
function handedOver(onDisk: Manifest, dir: string, options: LoadOptions): VerifyResult | undefined {
  const given = handedOverVerification(options.verified?.get(dir), onDisk);
  // Every digest is the caller's: the load reads none of the files to verify them.
  return given === undefined ? undefined : { ...given, reused: given.files };
}
