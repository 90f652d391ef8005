/**
 * A first load builds its database in a temp file next to the target and links it into place only
 * when it is complete (schema and the snapshots it committed), so the target path never names a file
 * without the warehouse schema, whenever the process is killed.
 *
 *   .<name>.creating-<pid>-<random> ─▶ build (schema, loads; CHECKPOINT; close) ─▶ fsync
 *     ─▶ link to <name> (fails if it exists: never replaces another load's database) ─▶ unlink temp
 *
 * Two first loads racing: the one that links second finds the file there and loads into it instead
 * (the caller re-runs its load against the existing database). A killed build leaves only its temp
 * file (with its WAL and spill directory), removed by the next first load in that directory once its
 * pid is gone.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { link, open, readdir, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { isProcessAlive } from '../process-alive.js';

const TEMP_MARK = '.creating-';

function tempPathFor(dbPath: string): string {
  const name = `.${path.basename(dbPath)}${TEMP_MARK}${process.pid}-${randomBytes(4).toString('hex')}`;
  return path.join(path.dirname(dbPath), name);
}

/**
 * Removes what earlier first loads of `dbPath` whose process is gone (killed builds) left: the temp
 * database, its WAL and the spill directory DuckDB made beside it (`<temp>.tmp/`, its temp_directory),
 * which can hold megabytes of spilled blocks: hence recursive.
 */
export async function removeAbandoned(dbPath: string): Promise<void> {
  const dir = path.dirname(dbPath);
  const prefix = `.${path.basename(dbPath)}${TEMP_MARK}`;
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(/^(\d+)-/.exec(name.slice(prefix.length))?.[1]);
    if (Number.isInteger(pid) && pid > 0 && !isProcessAlive(pid))
      await rm(path.join(dir, name), { recursive: true, force: true }).catch(() => undefined);
  }
}

async function fsyncPath(file: string, flags: string): Promise<void> {
  const handle = await open(file, flags);
  try {
    await handle.sync();
  } catch (error) {
    // Some file systems refuse fsync on a directory; the data file's own fsync is what matters.
    if (flags !== 'r') throw error;
  } finally {
    await handle.close();
  }
}

/** True when the target holds nothing worth keeping: absent, or an empty file (a killed old load). */
export async function needsCreation(dbPath: string): Promise<boolean> {
  const info = await stat(dbPath).catch(() => null);
  return info === null || (info.isFile() && info.size === 0);
}

export interface CreationOutcome<T> {
  /** False when another process created the database first: nothing of this build was kept. */
  published: boolean;
  result: T | undefined;
}

/**
 * Runs `build(tempPath)` (which must close its database) and links the result to `dbPath`. When
 * `build` throws, the temp file is still published if `keepOnError()` says it holds committed work
 * (the error is rethrown either way).
 */
export async function createWarehouseFile<T>(
  dbPath: string,
  build: (tempPath: string) => Promise<T>,
  keepOnError: () => boolean,
): Promise<CreationOutcome<T>> {
  const temp = tempPathFor(dbPath);
  try {
    let result: T;
    try {
      result = await build(temp);
    } catch (error) {
      if (keepOnError()) await publish(temp, dbPath);
      throw error;
    }
    return { published: await publish(temp, dbPath), result };
  } finally {
    await Promise.all([temp, `${temp}.wal`].map((file) => rm(file, { force: true })));
  }
}

async function publish(temp: string, dbPath: string): Promise<boolean> {
  if (existsSync(`${temp}.wal`))
    throw new Error(`internal: ${temp} was not checkpointed before publishing (a .wal remains)`);
  await fsyncPath(temp, 'r+');
  // An empty file at the target (left by an older airt-report killed mid-creation) holds nothing.
  const info = await stat(dbPath).catch(() => null);
  if (info?.isFile() && info.size === 0) await unlink(dbPath).catch(() => undefined);
  try {
    await link(temp, dbPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  await fsyncPath(path.dirname(dbPath), 'r');
  return true;
}
