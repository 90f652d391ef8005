/**
 * The run lock left by a run that was killed (SIGKILL, a crash): such a run cannot remove its
 * `<path>.lock` directory, and proper-lockfile alone calls it stale only after 15 s, so a re-run started
 * at once was refused ("Another airt-report run holds the lock"). The lock records its holder's host
 * and pid (`.lock.owner`); a holder that is a process of this host and no longer exists is taken over
 * at once. A live holder, and a holder on another host (whose processes this host cannot see), still
 * keep the lock; of runs racing for a dead holder's lock exactly one gets it; and a takeover marker
 * (`.lock.takeover`) left by a process killed mid-takeover does not block the next one.
 *
 * Holders are real child processes (test/helpers/run-lock-child.ts) killed with SIGKILL; a few tests
 * write the lock as a killed run leaves it, with the pid of a process that has exited.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireRunLock, RunLockedError, type ReleaseRunLock } from '../../src/pipeline/lock.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

const CHILD = fileURLToPath(new URL('../helpers/run-lock-child.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const noCompromise = (): void => undefined;
const lockNow = (target: string, waitSeconds = 0): Promise<ReleaseRunLock> =>
  acquireRunLock([target], { waitSeconds, onCompromised: noCompromise });

const children: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map(killed));
});

interface LockChild {
  child: ChildProcess;
  /** The child's first line: `locked` or `refused`. */
  said: Promise<string>;
}

/** Starts a child that takes the run lock on `target` and holds it until it is killed. */
function startChild(target: string): LockChild {
  const child = spawn(process.execPath, ['--import', TSX, CHILD, target], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const said = new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.includes('\n')) resolve(stdout.split('\n')[0] ?? '');
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`the lock child exited (${code ?? signal}) before it said anything:\n${stderr}`)),
    );
  });
  return { child, said };
}

/** SIGKILLs `child` (a killed run cannot remove its lock) and waits until it is gone. */
async function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exit = once(child, 'exit');
  child.kill('SIGKILL');
  await exit;
}

/** The pid of a process of this host that has exited. */
function deadPid(): number {
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(dead.stdout);
}

/** Leaves the lock on `target` as a run killed while holding it leaves it: fresh, with its holder note. */
async function writeKilledRunsLock(target: string, host = hostname(), pid = deadPid()): Promise<void> {
  await mkdir(`${target}.lock`);
  await writeFile(`${target}.lock.owner`, JSON.stringify({ host, pid }));
}

const ownerOf = async (target: string): Promise<unknown> =>
  JSON.parse(await readFile(`${target}.lock.owner`, 'utf8'));

async function dbIn(prefix: string): Promise<string> {
  return path.join(await makeTempDir(prefix), 'airt.duckdb');
}

describe('run lock left by a killed run', () => {
  it('a run SIGKILLed while holding the lock: the next run takes it at once and holds it', async () => {
    const db = await dbIn('airt-lock-killed-');
    const holder = startChild(db);
    expect(await holder.said).toBe('locked');
    await killed(holder.child);
    expect(existsSync(`${db}.lock`)).toBe(true); // the killed run could not remove it

    const release = await lockNow(db);
    expect(await ownerOf(db)).toEqual({ host: hostname(), pid: process.pid });
    // Taken for real: another run is refused while this one holds it.
    await expect(lockNow(db)).rejects.toBeInstanceOf(RunLockedError);
    await release();
    expect(existsSync(`${db}.lock`)).toBe(false);
    expect(existsSync(`${db}.lock.owner`)).toBe(false);
  });

  it('a live holder keeps the lock; killed, its lock goes to the run waiting for it and then at once', async () => {
    const db = await dbIn('airt-lock-live-');
    const holder = startChild(db);
    expect(await holder.said).toBe('locked');
    const refused = lockNow(db);
    await expect(refused).rejects.toBeInstanceOf(RunLockedError);
    await expect(refused).rejects.toThrow(
      /^Another airt-report run holds the lock on .*airt\.duckdb since .*\. Wait for it to finish, or set lock\.wait_seconds in the config to wait for it\.$/,
    );
    expect(await startChild(db).said).toBe('refused');

    // A run waiting (lock.wait_seconds) gets the lock once the holder is killed, well within its wait.
    const waiting = lockNow(db, 60);
    setTimeout(() => void killed(holder.child), 300);
    const release = await waiting;
    await release();

    const next = startChild(db);
    expect(await next.said).toBe('locked');
    await killed(next.child);
    await (
      await lockNow(db)
    )();
  });

  it('a holder recorded on another host is never taken over; the same record of this host is', async () => {
    const db = await dbIn('airt-lock-host-');
    const pid = deadPid();
    await writeKilledRunsLock(db, 'build-agent-7.elsewhere.example', pid);
    await expect(lockNow(db)).rejects.toBeInstanceOf(RunLockedError);
    expect(existsSync(`${db}.lock`)).toBe(true);
    expect(await ownerOf(db)).toEqual({ host: 'build-agent-7.elsewhere.example', pid });

    await writeFile(`${db}.lock.owner`, JSON.stringify({ host: hostname(), pid }));
    await (
      await lockNow(db)
    )();
  });

  it('of runs racing for a killed run’s lock exactly one gets it, every time', async () => {
    for (let round = 0; round < 8; round++) {
      const db = await dbIn('airt-lock-race-');
      await writeKilledRunsLock(db);
      const outcomes = await Promise.allSettled([lockNow(db), lockNow(db), lockNow(db), lockNow(db)]);
      const winners = outcomes.filter((o) => o.status === 'fulfilled');
      const losers = outcomes.filter((o) => o.status === 'rejected');
      expect(winners, `round ${round}`).toHaveLength(1);
      for (const loser of losers) expect(loser.reason).toBeInstanceOf(RunLockedError);
      await winners[0]?.value();
    }
  });

  it('of run processes racing for a SIGKILLed run’s lock exactly one gets it', async () => {
    for (let round = 0; round < 2; round++) {
      const db = await dbIn('airt-lock-race-processes-');
      const holder = startChild(db);
      expect(await holder.said).toBe('locked');
      await killed(holder.child);
      const racers = [startChild(db), startChild(db), startChild(db)];
      const said = await Promise.all(racers.map((racer) => racer.said));
      expect(
        said.filter((word) => word === 'locked'),
        `round ${round}: ${said.join(', ')}`,
      ).toHaveLength(1);
      expect(said.filter((word) => word === 'refused')).toHaveLength(2);
      await Promise.all(racers.map((racer) => killed(racer.child)));
    }
  });
});

describe('takeover marker left by a killed process', () => {
  it('a marker recorded by a process that is gone does not block the takeover', async () => {
    const db = await dbIn('airt-lock-marker-dead-');
    await writeKilledRunsLock(db);
    await writeFile(`${db}.lock.takeover`, JSON.stringify({ host: hostname(), pid: deadPid() }));
    const release = await lockNow(db);
    expect(await ownerOf(db)).toEqual({ host: hostname(), pid: process.pid });
    expect(existsSync(`${db}.lock.takeover`)).toBe(false);
    await release();
  });

  it('a marker older than a few seconds does not block the takeover; a fresh one of a live process does', async () => {
    const db = await dbIn('airt-lock-marker-old-');
    await writeKilledRunsLock(db);
    // A live process is taking the lock over right now: the others leave it to it.
    const marker = `${db}.lock.takeover`;
    await writeFile(marker, JSON.stringify({ host: hostname(), pid: process.pid }));
    await expect(lockNow(db)).rejects.toBeInstanceOf(RunLockedError);
    // No takeover lasts seconds: a marker this old was left behind (its pid since reused, say).
    const old = new Date(Date.now() - 60_000);
    await utimes(marker, old, old);
    await (
      await lockNow(db)
    )();

    // A marker without a record (a directory, as an earlier version's takeover left it), as old.
    const other = await dbIn('airt-lock-marker-dir-');
    await writeKilledRunsLock(other);
    await mkdir(`${other}.lock.takeover`);
    await utimes(`${other}.lock.takeover`, old, old);
    await (
      await lockNow(other)
    )();
  });

  it('of runs racing past a left-behind marker exactly one gets the lock, every time', async () => {
    for (let round = 0; round < 8; round++) {
      const db = await dbIn('airt-lock-marker-race-');
      await writeKilledRunsLock(db);
      await writeFile(`${db}.lock.takeover`, JSON.stringify({ host: hostname(), pid: deadPid() }));
      const outcomes = await Promise.allSettled([lockNow(db), lockNow(db), lockNow(db), lockNow(db)]);
      const winners = outcomes.filter((o) => o.status === 'fulfilled');
      expect(winners, `round ${round}`).toHaveLength(1);
      for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(RunLockedError);
      await winners[0]?.value();
    }
  });
});
