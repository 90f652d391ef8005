/**
 * One SIGKILL-during-a-first-load trial (used by test/warehouse/load-concurrency.test.ts and
 * bench/load-kill.ts): a child process starts a first `loadSnapshots` into a database path that does
 * not exist yet and is SIGKILLed either a random delay after it starts or a random few ms after a
 * file appears at the database path (the moment a non-atomic creation is most exposed). Then the
 * database path must hold either nothing or a complete warehouse, and a next load must work.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openWarehouse } from '../../src/warehouse/db.js';
import { checkSchema } from '../../src/warehouse/ddl.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';

const LOADER = fileURLToPath(new URL('../../src/warehouse/loader.ts', import.meta.url));

export interface KillTrialResult {
  /** The child died of the SIGKILL (false: it finished before the kill). */
  killed: boolean;
  /** A file was at the database path after the kill. */
  fileLeft: boolean;
  /** That file had no (complete) warehouse schema: the defect. */
  withoutSchema: boolean;
  /** The load after the kill succeeded. */
  nextLoadOk: boolean;
}

export type KillTrigger = { afterStartMs: number } | { afterFileMs: number };

async function hasSchema(db: string): Promise<boolean> {
  try {
    const warehouse = await openWarehouse(db, { readOnly: true });
    try {
      await checkSchema(warehouse.conn, db);
      return true;
    } finally {
      warehouse.close();
    }
  } catch {
    return false;
  }
}

/** Runs one trial in `dir` (a fresh empty directory) with the snapshot `snapshot`. */
export async function killFirstLoad(
  dir: string,
  snapshot: string,
  trigger: KillTrigger,
): Promise<KillTrialResult> {
  const db = path.join(dir, 'airt.duckdb');
  const script = path.join(dir, 'first-load.mts');
  await writeFile(
    script,
    `import { loadSnapshots } from ${JSON.stringify(LOADER)};
     process.stdout.write('ready\\n');
     await loadSnapshots(${JSON.stringify(db)}, [${JSON.stringify(snapshot)}]);`,
  );
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  let poll: NodeJS.Timeout | undefined;
  let timer: NodeJS.Timeout | undefined;
  const kill = (): void => {
    child.kill('SIGKILL');
  };
  child.stdout.once('data', () => {
    if ('afterStartMs' in trigger) {
      timer = setTimeout(kill, trigger.afterStartMs);
      return;
    }
    poll = setInterval(() => {
      if (!existsSync(db)) return;
      clearInterval(poll);
      timer = setTimeout(kill, trigger.afterFileMs);
    }, 1);
  });
  const signal = await new Promise<NodeJS.Signals | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (_code, sig) => resolve(sig));
  });
  clearInterval(poll);
  clearTimeout(timer);
  const fileLeft = existsSync(db);
  const withoutSchema = fileLeft && !(await hasSchema(db));
  let nextLoadOk = true;
  try {
    await loadSnapshots(db, [snapshot]);
    nextLoadOk = await hasSchema(db);
  } catch {
    nextLoadOk = false;
  }
  return { killed: signal === 'SIGKILL', fileLeft, withoutSchema, nextLoadOk };
}

/** Names in `dir` other than the database and the trial's script (temp files left by the kill). */
export async function leftovers(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => !['airt.duckdb', 'first-load.mts'].includes(n));
}
