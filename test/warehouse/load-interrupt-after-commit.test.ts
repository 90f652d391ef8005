/**
 * A load stopped just after a snapshot's COMMIT, while the load still runs a statement for it (the
 * first warnings shown, dropping the trial stage). The interruption then lands on that statement; it
 * used to turn the committed snapshot into one "rolled back": left out of the interrupted load's
 * count, and on a first load whose only commit it was, its temp database deleted. Now the snapshot
 * counts as done from its commit on: the message says it is kept, and the database holds it
 * (a first load's database is published).
 *
 * DuckDB drops an interrupt that finds no statement running, so where the signal lands is not up to
 * the test: here an interrupt lands on the connection's next statement, as it does when the signal
 * comes while that statement runs.
 */
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBConnection } from '@duckdb/node-api';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { LoadInterruptedError, loadSnapshots, type LoadOptions } from '../../src/warehouse/loader.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { copyDatabase, FIXTURES, rows } from './helpers.js';

/** A fixture snapshot whose load has warnings (so the first ones are read after its commit). */
const WARNED = FIXTURES.partial;
const WARNED_ID = path.basename(WARNED);
const FIRST_ID = path.basename(FIXTURES.first);

let work: string;
let firstLoaded: string;

beforeAll(async () => {
  work = await makeTempDir('airt-load-after-commit-');
  firstLoaded = path.join(work, 'first.duckdb');
  await loadSnapshots(firstLoaded, [FIXTURES.first]);
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** From now on, an interrupt of a connection fails the next statement it runs, as DuckDB's does. */
function interruptsLandOnNextStatement(): { statementsInterrupted: () => number } {
  const pending = new WeakSet<DuckDBConnection>();
  let interrupted = 0;
  const fail = (conn: DuckDBConnection): boolean => {
    if (!pending.delete(conn)) return false;
    interrupted++;
    return true;
  };
  vi.spyOn(DuckDBConnection.prototype, 'interrupt').mockImplementation(function (this: DuckDBConnection) {
    pending.add(this);
  });
  // The real methods, taken before they are replaced.
  const real = <K extends 'run' | 'runAndReadAll'>(name: K): DuckDBConnection[K] =>
    Object.getOwnPropertyDescriptor(DuckDBConnection.prototype, name)?.value as DuckDBConnection[K];
  const run = real('run');
  const runAndReadAll = real('runAndReadAll');
  vi.spyOn(DuckDBConnection.prototype, 'run').mockImplementation(function (this: DuckDBConnection, ...args) {
    if (fail(this)) return Promise.reject(new Error('INTERRUPT Error: Interrupted!'));
    return run.apply(this, args);
  });
  vi.spyOn(DuckDBConnection.prototype, 'runAndReadAll').mockImplementation(function (
    this: DuckDBConnection,
    ...args
  ) {
    if (fail(this)) return Promise.reject(new Error('INTERRUPT Error: Interrupted!'));
    return runAndReadAll.apply(this, args);
  });
  return { statementsInterrupted: () => interrupted };
}

/** Load options that abort (as Ctrl-C does) as soon as `snapshotId` has committed. */
function stopAfterCommitOf(snapshotId: string, warningsShown: number): LoadOptions {
  const controller = new AbortController();
  return {
    signal: controller.signal,
    warningsShown,
    onProgress: (event) => {
      if (event.type === 'committed' && event.snapshotId === snapshotId)
        controller.abort(new InterruptedError('SIGINT'));
    },
  };
}

async function loadedIds(db: string): Promise<string[]> {
  return (await rows(db, 'SELECT snapshot_id FROM snapshots ORDER BY snapshot_id')).map((r) =>
    String(r.snapshot_id),
  );
}

async function interruption(load: Promise<unknown>): Promise<LoadInterruptedError> {
  const error = await load.then(
    () => new Error('the load finished although it was stopped before its last snapshot'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LoadInterruptedError);
  return error as LoadInterruptedError;
}

describe('a load stopped right after a commit', () => {
  it('first load: the committed snapshot is counted as kept and its database is published', async () => {
    const dir = path.join(work, 'first-load');
    const db = path.join(dir, 'airt.duckdb');
    await mkdir(dir);
    const model = interruptsLandOnNextStatement();
    // The interruption lands on the read of the first warnings shown.
    const error = await interruption(
      loadSnapshots(db, [WARNED, FIXTURES.first], stopAfterCommitOf(WARNED_ID, 10)),
    );
    vi.restoreAllMocks();
    expect(model.statementsInterrupted()).toBe(1);
    expect(error.message).toBe(
      'Interrupted by SIGINT during the load: 1 of 2 snapshot(s) done (1 newly loaded, kept); what was in ' +
        'progress was rolled back. Run the same load again to finish it (loaded snapshots are skipped).',
    );
    expect(error.exitCode).toBe(130);
    expect(error.done.map((s) => [s.snapshotId, s.outcome])).toEqual([[WARNED_ID, 'loaded']]);
    // Published, not deleted: the database holds it, and nothing else is left beside it.
    expect(await readdir(dir)).toEqual(['airt.duckdb']);
    expect(await loadedIds(db)).toEqual([WARNED_ID]);
  });

  it('existing database: the snapshot committed before an interrupted stage drop is counted as kept', async () => {
    const dir = path.join(work, 'existing');
    await mkdir(dir);
    const db = await copyDatabase(firstLoaded, path.join(dir, 'airt.duckdb'));
    const model = interruptsLandOnNextStatement();
    // No warnings shown: the interruption lands on dropping the trial stage.
    const error = await interruption(
      loadSnapshots(db, [WARNED, FIXTURES.second], stopAfterCommitOf(WARNED_ID, 0)),
    );
    vi.restoreAllMocks();
    expect(model.statementsInterrupted()).toBe(1);
    expect(error.message).toContain('during the load: 1 of 2 snapshot(s) done (1 newly loaded, kept);');
    expect(error.done.map((s) => s.snapshotId)).toEqual([WARNED_ID]);
    expect(await readdir(dir)).toEqual(['airt.duckdb']);
    expect(await loadedIds(db)).toEqual([FIRST_ID, WARNED_ID].sort());
  });

  it('first load of one snapshot: stopped after its commit, the load has finished and is published', async () => {
    const dir = path.join(work, 'only-one');
    const db = path.join(dir, 'airt.duckdb');
    await mkdir(dir);
    const model = interruptsLandOnNextStatement();
    const options = stopAfterCommitOf(WARNED_ID, 10);
    const result = await loadSnapshots(db, [WARNED], options);
    vi.restoreAllMocks();
    expect(model.statementsInterrupted()).toBe(1);
    expect(options.signal?.aborted).toBe(true);
    // Its warnings' count stands; the first ones were not read (the load was stopping).
    expect(result.snapshots.map((s) => [s.snapshotId, s.outcome, s.warnings > 0])).toEqual([
      [WARNED_ID, 'loaded', true],
    ]);
    expect(await readdir(dir)).toEqual(['airt.duckdb']);
    expect(await loadedIds(db)).toEqual([WARNED_ID]);
  });

  it('the message never says rolled back once every snapshot is done', () => {
    const signal = AbortSignal.abort(new InterruptedError('SIGTERM'));
    const done = [
      {
        dir: WARNED,
        snapshotId: WARNED_ID,
        outcome: 'loaded' as const,
        status: 'partial' as const,
        verified: true,
        rows: {},
        warnings: 0,
        firstWarnings: [],
      },
    ];
    expect(new LoadInterruptedError(signal, done, 1, true).message).toBe(
      'Interrupted by SIGTERM during the load: 1 of 1 snapshot(s) done (1 newly loaded, kept); the triage ' +
        'journal was not loaded. Run the same load again to finish it (loaded snapshots are skipped).',
    );
    expect(new LoadInterruptedError(signal, done, 1).message).toBe(
      'Interrupted by SIGTERM during the load: 1 of 1 snapshot(s) done (1 newly loaded, kept); nothing else was left to load.',
    );
  });
});
