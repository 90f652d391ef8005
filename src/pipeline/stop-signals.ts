/**
 * Keeps SIGINT/SIGTERM from killing a run its caller wants to stop through an AbortSignal.
 *
 * The run lock (src/holder-lock.ts, over proper-lockfile) loads signal-exit, which listens for stop
 * signals and, when its own listeners are the only ones left, re-raises the signal so the process
 * dies. The CLI listens with `once` (a second Ctrl-C kills at once), so its listener is already
 * removed when signal-exit looks: the first SIGTERM killed the run mid-step, before it could stop
 * cleanly or write its summary.
 *
 * While a run holds this guard, one more `once` listener per stop signal stays registered, so the
 * first signal leaves the stopping to the caller's AbortSignal. A second signal of the same kind
 * still kills (signal-exit re-raises it), and if the caller did not abort on the first one — a
 * library user who does not handle signals — the guard re-raises it, so the signal is not swallowed.
 */
import { STOP_SIGNALS } from '../errors.js';

/** Installs the guard for as long as the returned function is not called. */
export function guardStopSignals(signal: AbortSignal | undefined): () => void {
  if (signal === undefined) return () => undefined;
  const listeners = STOP_SIGNALS.map((name) => {
    const listener = (): void => {
      // Checked once every listener of this signal has run, whatever order they were added in.
      setImmediate(() => {
        if (!signal.aborted) process.kill(process.pid, name);
      });
    };
    process.once(name, listener);
    return { name, listener };
  });
  return () => {
    for (const { name, listener } of listeners) process.off(name, listener);
  };
}

/**
 * Runs `work` under the guard, after `load` has imported the module that brings signal-exit in
 * (through proper-lockfile). The order matters: the guard only works when its listener comes after
 * signal-exit's, which counts the listeners after it runs; installed first, the first Ctrl-C would
 * still kill the process and the command could not stop cleanly.
 */
export async function withStopGuardAfter<T>(
  load: () => Promise<unknown>,
  signal: AbortSignal | undefined,
  work: () => Promise<T>,
): Promise<T> {
  await load();
  const release = guardStopSignals(signal);
  try {
    return await work();
  } finally {
    release();
  }
}
