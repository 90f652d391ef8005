/**
 * A load in a child process that SIGKILLs itself at a chosen progress event: the interruption tests'
 * way of stopping a load at an exact point (a timer could not hit a point reliably).
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';

const LOADER = path.resolve('src/warehouse/loader.ts');
let scripts = 0;

/**
 * Loads `dirs` into `db` and kills the process at the `nth` progress event for which `matches` (a
 * JavaScript expression over the event `e`) holds. Returns the child's signal: 'SIGKILL' unless the
 * load ended first. The script is written into `workDir`.
 */
export async function loadKilledAt(
  workDir: string,
  db: string,
  dirs: readonly string[],
  nth: number,
  matches = 'true',
): Promise<NodeJS.Signals | null> {
  const script = path.join(workDir, `killed-load-${++scripts}.mts`);
  await writeFile(
    script,
    `import { loadSnapshots } from ${JSON.stringify(LOADER)};
     let seen = 0;
     await loadSnapshots(${JSON.stringify(db)}, ${JSON.stringify(dirs)}, {
       onProgress: (e) => { if ((${matches}) && ++seen === ${nth}) process.kill(process.pid, 'SIGKILL'); },
     });`,
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (_code, signal) => resolve(signal));
  });
}
