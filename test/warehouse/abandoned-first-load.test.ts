/**
 * A first load killed while DuckDB spilled (a large snapshot over the memory limit) leaves its temp
 * database and, beside it, the spill directory DuckDB made for it (`<temp>.tmp/`) and maybe its WAL.
 * The next first load in that directory removes all of what a dead process left, the directory too
 * (it removed the files and silently failed on the directory, which held megabytes of spilled
 * blocks), and nothing of a build whose process still runs.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { FIXTURES, rows, tempDir } from './helpers.js';

let work: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => {
  work = await tempDir('airt-abandoned-');
});
afterEach(async () => {
  await work.cleanup();
});

/** The pid of a process that has exited (a child run to its end). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

/** What a killed first load of `airt.duckdb` by `pid` leaves: temp database, its WAL and spill directory. */
async function leaveBuild(pid: number): Promise<string[]> {
  const temp = `.airt.duckdb.creating-${pid}-0a1b2c3d`;
  await writeFile(path.join(work.dir, temp), 'partial database');
  await writeFile(path.join(work.dir, `${temp}.wal`), 'wal');
  await mkdir(path.join(work.dir, `${temp}.tmp`));
  await writeFile(path.join(work.dir, `${temp}.tmp`, 'duckdb_temp_storage_S32K-0.tmp'), Buffer.alloc(4096));
  return [temp, `${temp}.tmp`, `${temp}.wal`];
}

describe('the next first load after a killed one', () => {
  it("removes a dead build's temp database, WAL and spill directory, and keeps a running one's", async () => {
    await leaveBuild(deadPid());
    const running = await leaveBuild(process.pid);
    const db = path.join(work.dir, 'airt.duckdb');
    await loadSnapshots(db, [FIXTURES.first]);
    expect((await rows(db, 'SELECT count(*) AS n FROM snapshots'))[0]).toEqual({ n: 1 });
    expect((await readdir(work.dir)).sort()).toEqual(['airt.duckdb', ...running].sort());
  });
});
