/**
 * Exports the warehouse as Parquet for a distributed engine (Spark, Trino, Athena, DuckDB, pyarrow),
 * incrementally: a nightly export into the same directory only adds the new snapshots' partitions.
 *
 *   DIR/<table>/snapshot_id=<id>/data_0.parquet    every relation of the table contract, one partition
 *                                                  per snapshot; written once, never touched again
 *   DIR/<table>/snapshot_id=journal/data_0.parquet rows without a snapshot (triage journal findings and
 *                                                  review events), rewritten by every export
 *   DIR/<view>/data_0.parquet                      "current" views, rewritten by every export: the
 *                                                  metrics layer's metric_* figures, latest_findings
 *                                                  (one row per finding), latest_project_snapshots
 *                                                  (which snapshot is each project's newest) and
 *                                                  latest_analytics_exclusions
 *   DIR/_airt_export.json                          marks the directory as an export (format, time of
 *                                                  the last complete one), written first
 *   DIR/.airt-export.lock                          held while an export writes into DIR (its pid): a
 *                                                  second export refuses; a killed one's is taken over
 *
 * Hive layout: the partition column `snapshot_id` is in the path, not in the files, as Spark and Trino
 * expect. Snappy compression: Parquet's common default, which every engine and pure-JS readers decode. Timestamps are Parquet TIMESTAMP (UTC); trials.timestamp, text in the API, is exported typed
 * (NULL when it does not parse) with the original text in `timestamp_text`.
 *
 * Every partition and current view of an export is first written into one hidden staging directory
 * (DIR/.export.tmp-<pid>-<random>/), and only once all of them are written are they renamed into
 * place (publishing: renames only, quick). So a reader never sees half a partition, and an export
 * stopped before publishing (Ctrl-C, SIGTERM through the abort signal; any failure) removes its
 * staging directory and leaves DIR as it was: the earlier export untouched, or no directory at all.
 * Publishing is not stopped by the signal; should it fail part-way (a rename refused), the export is
 * partly published and says so: the next export into DIR completes it. Each directory is renamed to a
 * temp name beside its place first, so a table directory that is a link to another file system
 * (EXDEV) is copied there instead, and only renamed into place once whole.
 * A partition that already exists is kept; the next export removes the staging and temp directories
 * a killed one left.
 * A snapshot's rows never change once loaded, so its partitions stay right; what does change (the
 * newest snapshot per project and its figures) is in the rewritten current views.
 */
import { randomBytes } from 'node:crypto';
import { cp, link, mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isProcessAlive } from '../process-alive.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import { abortExitCode, CliError, interruptionText, WordedError, wordsFlags } from '../errors.js';
import { checkOutputDirectory } from '../output-file.js';
import { openWarehouse, requireDatabase, scalarNumber } from './db.js';
import { checkSchema } from './ddl.js';
import { narrowLatestMetricViews } from './narrow-latest.js';
import { METRIC_VIEW_NAMES } from './metric-views.js';
import { RELATIONS, type TableDef } from './schema.js';
import { quoteIdent, quoteLiteral } from './sql.js';

/** One exported table: rows and the Parquet partitions written. */
export interface ExportedTable {
  table: string;
  rows: number;
  /** Partition directories written by this export (a current view: its own directory). */
  partitions: string[];
  /** Partitions already in the directory, kept as they are. */
  kept: number;
}

/** Where exportParquet wrote and what: one entry per table. */
export interface ExportResult {
  dir: string;
  tables: ExportedTable[];
}

/** How exportParquet runs: its clock, the signal that stops it, and what it does while publishing. */
export interface ExportOptions {
  /** Clock for the marker's exported_at (tests pin it). */
  now?: () => Date;
  /**
   * Aborting stops the export before it publishes anything (the running DuckDB statement is
   * interrupted): its staging directory is removed, the output directory is left as it was, and an
   * ExportInterruptedError is thrown. Once publishing has begun it is completed (renames only).
   */
  signal?: AbortSignal;
  /**
   * Called as publishing begins; the function it returns is called once publishing has ended, however
   * it ended. The CLI holds off a second Ctrl-C/SIGTERM meanwhile, so the renames are finished.
   */
  whilePublishing?: () => () => void;
}

/**
 * The export was stopped (ExportOptions.signal) before it published anything: exits 130/143. The
 * output directory is as it was (an earlier export in it untouched; a directory the export created
 * removed again).
 */
export class ExportInterruptedError extends CliError {
  override readonly name = 'ExportInterruptedError';
  constructor(signal: AbortSignal, dir: string, hadExport: boolean) {
    super(
      `${interruptionText(signal)} before the export was finished; nothing of it was kept in ${dir}` +
        `${hadExport ? ' (the earlier export there is as it was)' : ''}. Run the export again to write it.`,
      abortExitCode(signal),
      { cause: signal.reason },
    );
  }
}

/**
 * Publishing failed (a rename refused), once all was written: when it had already put some of the
 * export's partitions and views in place (`partly`), the others are not, and the directory is not
 * marked as exported now. The next export into the directory completes it (what is in place is kept,
 * the rest written again).
 */
export class ExportPublishError extends CliError {
  override readonly name = 'ExportPublishError';
  constructor(dir: string, partly: boolean, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      partly
        ? `The export into ${dir} was only partly published (${reason}): some of its partitions and views are in place, the others not. Run the export again to complete it.`
        : `The export into ${dir} could not be published (${reason}); none of its partitions or views was put in place. Run the export again to write it.`,
      undefined,
      { cause },
    );
  }
}

/** Another export, still running, is writing into the directory (its lock file names it). */
export class ExportBusyError extends CliError {
  override readonly name = 'ExportBusyError';
  constructor(
    readonly dir: string,
    readonly pid: number | null,
  ) {
    super(
      `Another export${pid === null ? '' : ` (pid ${pid})`} is writing into ${dir}; nothing was written. ` +
        'Run this one again once it has finished.',
    );
  }
}

const MARKER = '_airt_export.json';
/** Held by the export writing into the directory: `<pid> <token>`. */
const LOCK = '.airt-export.lock';
const FORMAT = 'airt-parquet/2';
/** The partition of rows that belong to no snapshot. */
export const JOURNAL_PARTITION = 'journal';
/** Views exported whole, rewritten every time (small, and their rows change as snapshots arrive). */
const CURRENT_VIEWS = [
  'latest_project_snapshots',
  'latest_findings',
  'latest_analytics_exclusions',
  ...METRIC_VIEW_NAMES,
];
/** Text columns of the API that hold timestamps: exported typed, their text kept beside them. */
const TEXT_TIMESTAMPS: Readonly<Record<string, readonly string[]>> = { trials: ['timestamp'] };

/**
 * Row order inside a partition (deterministic files): the trial relations by their keys (sorting a
 * million trials by every column would cost more than writing them), every other relation by all columns.
 */
const ORDER_KEYS: Readonly<Record<string, string>> = {
  trials: 'project_key, assessment_id, trial_ordinal',
  trial_tool_calls: 'project_key, assessment_id, trial_ordinal, call_ordinal',
  message_parts: 'project_key, assessment_id, trial_ordinal, role, part_ordinal',
};

const partitionName = (key: string): string => `snapshot_id=${key}`;
const tempName = (name: string): string => `.${name}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;

/** What prepareTarget found and did. */
interface PreparedTarget {
  /** It made the directory. */
  created: boolean;
  /** It wrote the marker (of an export not finished yet). */
  marked: boolean;
  /** The directory holds an earlier export that finished (its marker has a time). */
  hadExport: boolean;
  /** Lets go of the directory's lock. */
  unlock: () => Promise<void>;
}

const errnoCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

/**
 * A new directory, an empty one, or an earlier export (its marker): anything else is refused. Locked
 * for this export: another export writing into it is refused (ExportBusyError) before anything is
 * touched, so two exports never both think they marked the directory.
 */
async function prepareTarget(dir: string): Promise<PreparedTarget> {
  await checkOutputDirectory(dir);
  // Refused before its lock is written into it; checked again once locked.
  checkExportDirectory(
    dir,
    await readdir(dir).catch((error: unknown) => {
      if (errnoCode(error) === 'ENOENT') return [];
      throw error;
    }),
  );
  const created = await mkdir(dir).then(
    () => true,
    (error: unknown) => {
      if (errnoCode(error) === 'EEXIST') return false;
      throw error;
    },
  );
  const unlock = await lockDirectory(dir).catch(async (error: unknown) => {
    // Only when empty: another export's directory holds its lock.
    if (created) await rmdir(dir).catch(() => undefined);
    throw error;
  });
  try {
    // Read once locked: another export may have written it until now.
    const entries = await readdir(dir);
    checkExportDirectory(dir, entries);
    // The staging and current-view temp directories of exports killed before they were done.
    await removeAbandoned(dir, entries);
    const earlier = entries.includes(MARKER) ? await readMarker(dir) : undefined;
    // Marked before anything is written: an export killed halfway is continued by the next one.
    const marked = earlier === undefined;
    if (marked) await writeMarker(dir, null);
    // A marker without a time is a killed export's: there is no earlier export to speak of.
    return { created, marked, hadExport: typeof earlier?.exported_at === 'string', unlock };
  } catch (error) {
    await unlock();
    if (created) await rmdir(dir).catch(() => undefined);
    throw error;
  }
}

/** Refuses a directory that is neither empty (but for export locks) nor an earlier export. */
function checkExportDirectory(dir: string, entries: readonly string[]): void {
  const content = entries.filter((name) => !name.startsWith(LOCK));
  if (content.length > 0 && !content.includes(MARKER))
    throw new WordedError(
      (name) =>
        `${dir} is not empty and holds no earlier export (${MARKER}); export writes a new directory or adds to its own. Choose another ${wordsFlags(name) ? name('out') : 'directory'} or remove it.`,
    );
}

/**
 * Puts the directory back as prepareTarget found it (nothing was published into it) and unlocks it.
 * The marker goes only if it is still the unfinished one this export wrote.
 */
async function unprepareTarget(dir: string, prepared: PreparedTarget): Promise<void> {
  if (prepared.marked && (await readMarker(dir))?.exported_at === null)
    await rm(path.join(dir, MARKER), { force: true });
  await prepared.unlock();
  // Only when empty: whatever someone else put there meanwhile stays.
  if (prepared.created) await rmdir(dir).catch(() => undefined);
}

async function writeMarker(dir: string, exportedAt: string | null): Promise<void> {
  await writeFile(
    path.join(dir, MARKER),
    `${JSON.stringify({ format: FORMAT, exported_at: exportedAt }, null, 2)}\n`,
  );
}

/** The marker's content, or undefined when there is none; one that does not parse has no time. */
async function readMarker(dir: string): Promise<{ exported_at?: unknown } | undefined> {
  let text: string;
  try {
    text = await readFile(path.join(dir, MARKER), 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? parsed : {};
  } catch {
    return {};
  }
}

/**
 * Takes the directory's lock (LOCK, created only if absent, holding `<pid> <token>`) and returns the
 * function that lets go of it. A lock whose process is gone (a killed export) is taken over; one whose
 * process runs — in this process too — means another export is writing: ExportBusyError.
 */
async function lockDirectory(dir: string): Promise<() => Promise<void>> {
  const lock = path.join(dir, LOCK);
  const content = `${process.pid} ${randomBytes(8).toString('hex')}\n`;
  // Written whole under a temp name, then linked into place (which fails if the lock exists): the
  // lock is never seen without its pid.
  const written = path.join(dir, tempName(LOCK.slice(1)));
  await writeFile(written, content, { flag: 'wx' });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await link(written, lock);
        return () => unlockDirectory(lock, content);
      } catch (error) {
        if (errnoCode(error) !== 'EEXIST') throw error;
      }
      const held = await readFile(lock, 'utf8').catch((error: unknown) => {
        if (errnoCode(error) === 'ENOENT') return null;
        throw error;
      });
      // Let go of meanwhile: try again.
      if (held === null) continue;
      const pid = Number(/^(\d+) /.exec(held)?.[1]);
      if (Number.isInteger(pid) && pid > 0 && isProcessAlive(pid)) throw new ExportBusyError(dir, pid);
      await takeOverStaleLock(dir, lock, held);
    }
    throw new ExportBusyError(dir, null);
  } finally {
    await rm(written, { force: true });
  }
}

/**
 * Removes a killed export's lock (`held`, as read): moved aside first, so of two exports taking it
 * over at once only one removes it; a lock moved aside that is no longer `held` (another export has
 * just taken it) is put back.
 */
async function takeOverStaleLock(dir: string, lock: string, held: string): Promise<void> {
  const aside = path.join(dir, tempName(`${LOCK.slice(1)}.stale`));
  try {
    await rename(lock, aside);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return;
    throw error;
  }
  try {
    if ((await readFile(aside, 'utf8')) !== held) await link(aside, lock).catch(() => undefined);
  } finally {
    await rm(aside, { force: true });
  }
}

/**
 * Lets go of the lock, if it is still this export's. Never fails the export: a lock left behind is
 * taken over once this process is gone.
 */
async function unlockDirectory(lock: string, content: string): Promise<void> {
  const held = await readFile(lock, 'utf8').catch(() => null);
  if (held === content) await rm(lock, { force: true }).catch(() => undefined);
}

/** Temp directories of exports whose process is gone (killed): removed, never a live export's. */
async function removeAbandoned(dir: string, entries: readonly string[]): Promise<void> {
  for (const name of entries) {
    const pid = Number(/\.tmp-(\d+)-[0-9a-f]+(?:\.old)?$/.exec(name)?.[1]);
    if (!name.startsWith('.') || !Number.isInteger(pid) || pid <= 0 || isProcessAlive(pid)) continue;
    await rm(path.join(dir, name), { recursive: true, force: true });
  }
}

/** The SELECT list of a relation as exported: snapshot_id left out (it is the partition), timestamps typed. */
function exportColumns(table: TableDef): string {
  const typed = TEXT_TIMESTAMPS[table.name] ?? [];
  return table.columns
    .filter((c) => c.name !== 'snapshot_id')
    .flatMap((c) => {
      const name = quoteIdent(c.name);
      if (!typed.includes(c.name)) return [name];
      return [`TRY_CAST(${name} AS TIMESTAMPTZ) AS ${name}`, `${name} AS ${quoteIdent(`${c.name}_text`)}`];
    })
    .join(', ');
}

/** A directory written into the staging directory, and the place publishing renames it to. */
interface Staged {
  staged: string;
  final: string;
}

/** Writes `select` as `staged`/data_0.parquet, checking `signal` first (a COPY may take long). */
async function writeStaged(
  conn: DuckDBConnection,
  select: string,
  staged: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  signal?.throwIfAborted();
  await mkdir(staged, { recursive: true });
  await conn.run(
    `COPY (${select}) TO ${quoteLiteral(path.join(staged, 'data_0.parquet'))} (FORMAT parquet, COMPRESSION snappy)`,
  );
}

/** The file operations publishDirectory uses; injectable for tests. */
export interface PublishOps {
  rename: (from: string, to: string) => Promise<void>;
  cp: (from: string, to: string, options: { recursive: true }) => Promise<void>;
}

const FS_OPS: PublishOps = { rename, cp };

/**
 * Moves a staged directory into place, replacing what is there. It goes to a temp name beside its
 * place first: from there it is on the place's file system, and a table directory that links to
 * another one (rename: EXDEV) gets a copy, renamed into place only once whole. Should the last rename
 * fail, what was in place is put back.
 */
export async function publishDirectory({ staged, final }: Staged, ops: PublishOps = FS_OPS): Promise<void> {
  const parent = path.dirname(final);
  await mkdir(parent, { recursive: true });
  const beside = path.join(parent, tempName(path.basename(final)));
  try {
    await ops.rename(staged, beside);
  } catch (error) {
    if (errnoCode(error) !== 'EXDEV') throw error;
    await ops.cp(staged, beside, { recursive: true }).catch(async (copyError: unknown) => {
      await rm(beside, { recursive: true, force: true });
      throw copyError;
    });
  }
  try {
    // A directory cannot be renamed over a non-empty one: the old one steps aside first.
    const old = (await stat(final).catch(() => null)) ? `${beside}.old` : null;
    if (old) await ops.rename(final, old);
    try {
      await ops.rename(beside, final);
    } catch (error) {
      // Put back: left under its temp name, the next export would take it for a killed one's.
      if (old) await ops.rename(old, final).catch(() => undefined);
      throw error;
    }
    if (old) await rm(old, { recursive: true, force: true });
  } catch (error) {
    await rm(beside, { recursive: true, force: true });
    throw error;
  }
}

/**
 * A current view's SELECT: sums DuckDB types HUGEINT are written as BIGINT (Parquet has no 128-bit
 * integer; DuckDB would write DOUBLE, and a count would read as a float in Spark or Trino).
 */
async function currentSelect(conn: DuckDBConnection, view: string): Promise<string> {
  const described = await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${quoteIdent(view)}`);
  const columns = described.getRows().map(([name, type]) => {
    const column = quoteIdent(String(name));
    return String(type) === 'HUGEINT' ? `CAST(${column} AS BIGINT) AS ${column}` : column;
  });
  return `SELECT ${columns.join(', ')} FROM ${quoteIdent(view)} ORDER BY ALL`;
}

/** One relation staged: its summary, the directories to publish, and whether its journal partition goes. */
interface StagedRelation {
  exported: ExportedTable;
  staged: Staged[];
  dropJournal: boolean;
}

/** One relation: the partitions of snapshots not exported yet, and the journal partition again. */
async function stageRelation(
  conn: DuckDBConnection,
  table: TableDef,
  target: string,
  staging: string,
  signal: AbortSignal | undefined,
): Promise<StagedRelation> {
  const name = quoteIdent(table.name);
  const rows = await scalarNumber(conn, `SELECT count(*) FROM ${name}`);
  const dir = path.join(target, table.name);
  const entries = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  // Temp directories a killed export left beside the partitions (an old one stepping aside while
  // publishing; older versions wrote every partition beside its place).
  await removeAbandoned(dir, entries);
  const existing = new Set(entries);
  const keys = (
    await conn.runAndReadAll(
      `SELECT DISTINCT coalesce(snapshot_id, '${JOURNAL_PARTITION}') FROM ${name} ORDER BY 1`,
    )
  )
    .getRows()
    .map(([key]) => String(key));
  const written: string[] = [];
  const staged: Staged[] = [];
  let kept = 0;
  for (const key of keys) {
    const partition = partitionName(key);
    if (key !== JOURNAL_PARTITION && existing.has(partition)) {
      kept++;
      continue;
    }
    const where = key === JOURNAL_PARTITION ? 'snapshot_id IS NULL' : `snapshot_id = ${quoteLiteral(key)}`;
    const into = { staged: path.join(staging, table.name, partition), final: path.join(dir, partition) };
    await writeStaged(
      conn,
      `SELECT ${exportColumns(table)} FROM ${name} WHERE ${where} ORDER BY ${ORDER_KEYS[table.name] ?? 'ALL'}`,
      into.staged,
      signal,
    );
    staged.push(into);
    written.push(partition);
  }
  // A journal partition whose rows are gone (none left without a snapshot) goes too.
  const dropJournal = !keys.includes(JOURNAL_PARTITION) && existing.has(partitionName(JOURNAL_PARTITION));
  return { exported: { table: table.name, rows, partitions: written, kept }, staged, dropJournal };
}

/**
 * Exports the warehouse into `outDir` (read-only on the database): a new or empty directory, or one
 * an earlier export wrote, which gets the new partitions (see the module comment).
 */
export async function exportParquet(
  dbPath: string,
  outDir: string,
  { now = () => new Date(), signal, whilePublishing }: ExportOptions = {},
): Promise<ExportResult> {
  const target = path.resolve(outDir);
  requireDatabase(dbPath);
  const warehouse = await openWarehouse(dbPath, { readOnly: true });
  // Interrupts the DuckDB statement running when the signal comes (DuckDB drops an interrupt that
  // finds none: the checks between statements stop the export then).
  const interrupt = (): void => warehouse.conn.interrupt();
  signal?.addEventListener('abort', interrupt, { once: true });
  let hadExport = false;
  // Once the renames into place begin, a failure is no longer "nothing was kept": whether any of them
  // changed the directory yet.
  const publishing = { begun: false, changed: false };
  try {
    await checkSchema(warehouse.conn, dbPath);
    // latest_findings reads latest_metric_findings.
    await narrowLatestMetricViews(warehouse.conn);
    signal?.throwIfAborted();
    const prepared = await prepareTarget(target);
    hadExport = prepared.hadExport;
    const staging = path.join(target, tempName('export'));
    const tables: ExportedTable[] = [];
    const relations: StagedRelation[] = [];
    const views: Staged[] = [];
    try {
      await mkdir(staging);
      for (const table of RELATIONS) {
        const relation = await stageRelation(warehouse.conn, table, target, staging, signal);
        relations.push(relation);
        tables.push(relation.exported);
      }
      for (const view of CURRENT_VIEWS) {
        signal?.throwIfAborted();
        const rows = await scalarNumber(warehouse.conn, `SELECT count(*) FROM ${quoteIdent(view)}`);
        const into = { staged: path.join(staging, view), final: path.join(target, view) };
        await writeStaged(warehouse.conn, await currentSelect(warehouse.conn, view), into.staged, signal);
        views.push(into);
        tables.push({ table: view, rows, partitions: [view], kept: 0 });
      }
      signal?.throwIfAborted();
    } catch (error) {
      try {
        await rm(staging, { recursive: true, force: true });
      } finally {
        await unprepareTarget(target, prepared);
      }
      throw error;
    }
    // Publishing: renames only, not stopped half-way by the signal (the caller sees it aborted).
    signal?.removeEventListener('abort', interrupt);
    publishing.begun = true;
    let published: (() => void) | undefined;
    try {
      published = whilePublishing?.();
      for (const relation of relations) {
        const dir = path.join(target, relation.exported.table);
        await mkdir(dir, { recursive: true });
        for (const staged of relation.staged) {
          await publishDirectory(staged);
          publishing.changed = true;
        }
        if (relation.dropJournal) {
          publishing.changed = true;
          await rm(path.join(dir, partitionName(JOURNAL_PARTITION)), { recursive: true, force: true });
        }
      }
      for (const staged of views) {
        await publishDirectory(staged);
        publishing.changed = true;
      }
      await writeMarker(target, now().toISOString());
    } finally {
      await rm(staging, { recursive: true, force: true }).catch(() => undefined);
      await prepared.unlock();
      published?.();
    }
    return { dir: target, tables };
  } catch (error) {
    if (publishing.begun) throw new ExportPublishError(target, publishing.changed, error);
    // Stopped before publishing (publishing itself does not look at the signal).
    if (signal?.aborted) throw new ExportInterruptedError(signal, target, hadExport);
    throw error;
  } finally {
    signal?.removeEventListener('abort', interrupt);
    warehouse.close();
  }
}
