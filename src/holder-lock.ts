/**
 * An exclusive lock on a path that records who holds it, so that a lock left by a killed holder is
 * taken over at once instead of blocking the next run. The run lock and the triage journal's lock.
 *
 *   <target>.lock            the lock: a directory (proper-lockfile), its mtime refreshed while held
 *   <target>.lock.owner      its holder, `{"host","pid"}`, written once the lock is taken
 *   <target>.lock.takeover   held (briefly) by whoever removes a dead holder's lock
 *
 * A holder killed with SIGKILL (or crashing) cannot remove its lock, and proper-lockfile calls it stale
 * only once it has not been refreshed for `staleMs`, so a re-run started at once would be refused. When
 * the recorded holder is a process of this host that no longer exists, the lock is taken over at once.
 * A holder on another host is never judged (its processes cannot be seen from here): only staleness
 * frees its lock, as for a lock without a note (a holder killed before writing it).
 *
 *   lock ─ELOCKED─▶ claim the takeover marker ─▶ holder dead here? ─▶ remove note, then lock ─▶ lock
 *     ▲                                                                                         │
 *     └───────────────── wait a retry interval while a live holder keeps it ◀── still held ────┘
 *
 * Two re-runs started together must not both get the lock. The check and the removal happen while
 * holding the takeover marker, and the note goes before the lock directory: whoever looks next finds
 * no note (or the new holder's) and leaves the lock alone. The note also goes whenever proper-lockfile
 * removes a lock directory itself (release, a stale lock, process exit), so a dead holder's note is
 * never read as the note of a lock taken since. A marker left by a process killed mid-takeover would
 * block every later takeover: one whose recorded process is gone, or older than `MARKER_ABANDONED_MS`
 * (no takeover lasts that long), is moved aside and the takeover goes on.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { link, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import lockfile from 'proper-lockfile';
import { isProcessAlive } from './process-alive.js';

/** Pause between two tries while a live holder keeps the lock. */
const RETRY_INTERVAL_MS = 250;
/** A takeover takes milliseconds: a marker this old was left by a process killed during one. */
const MARKER_ABANDONED_MS = 5_000;

export interface HolderLockOptions {
  /** A lock not refreshed for this long is stale whoever holds it (a holder on another host). */
  staleMs: number;
  /** How long to keep trying while a live holder keeps the lock (ms); 0 tries once. */
  waitMs: number;
  /** Called if the lock is lost while held (its directory removed or replaced). */
  onCompromised: (error: Error) => void;
}

/** Lets go of the lock (its holder note first). */
export type ReleaseHolderLock = () => Promise<void>;

/** Another process keeps the lock: alive, on another host, or not yet recorded. */
export class LockHeldError extends Error {
  override readonly name = 'LockHeldError';
  /** proper-lockfile's code for a held lock, kept for callers that test it. */
  readonly code = 'ELOCKED';
  constructor(
    /** The lock directory, `<target>.lock`. */
    readonly lockDir: string,
    /** The holder's pid as recorded, unless it is a process of this host that is gone. */
    readonly holderPid: number | undefined,
  ) {
    super(`The lock ${lockDir} is held${holderPid === undefined ? '' : ` by process ${holderPid}`}.`);
  }
}

/**
 * Takes the lock on `target` (which need not exist: the lock is the sibling `<target>.lock`), taking
 * over a lock whose recorded holder is a process of this host that no longer exists, and waiting up
 * to `waitMs` for a live holder. Throws LockHeldError when the lock stays held.
 */
export async function takeHolderLock(target: string, options: HolderLockOptions): Promise<ReleaseHolderLock> {
  const file = path.resolve(target);
  const lockDir = `${file}.lock`;
  const retries = Math.ceil(options.waitMs / RETRY_INTERVAL_MS);
  for (let attempt = 0; ; attempt++) {
    const taken =
      (await lockOnce(file, options)) ??
      ((await takeOverDeadHolder(lockDir)) ? await lockOnce(file, options) : undefined);
    if (taken !== undefined) return taken;
    if (attempt >= retries) {
      const holder = await readHolder(ownerFileOf(lockDir));
      throw new LockHeldError(lockDir, holder === undefined || isGoneHere(holder) ? undefined : holder.pid);
    }
    await sleep(RETRY_INTERVAL_MS);
  }
}

interface Holder {
  host: string;
  pid: number;
}

const ownerFileOf = (lockDir: string): string => `${lockDir}.owner`;

/**
 * The fs proper-lockfile works with: whenever it removes a lock directory (release, a stale lock,
 * its exit handler), the holder note beside it goes first, while the lock still stands.
 */
const LOCK_FS = {
  mkdir: fs.mkdir,
  stat: fs.stat,
  utimes: fs.utimes,
  realpath: fs.realpath,
  rmdir(dir: string, callback: (error: NodeJS.ErrnoException | null) => void): void {
    fs.rm(ownerFileOf(dir), { force: true }, () => fs.rmdir(dir, callback));
  },
  rmdirSync(dir: string): void {
    fs.rmSync(ownerFileOf(dir), { force: true });
    fs.rmdirSync(dir);
  },
};

/** One try: the release function, or undefined when another process holds the lock. */
async function lockOnce(file: string, options: HolderLockOptions): Promise<ReleaseHolderLock | undefined> {
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(file, {
      realpath: false,
      stale: options.staleMs,
      retries: 0,
      fs: LOCK_FS,
      onCompromised: options.onCompromised,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') return undefined;
    throw error;
  }
  try {
    await writeFile(ownerFileOf(`${file}.lock`), JSON.stringify({ host: hostname(), pid: process.pid }));
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
  return release;
}

/** The holder recorded beside a lock (or in a takeover marker); undefined when none can be read. */
async function readHolder(file: string): Promise<Holder | undefined> {
  return parseHolder(await readFile(file, 'utf8').catch(() => undefined));
}

function parseHolder(text: string | undefined): Holder | undefined {
  let record: unknown;
  try {
    record = JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
  const { host, pid } = (record ?? {}) as { host?: unknown; pid?: unknown };
  if (typeof host !== 'string' || typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0)
    return undefined;
  return { host, pid };
}

/** A process of this host that no longer exists. */
const isGoneHere = (holder: Holder): boolean => holder.host === hostname() && !isProcessAlive(holder.pid);

/**
 * Removes the lock if its recorded holder is a process of this host that is gone; true when it did.
 * Decided and done while holding the takeover marker; the note goes first, so a contender that
 * looks after this finds no note, or the new holder's, and never removes the new holder's lock.
 */
async function takeOverDeadHolder(lockDir: string): Promise<boolean> {
  const ownerFile = ownerFileOf(lockDir);
  const deadHolder = async (): Promise<boolean> => {
    const holder = await readHolder(ownerFile);
    return holder !== undefined && isGoneHere(holder);
  };
  // Looked at first without the marker: a live holder, the usual case, needs no takeover.
  if (!(await deadHolder())) return false;
  const marker = await claimMarker(`${lockDir}.takeover`);
  if (marker === undefined) return false;
  try {
    if (!(await deadHolder()) || !(await marker.stillOurs())) return false;
    await rm(ownerFile, { force: true });
    await rm(lockDir, { recursive: true, force: true });
    return true;
  } finally {
    await marker.release();
  }
}

interface ClaimedMarker {
  /** False when another contender has moved this marker aside (judging it abandoned) meanwhile. */
  stillOurs: () => Promise<boolean>;
  release: () => Promise<void>;
}

/**
 * Claims the takeover marker, a file holding this process's note and a random token. It is written
 * whole under a temp name and linked into place (which fails if the marker exists), so it is never
 * seen without its note. An abandoned marker is moved aside and the claim tried once more.
 */
async function claimMarker(marker: string): Promise<ClaimedMarker | undefined> {
  const content = JSON.stringify({
    host: hostname(),
    pid: process.pid,
    token: randomBytes(8).toString('hex'),
  });
  const written = `${marker}.${process.pid}-${randomBytes(4).toString('hex')}`;
  await writeFile(written, content, { flag: 'wx' });
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await link(written, marker);
        const stillOurs = async (): Promise<boolean> =>
          (await readFile(marker, 'utf8').catch(() => undefined)) === content;
        return {
          stillOurs,
          release: async () => {
            if (await stillOurs()) await rm(marker, { force: true });
          },
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      if (attempt > 0 || !(await moveAsideIfAbandoned(marker))) return undefined;
    }
    return undefined;
  } finally {
    await rm(written, { force: true });
  }
}

/**
 * Moves an abandoned marker out of the way; true when the marker is gone (moved, or let go of
 * meanwhile). Moved aside first and compared with what was judged, so of two contenders that judged
 * the same marker abandoned, the second cannot remove the fresh marker the first has claimed since:
 * a marker moved aside that is not the one judged is put back.
 */
async function moveAsideIfAbandoned(marker: string): Promise<boolean> {
  let judged: { text: string | undefined; mtimeMs: number };
  try {
    const info = await stat(marker);
    // A directory (an earlier version's marker) has no note: only its age tells.
    const text = info.isFile() ? await readFile(marker, 'utf8') : undefined;
    judged = { text, mtimeMs: info.mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
  const holder = parseHolder(judged.text);
  const abandoned =
    (holder !== undefined && isGoneHere(holder)) || Date.now() - judged.mtimeMs > MARKER_ABANDONED_MS;
  if (!abandoned) return false;
  const aside = `${marker}.abandoned-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await rename(marker, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
  const moved = await stat(aside);
  const movedText = moved.isFile() ? await readFile(aside, 'utf8') : undefined;
  if (movedText === judged.text && moved.mtimeMs === judged.mtimeMs) {
    await rm(aside, { recursive: true, force: true });
    return true;
  }
  // Another contender's fresh marker: put back (link fails if yet another has claimed one since).
  await link(aside, marker).catch(() => undefined);
  await rm(aside, { recursive: true, force: true });
  return false;
}
