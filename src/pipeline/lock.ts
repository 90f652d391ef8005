/**
 * Run locks. Two runs on the same database (or the same workspace's snapshot directory, which
 * retention prunes) are serialized; runs on different databases and workspaces proceed side by side.
 *
 * Each is a holder lock (src/holder-lock.ts): a `<path>.lock` directory whose mtime is refreshed while
 * the run lives, with the run's host and pid beside it. A lock left by a killed run of this host is
 * taken over at once; one whose holder cannot be judged (another host) goes stale after `STALE_MS`
 * and the next run takes it over then instead of waiting forever.
 */
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { CliError } from '../errors.js';
import { LockHeldError, takeHolderLock } from '../holder-lock.js';

const STALE_MS = 15_000;

export interface RunLockOptions {
  /** How long to wait for a lock another run holds; 0 fails at once. */
  waitSeconds: number;
  /** Called if a lock is lost mid-run (e.g. its directory removed); the run should stop. */
  onCompromised: (error: Error) => void;
}

/** Releases every lock taken, in reverse order. Safe to call twice. */
export type ReleaseRunLock = () => Promise<void>;

/** Thrown when another run holds a lock for longer than the configured wait. */
export class RunLockedError extends CliError {
  override readonly name = 'RunLockedError';
}

/**
 * Takes a lock on each path (sorted, so two runs needing the same pair cannot deadlock). The files
 * need not exist: the lock is the sibling directory `<path>.lock`.
 */
export async function acquireRunLock(
  paths: readonly string[],
  options: RunLockOptions,
): Promise<ReleaseRunLock> {
  const targets = [...new Set(paths.map((p) => path.resolve(p)))].sort();
  const releases: (() => Promise<void>)[] = [];
  const releaseAll: ReleaseRunLock = async () => {
    while (releases.length > 0) {
      const release = releases.pop();
      // A compromised lock is already gone; releasing it again only reports that.
      await release?.().catch(() => undefined);
    }
  };
  try {
    for (const target of targets) {
      await mkdir(path.dirname(target), { recursive: true });
      releases.push(await lockOne(target, options));
    }
  } catch (error) {
    await releaseAll();
    throw error;
  }
  return releaseAll;
}

async function lockOne(target: string, options: RunLockOptions): Promise<() => Promise<void>> {
  try {
    return await takeHolderLock(target, {
      staleMs: STALE_MS,
      waitMs: options.waitSeconds * 1000,
      onCompromised: options.onCompromised,
    });
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw error;
    const since = await lockTakenAt(target);
    const waited = options.waitSeconds > 0 ? ` (waited ${options.waitSeconds} s)` : '';
    throw new RunLockedError(
      `Another airt-report run holds the lock on ${target}${since ? ` since ${since}` : ''}${waited}. ` +
        'Wait for it to finish, or set lock.wait_seconds in the config to wait for it.',
    );
  }
}

async function lockTakenAt(target: string): Promise<string | null> {
  try {
    const info = await stat(`${target}.lock`);
    return info.birthtime.getTime() > 0 ? info.birthtime.toISOString() : info.mtime.toISOString();
  } catch {
    return null;
  }
}
