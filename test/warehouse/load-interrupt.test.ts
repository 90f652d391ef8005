/**
 * `load` stopped by Ctrl-C (SIGINT) or SIGTERM, as a real child process of the CLI: at its first
 * progress line, while it reads trial files, between two snapshots, and at a random time. The stop is
 * clean: exit 130/143 and one `Interrupted by …` line, the snapshot in progress rolled back, and nothing
 * left beside the database — no temp database or its WAL (first load), no holder note, no spill
 * directory. Loading again gives the rows a clean load gives. (A SIGKILL cannot be handled: the next
 * load's recovery covers it, see load-concurrency.test.ts.)
 */
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { spawnCli, type CliRun } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { copyDatabase, FIXTURES, rows, tableCounts } from './helpers.js';

/**
 * Where the signal is sent: once stderr shows `afterLine`, plus `delayMs`. Counted from a line, not
 * from the start: a signal before the CLI has set up its handlers (while Node loads it) ends it as any
 * signal ends a process that has started nothing yet.
 */
interface StopPoint {
  afterLine: RegExp;
  delayMs?: number;
}

/** The first progress line of every load. */
const FIRST_LINE = /^verifying /m;

interface Stopped {
  dir: string;
  db: string;
  /** Whether the child was still running when the signal was sent. */
  signalled: boolean;
  /** Sent at a random time, which may be as the load ends. */
  late: boolean;
  run: CliRun;
  where: string;
}

const FIRST_ID = path.basename(FIXTURES.first);

let work: string;
/** Row counts of a clean load: the first snapshot alone, and both. */
let firstOnly: Record<string, number>;
let both: Record<string, number>;
/** A database holding the first snapshot (closed, so copies of it are whole). */
let firstLoaded: string;

beforeAll(async () => {
  work = await makeTempDir('airt-load-int-');
  firstLoaded = path.join(work, 'first.duckdb');
  await loadSnapshots(firstLoaded, [FIXTURES.first]);
  firstOnly = await tableCounts(firstLoaded);
  const clean = path.join(work, 'clean.duckdb');
  await loadSnapshots(clean, [FIXTURES.first, FIXTURES.second]);
  both = await tableCounts(clean);
});

/** Starts `load dirs --db <dir>/airt.duckdb` in a child and sends `signal` at `point`. */
async function stoppedLoad(
  name: string,
  dirs: readonly string[],
  signal: NodeJS.Signals,
  point: StopPoint,
  existing?: string,
): Promise<Stopped> {
  const dir = path.join(work, name);
  await mkdir(dir);
  const db = path.join(dir, 'airt.duckdb');
  if (existing) await copyDatabase(existing, db);
  const { child, finished } = spawnCli(['load', ...dirs, '--db', db]);
  let exited = false;
  void finished.then(() => (exited = true));
  await new Promise<void>((resolve) => {
    let seen = '';
    const onData = (chunk: string): void => {
      seen += chunk;
      if (point.afterLine.test(seen)) resolve();
    };
    child.stderr?.on('data', onData);
    void finished.then(() => resolve());
  });
  if (point.delayMs) await new Promise((resolve) => setTimeout(resolve, point.delayMs));
  const signalled = !exited;
  if (signalled) child.kill(signal);
  const run = await finished;
  const at = `${String(point.afterLine)}${point.delayMs ? ` + ${point.delayMs} ms` : ''}`;
  return {
    dir,
    db,
    signalled,
    late: point.delayMs !== undefined,
    run,
    where: `${signal} at ${at}; exit ${run.code ?? run.signal}\nstderr:\n${run.stderr}`,
  };
}

/**
 * Whether the load ended on its own before the signal could stop it: exit 0, or — the signal landing
 * while the finished process exits, its handlers gone — ended by the signal itself, without a word.
 * Only a signal at a random time may come that late.
 */
function finishedFirst(stopped: Stopped, signal: NodeJS.Signals): boolean {
  const { run } = stopped;
  if (!stopped.signalled || run.code === 0) return true;
  return stopped.late && run.signal === signal && !run.stderr.includes('Interrupted by');
}

/** What every stopped load must leave: its exit and message, no debris, and rows a re-load completes. */
async function checkStopped(stopped: Stopped, signal: NodeJS.Signals, start: Record<string, number> | null) {
  const { run, where } = stopped;
  if (finishedFirst(stopped, signal)) {
    expect(stopped.late || !stopped.signalled, where).toBe(true);
    expect(run.stderr, where).not.toMatch(/airt-report: /);
    if (run.code === 0) expect(run.stdout, where).toContain(`${path.basename(FIXTURES.second)}: loaded`);
    // Finished: every snapshot loaded.
    expect(await tableCounts(stopped.db), where).toEqual(both);
  } else {
    expect(run.signal, where).toBeNull();
    expect(run.code, where).toBe(signal === 'SIGINT' ? 130 : 143);
    // One line says what stopped it and what stays (a signal after the last commit: all of it).
    expect(run.stderr, where).toMatch(
      new RegExp(
        `^airt-report: Interrupted by ${signal} (during the load: \\d of \\d snapshot|after the load had finished)`,
        'm',
      ),
    );
    expect(run.stderr.match(/Interrupted by/g), where).toHaveLength(1);
  }
  // Nothing beside the database: no temp database (.creating-…) or WAL, holder note or spill directory.
  const left = await readdir(stopped.dir);
  expect(
    left.filter((n) => n !== 'airt.duckdb'),
    where,
  ).toEqual([]);
  if (left.includes('airt.duckdb')) {
    // Each snapshot is in whole or not at all.
    const counts = await tableCounts(stopped.db);
    expect(
      [start, firstOnly, both].filter((c) => c !== null),
      where,
    ).toContainEqual(counts);
  } else {
    expect(start, where).toBeNull();
  }
  // Loading again finishes it, with the rows of a clean load (nothing doubled).
  const io = recordingIO();
  const code = await main(['load', FIXTURES.first, FIXTURES.second, '--db', stopped.db, '--quiet'], io);
  expect(code, `${where}\nre-run:\n${io.err.join('')}`).toBe(0);
  expect(await tableCounts(stopped.db), where).toEqual(both);
  expect(await readdir(stopped.dir), where).toEqual(['airt.duckdb']);
}

describe('load interrupted by SIGINT/SIGTERM', () => {
  it('a first load stops cleanly at each point: exit 130/143, one line, no temp database, same rows on re-run', async () => {
    const dirs = [FIXTURES.first, FIXTURES.second];
    const points: [string, NodeJS.Signals, StopPoint][] = [
      ['first-line', 'SIGINT', { afterLine: FIRST_LINE }],
      ['trials', 'SIGTERM', { afterLine: /^ {2}trials: /m }],
      ['between', 'SIGINT', { afterLine: new RegExp(`^ {2}committed ${FIRST_ID}$`, 'm') }],
      ['random', 'SIGINT', { afterLine: FIRST_LINE, delayMs: Math.floor(Math.random() * 800) }],
    ];
    const stopped = await Promise.all(
      points.map(([name, signal, point]) => stoppedLoad(`first-${name}`, dirs, signal, point)),
    );
    await Promise.all(stopped.map((one, i) => checkStopped(one, points[i]![1], null)));
    // Stopped at its first progress line, the load had committed nothing: no database at all.
    expect(stopped[0]!.signalled, stopped[0]!.where).toBe(true);
    expect(stopped[0]!.run.stderr, stopped[0]!.where).toContain('during the load: 0 of 2 snapshot(s) done;');
  });

  it('a load into an existing database rolls the snapshot back and leaves no holder note or spill directory', async () => {
    const points: [string, NodeJS.Signals, StopPoint][] = [
      ['first-line', 'SIGTERM', { afterLine: FIRST_LINE }],
      ['trials', 'SIGINT', { afterLine: /^ {2}trials: /m }],
      ['random', 'SIGINT', { afterLine: FIRST_LINE, delayMs: Math.floor(Math.random() * 600) }],
    ];
    const stopped = await Promise.all(
      points.map(([name, signal, point]) =>
        stoppedLoad(`existing-${name}`, [FIXTURES.second], signal, point, firstLoaded),
      ),
    );
    await Promise.all(stopped.map((one, i) => checkStopped(one, points[i]![1], firstOnly)));
    expect(stopped[0]!.signalled, stopped[0]!.where).toBe(true);
    expect(stopped[0]!.run.stderr, stopped[0]!.where).toContain('during the load: 0 of 1 snapshot(s) done;');
  });
});

/** A snapshot whose load has warnings: after its commit the load still reads the first ones. */
const WARNED_ID = path.basename(FIXTURES.partial);

/** Snapshot ids in the database. */
async function loadedIds(db: string): Promise<string[]> {
  return (await rows(db, 'SELECT snapshot_id FROM snapshots ORDER BY snapshot_id')).map((r) =>
    String(r.snapshot_id),
  );
}

/**
 * A load stopped right after a snapshot's commit: its one line never calls a committed snapshot rolled
 * back, its count of snapshots kept is what the database holds, and the database (a first load's too)
 * is kept with it; loading again finishes the load.
 */
async function checkStoppedAfterCommit(
  stopped: Stopped,
  signal: NodeJS.Signals,
  dirs: readonly string[],
  before: readonly string[],
): Promise<void> {
  const { run, where } = stopped;
  // Published (a first load) or kept, with nothing beside it.
  expect(await readdir(stopped.dir), where).toEqual(['airt.duckdb']);
  const ids = await loadedIds(stopped.db);
  expect(ids, where).toContain(WARNED_ID);
  for (const id of before) expect(ids, where).toContain(id);
  const newlyLoaded = ids.length - before.length;
  if (run.code === 0 || (run.signal === signal && !run.stderr.includes('Interrupted by'))) {
    // Ended on its own before the signal could stop it.
    expect(newlyLoaded, where).toBe(dirs.length);
  } else {
    expect(run.signal, where).toBeNull();
    expect(run.code, where).toBe(signal === 'SIGINT' ? 130 : 143);
    expect(run.stderr.match(/Interrupted by/g), where).toHaveLength(1);
    const during = new RegExp(
      `^airt-report: Interrupted by ${signal} during the load: (\\d) of ${dirs.length} snapshot\\(s\\) done \\((\\d) newly loaded, kept\\); what was in progress was rolled back\\.`,
      'm',
    ).exec(run.stderr);
    if (during) {
      expect(Number(during[1]), where).toBeLessThan(dirs.length);
      expect(Number(during[2]), where).toBe(newlyLoaded);
    } else {
      // Stopped once every snapshot had committed: the load had finished.
      expect(run.stderr, where).toContain(
        `airt-report: Interrupted by ${signal} after the load had finished: every snapshot named is loaded.`,
      );
      expect(newlyLoaded, where).toBe(dirs.length);
    }
  }
  const io = recordingIO();
  const code = await main(['load', ...dirs, '--db', stopped.db, '--quiet'], io);
  expect(code, `${where}\nre-run:\n${io.err.join('')}`).toBe(0);
  expect((await loadedIds(stopped.db)).length, where).toBe(before.length + dirs.length);
}

describe('load interrupted right after a commit', () => {
  it('counts the committed snapshot as kept and keeps it: a first load of one or two snapshots, and an existing database', async () => {
    const committed = { afterLine: new RegExp(`^ {2}committed ${WARNED_ID}$`, 'm') };
    const cases: [string, readonly string[], NodeJS.Signals, string | undefined, string[]][] = [
      ['commit-only', [FIXTURES.partial], 'SIGINT', undefined, []],
      ['commit-first-of-two', [FIXTURES.partial, FIXTURES.first], 'SIGTERM', undefined, []],
      ['commit-existing', [FIXTURES.partial, FIXTURES.second], 'SIGINT', firstLoaded, [FIRST_ID]],
    ];
    const stopped = await Promise.all(
      cases.map(([name, dirs, signal, existing]) => stoppedLoad(name, dirs, signal, committed, existing)),
    );
    for (const [i, [, dirs, signal, , before]] of cases.entries())
      await checkStoppedAfterCommit(stopped[i]!, signal, dirs, before);
  });
});
