/**
 * Child process for the run lock tests: takes the run lock on argv[2] and holds it, printing one
 * `locked` line once it has it (or `refused` if another run holds it), so the parent can SIGKILL a
 * holder and race contenders. Stays alive until it is killed.
 */
import { acquireRunLock, RunLockedError } from '../../src/pipeline/lock.js';

const [target] = process.argv.slice(2);
if (target === undefined) throw new Error('usage: run-lock-child TARGET');
try {
  await acquireRunLock([target], { waitSeconds: 0, onCompromised: () => undefined });
  process.stdout.write('locked\n');
} catch (error) {
  if (!(error instanceof RunLockedError)) throw error;
  process.stdout.write('refused\n');
}
setInterval(() => undefined, 60_000);
