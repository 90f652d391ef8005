/**
 * One switch for a whole snapshot run: the first task that hits an error that makes going on pointless
 * (401, 426, a failed write) or an outside abort (SIGINT) stops every other task through its signal.
 */
/** Stops every task of a run once one of them hits an error that makes going on pointless. */
export class RunStopper {
  private readonly controller = new AbortController();
  private fatalError: unknown;
  constructor(outer?: AbortSignal) {
    if (outer?.aborted) this.controller.abort(outer.reason);
    outer?.addEventListener('abort', () => this.stop(outer.reason), { once: true });
  }
  get signal(): AbortSignal {
    return this.controller.signal;
  }
  get stopped(): boolean {
    return this.controller.signal.aborted;
  }
  /** The first error that stopped the run (the abort reason for an outside abort). */
  get error(): unknown {
    return this.fatalError ?? (this.controller.signal.reason as unknown);
  }
  stop(error: unknown): void {
    if (this.stopped) return;
    this.fatalError = error;
    this.controller.abort(error);
  }
}
