/**
 * Waiting for the database's write lock. DuckDB holds an OS lock on a database file opened for
 * writing, and another process's open fails at once ("Could not set lock on file …"). Two `load`s
 * of one database therefore queue here instead: the open is retried until it succeeds or the wait
 * runs out. The kernel drops the lock of a killed process, so a crashed load never blocks the next.
 *
 * While it holds the lock, a load writes a small holder note (`<db>.holder.json`: pid, command,
 * start time) so the process that times out can name who it waited for; DuckDB's own message only
 * gives the pid and executable. A note whose pid differs from the one DuckDB names is stale and
 * ignored.
 *
 * While it waits, a load leaves a waiter note (`<db>.waiting-<pid>`): a reader that keeps the file
 * open between its queries (the viewer, answering pages a user clicks through) lets go when it sees
 * one whose process runs, so constant reading cannot starve a load past its wait.
 */
import { rmSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { WordedError } from '../errors.js';
import { isProcessAlive } from '../process-alive.js';
import { openWarehouse, type OpenOptions, type Warehouse } from './db.js';

/** Default wait for another load's lock. */
export const DEFAULT_LOCK_TIMEOUT_MS = 60_000;
const RETRY_INTERVAL_MS = 100;

const LOCK_CONFLICT = /Could not set lock on file/i;

/** True for DuckDB's refusal to open a file another process holds (for writing, or read-only). */
export function isLockConflict(error: unknown): boolean {
  return LOCK_CONFLICT.test(error instanceof Error ? error.message : String(error));
}

export interface LockHolder {
  pid: number;
  command: string;
  startedAt: string;
}

/** Another process kept the database locked for longer than the wait. */
export class WarehouseLockedError extends WordedError {
  override readonly name = 'WarehouseLockedError';
  constructor(
    readonly dbPath: string,
    readonly waitedMs: number,
    readonly holder: { pid: number | null; executable: string | null; note: LockHolder | null },
  ) {
    const who =
      holder.note !== null
        ? `pid ${holder.note.pid} (${holder.note.command}, started ${holder.note.startedAt})`
        : holder.pid !== null
          ? `pid ${holder.pid}${holder.executable ? ` (${holder.executable})` : ''}`
          : 'another process';
    super(
      (name) =>
        `The database ${dbPath} is locked by ${who}; waited ${Math.round(waitedMs / 1000)} s for it. Nothing was loaded. Try again when it has finished, or wait longer with ${name('lockTimeoutMs')}.`,
    );
  }
}

export const holderFile = (dbPath: string): string => `${dbPath}.holder.json`;

async function readHolder(dbPath: string): Promise<LockHolder | null> {
  try {
    const note = JSON.parse(await readFile(holderFile(dbPath), 'utf8')) as Partial<LockHolder>;
    if (
      typeof note.pid !== 'number' ||
      typeof note.command !== 'string' ||
      typeof note.startedAt !== 'string'
    )
      return null;
    return { pid: note.pid, command: note.command, startedAt: note.startedAt };
  } catch {
    return null;
  }
}

function lockedError(dbPath: string, waitedMs: number, message: string, note: LockHolder | null) {
  const match = /held in (.+?) \(PID (\d+)\)/.exec(message);
  const pid = match?.[2] === undefined ? null : Number(match[2]);
  return new WarehouseLockedError(dbPath, waitedMs, {
    pid,
    executable: match?.[1] ?? null,
    note: note !== null && (pid === null || note.pid === pid) ? note : null,
  });
}

/** Waits `ms`, or less when `signal` is aborted meanwhile (the caller checks it). */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

export interface LockedOpenOptions extends OpenOptions {
  /** How long to wait for another process's lock (ms); 0 fails at once. */
  timeoutMs: number;
  /** The command recorded in the holder note. */
  command: string;
  now?: () => Date;
  /** Aborting stops the wait (its waiter note removed) and rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Opens `dbPath` for writing, waiting (bounded) while another process holds it, and records this
 * process as the holder until close().
 */
export async function openWarehouseLocked(dbPath: string, options: LockedOpenOptions): Promise<Warehouse> {
  const { timeoutMs, command, now = () => new Date(), signal, ...open } = options;
  const started = Date.now();
  let waiting = false;
  try {
    for (;;) {
      signal?.throwIfAborted();
      try {
        const warehouse = await openWarehouse(dbPath, open);
        return await withHolderNote(warehouse, dbPath, command, now);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (!LOCK_CONFLICT.test(message)) throw error;
        const waited = Date.now() - started;
        if (waited >= timeoutMs) throw lockedError(dbPath, waited, message, await readHolder(dbPath));
        if (!waiting) {
          waiting = true;
          // Informative, like the holder note: without it a reader just keeps its usual turns.
          await writeFile(waiterFile(dbPath, process.pid), `${command}\n`).catch(() => undefined);
        }
        await sleep(Math.min(RETRY_INTERVAL_MS, timeoutMs - waited), signal);
      }
    }
  } finally {
    if (waiting) await rm(waiterFile(dbPath, process.pid), { force: true });
  }
}

const WAITER_INFIX = '.waiting-';
const waiterFile = (dbPath: string, pid: number): string => `${dbPath}${WAITER_INFIX}${pid}`;

/**
 * True when a live process waits for the database's write lock (its waiter note). Notes of processes
 * that no longer run (a killed load) are ignored.
 */
export async function writerWaiting(dbPath: string): Promise<boolean> {
  const prefix = `${path.basename(dbPath)}${WAITER_INFIX}`;
  const names = await readdir(path.dirname(dbPath)).catch(() => [] as string[]);
  return names.some((name) => {
    if (!name.startsWith(prefix)) return false;
    const pid = Number(name.slice(prefix.length));
    return Number.isSafeInteger(pid) && pid > 0 && isProcessAlive(pid);
  });
}

async function withHolderNote(
  warehouse: Warehouse,
  dbPath: string,
  command: string,
  now: () => Date,
): Promise<Warehouse> {
  const note: LockHolder = { pid: process.pid, command, startedAt: now().toISOString() };
  // Informative only: a note that cannot be written (read-only directory) does not stop the load.
  await writeFile(holderFile(dbPath), `${JSON.stringify(note)}\n`).catch(() => undefined);
  return {
    ...warehouse,
    close() {
      // Removed while the lock is still ours: after it, the note may already be the next holder's.
      rmSync(holderFile(dbPath), { force: true });
      warehouse.close();
    },
  };
}
