import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { killFirstLoad, leftovers, type KillTrigger } from './first-load-kill.js';
import { copyDatabase, FIXTURES, rows, tempDir } from './helpers.js';

/** Kill trials run side by side (each is mostly a child's start-up). */
const PARALLEL = 5;
const LOCK = fileURLToPath(new URL('../../src/warehouse/warehouse-lock.ts', import.meta.url));

/** A child process holding the database's write lock (as a load would) until it is killed. */
async function holdLock(work: string, db: string): Promise<{ pid: number; release: () => Promise<void> }> {
  const script = path.join(work, 'hold.mts');
  await writeFile(
    script,
    `import { openWarehouseLocked } from ${JSON.stringify(LOCK)};
     const w = await openWarehouseLocked(${JSON.stringify(db)}, { timeoutMs: 0, command: 'holder under test' });
     process.on('SIGTERM', () => { w.close(); process.exit(0); });
     process.stdout.write('held\\n');
     setInterval(() => undefined, 1000);`,
  );
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`lock holder exited with ${code}`)));
    child.stdout.once('data', () => resolve());
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    pid: child.pid ?? -1,
    release: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

describe('concurrent and interrupted loads', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;
  /** FIXTURES.partial loaded once: the lock tests start from copies of it. */
  let loaded: Awaited<ReturnType<typeof tempDir>>;
  let partialLoaded: string;
  beforeAll(async () => {
    loaded = await tempDir('airt-wh-conc-');
    partialLoaded = path.join(loaded.dir, 'partial.duckdb');
    await loadSnapshots(partialLoaded, [FIXTURES.partial]);
  });
  afterAll(() => loaded.cleanup());
  beforeEach(async () => {
    work = await tempDir('airt-wh-conc-');
    db = path.join(work.dir, 'airt.duckdb');
  });
  afterEach(() => work.cleanup());

  it('two concurrent first loads (child processes) both land', async () => {
    const [a, b] = await Promise.all([
      runCli(['load', FIXTURES.first, '--db', db, '--quiet']),
      runCli(['load', FIXTURES.second, '--db', db, '--quiet']),
    ]);
    expect([a.code, b.code]).toEqual([0, 0]);
    // The fixtures' own load warnings only: no lock conflict, no error.
    expect(`${a.stderr}${b.stderr}`).not.toMatch(/lock|error/i);
    expect(await rows(db, 'SELECT snapshot_id FROM snapshots ORDER BY 1')).toEqual([
      { snapshot_id: path.basename(FIXTURES.first) },
      { snapshot_id: path.basename(FIXTURES.second) },
    ]);
  });

  it('a load waits while another process holds the database, then lands', async () => {
    await copyDatabase(partialLoaded, db);
    const holder = await holdLock(work.dir, db);
    const load = spawnCli(['load', FIXTURES.first, '--db', db, '--quiet']);
    // The load is queued behind the holder; it must still be waiting when the holder lets go.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(load.child.exitCode).toBeNull();
    await holder.release();
    const result = await load.finished;
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(/lock|error/i);
    expect((await rows(db, 'SELECT count(*) AS n FROM snapshots'))[0]).toEqual({ n: 2 });
  });

  it('gives up after --lock-timeout, naming the holder (pid, command, start time)', async () => {
    await copyDatabase(partialLoaded, db);
    const holder = await holdLock(work.dir, db);
    try {
      const result = await runCli(['load', FIXTURES.first, '--db', db, '--lock-timeout', '0.5']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        new RegExp(
          `locked by pid ${holder.pid} \\(holder under test, started \\d{4}-\\d\\d-\\d\\dT.*waited \\d+ s.*--lock-timeout`,
        ),
      );
      expect(result.stderr).not.toMatch(/Could not set lock|at .*\.ts:\d+/);
    } finally {
      await holder.release();
    }
    expect((await rows(db, 'SELECT count(*) AS n FROM snapshots'))[0]).toEqual({ n: 1 });
  });

  it('a first load SIGKILLed at random points leaves no database file or a complete one, never one without schema', async () => {
    // Half the kills at a random time after start, half a few ms after a file appears at the path.
    const triggers: KillTrigger[] = Array.from({ length: 6 }, (_, i) =>
      i % 2 === 0
        ? { afterStartMs: Math.floor(Math.random() * 400) }
        : { afterFileMs: Math.floor(Math.random() * 15) },
    );
    const results = [];
    for (let i = 0; i < triggers.length; i += PARALLEL) {
      results.push(
        ...(await Promise.all(
          triggers.slice(i, i + PARALLEL).map(async (trigger, j) => {
            const dir = path.join(work.dir, `trial-${i + j}`);
            await mkdir(dir);
            const result = await killFirstLoad(dir, FIXTURES.first, trigger);
            return { ...result, trigger, leftovers: await leftovers(dir) };
          }),
        )),
      );
    }
    for (const result of results) {
      expect(result, JSON.stringify(result)).toMatchObject({ withoutSchema: false, nextLoadOk: true });
      // The next first load removed what the killed one left (its temp file).
      expect(result.leftovers).toEqual([]);
    }
    expect(results.filter((r) => r.killed).length).toBeGreaterThan(0);
  }, 60_000);

  it('repairs an empty file at the database path and a DuckDB file without tables; refuses a foreign file untouched', async () => {
    await writeFile(db, '');
    await loadSnapshots(db, [FIXTURES.first]);
    expect((await rows(db, 'SELECT count(*) AS n FROM snapshots'))[0]).toEqual({ n: 1 });

    const bare = path.join(work.dir, 'bare.duckdb');
    (await DuckDBInstance.create(bare)).closeSync();
    await loadSnapshots(bare, [FIXTURES.first]);
    expect((await rows(bare, 'SELECT count(*) AS n FROM snapshots'))[0]).toEqual({ n: 1 });

    const foreign = path.join(work.dir, 'notes.duckdb');
    await writeFile(foreign, 'my notes');
    await expect(loadSnapshots(foreign, [FIXTURES.first])).rejects.toThrow(
      /notes\.duckdb exists but is not a DuckDB database.*Nothing was loaded or changed/,
    );
    expect(await readFile(foreign, 'utf8')).toBe('my notes');
  });
});
