/**
 * A reader of stderr that goes away (`airt-report load … 2>&1 >/dev/null | head -1`) closes the pipe:
 * the next progress line fails with EPIPE. Progress is informative, so the load carries on and
 * completes — it used to die with exit 1, no message, no database, and its temp database and WAL (or
 * the holder note of an existing database) left behind. Real child processes: the EPIPE comes from
 * the operating system.
 */
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { spawnCli, type CliRun } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { copyDatabase, FIXTURES, tableCounts } from '../warehouse/helpers.js';

let work: string;
let firstLoaded: string;
/** Row counts of a clean load of both fixture snapshots. */
let both: Record<string, number>;

beforeAll(async () => {
  work = await makeTempDir('airt-stderr-closed-');
  firstLoaded = path.join(work, 'first.duckdb');
  await loadSnapshots(firstLoaded, [FIXTURES.first]);
  const clean = path.join(work, 'clean.duckdb');
  await loadSnapshots(clean, [FIXTURES.first, FIXTURES.second]);
  both = await tableCounts(clean);
});

/** Runs `args` and closes the child's stderr as soon as its first line arrives, as `| head -1` does. */
async function withStderrClosedEarly(args: readonly string[]): Promise<CliRun & { firstLine: string }> {
  const { child, finished } = spawnCli(args);
  let firstLine = '';
  child.stderr?.once('data', (chunk: string) => {
    firstLine = chunk.split('\n')[0] ?? '';
    child.stderr?.destroy();
  });
  return { ...(await finished), firstLine };
}

describe('load with its stderr closed early (EPIPE)', () => {
  it('a first load completes: exit 0, the database in place, no temp database or WAL left', async () => {
    const dir = path.join(work, 'first');
    await mkdir(dir);
    const db = path.join(dir, 'airt.duckdb');
    const run = await withStderrClosedEarly(['load', FIXTURES.first, FIXTURES.second, '--db', db]);
    expect(run.firstLine).toMatch(/^verifying /);
    expect(run.code, run.stdout).toBe(0);
    // stdout (still open) gets the summary.
    expect(run.stdout).toContain(`${path.basename(FIXTURES.second)}: loaded (complete, verified)`);
    expect(await readdir(dir)).toEqual(['airt.duckdb']);
    expect(await tableCounts(db)).toEqual(both);
  });

  it('a load into an existing database completes and removes its holder note', async () => {
    const dir = path.join(work, 'existing');
    await mkdir(dir);
    const db = await copyDatabase(firstLoaded, path.join(dir, 'airt.duckdb'));
    const run = await withStderrClosedEarly(['load', FIXTURES.second, '--db', db]);
    expect(run.firstLine).toMatch(/^verifying /);
    expect(run.code, run.stdout).toBe(0);
    expect(await readdir(dir)).toEqual(['airt.duckdb']);
    expect(await tableCounts(db)).toEqual(both);
  });
});
