/**
 * Makes the data files of a run durable in the background, a few at a time, while the run still waits
 * on the network; publishing then only flushes what is left (publish.ts). A file is flushed after it
 * is under its final name: its bytes never change afterwards (a snapshot file is written once, via a
 * temp file and a rename), so an early fsync is as good as one at publishing.
 *
 * Flushing a file costs the disk a few milliseconds but the CPU almost nothing, and parallel flushes
 * share the filesystem's journal commits; two at a time keep up with hundreds of files a second while
 * leaving the rest of the libuv thread pool to the writes of the next bodies.
 */
import { open } from 'node:fs/promises';
import pLimit from 'p-limit';

/** Background fsyncs in flight at most. */
const BACKGROUND_SYNCS = 2;

export class Flusher {
  /** Snapshot-relative paths whose data is durable. */
  readonly synced = new Set<string>();
  private readonly limit = pLimit(BACKGROUND_SYNCS);
  private readonly pending = new Set<Promise<void>>();
  private stopped = false;

  /**
   * Queues an fsync of `file` (absolute), recorded under `relative` once done. A failed flush is only
   * left out of `synced`: publishing flushes that file again and reports the error there.
   */
  flush(relative: string, file: string): void {
    if (this.stopped) return;
    const task = this.limit(async () => {
      if (this.stopped) return;
      const handle = await open(file, 'r');
      try {
        await handle.sync();
        this.synced.add(relative);
      } finally {
        await handle.close();
      }
    })
      .catch(() => undefined)
      .finally(() => this.pending.delete(task));
    this.pending.add(task);
  }

  /** Waits for the flushes under way; with `stop`, queued ones are skipped (the run is ending). */
  async settle(stop = false): Promise<void> {
    if (stop) this.stopped = true;
    await Promise.all([...this.pending]);
  }
}
