/**
 * Makes the data files of a run durable in the background, a few at a time, while the run still waits
 * on the network; publishing then only flushes what is left (publish.ts). A file is flushed after it
 * is under its final name: its bytes never change afterwards (a snapshot file is written once, via a
 * temp file and a rename), so an early fsync is as good as one at publishing.
 *
 * A file just written is handed over with its descriptor still open (`flushOpen`), so flushing it
 * costs an fsync and a close instead of an open, an fsync and a close; a few hundred files a second
 * make that difference show on the thread that also drives the requests. At most MAX_HELD_OPEN
 * descriptors wait; past that a file is closed at once and flushed by name later.
 *
 * Flushing a file costs the disk a few milliseconds but the CPU almost nothing, and parallel flushes
 * share the filesystem's journal commits; two at a time keep up with hundreds of files a second while
 * leaving the rest of the libuv thread pool to the writes of the next bodies.
 */
import pLimit from 'p-limit';
import { closeDescriptor, syncDescriptor, syncFileAt } from './write-atomic.js';

/** Background fsyncs in flight at most. */
const BACKGROUND_SYNCS = 2;

/** Open descriptors waiting for their fsync at most (well below any usual open-file limit). */
const MAX_HELD_OPEN = 128;

export class Flusher {
  /** Snapshot-relative paths whose data is durable. */
  readonly synced = new Set<string>();
  private readonly limit = pLimit(BACKGROUND_SYNCS);
  private readonly pending = new Set<Promise<void>>();
  /** Paths queued so far: a file handed over with its descriptor is not flushed by name again. */
  private readonly queued = new Set<string>();
  private stopped = false;
  private heldOpen = 0;

  /**
   * Queues an fsync of `file` (absolute), recorded under `relative` once done. A failed flush is only
   * left out of `synced`: publishing flushes that file again and reports the error there.
   */
  flush(relative: string, file: string): void {
    if (this.queued.has(relative)) return;
    this.queued.add(relative);
    this.queue(async () => {
      if (this.stopped) return;
      await syncFileAt(file);
      this.synced.add(relative);
    });
  }

  /**
   * Like `flush`, for a file just renamed into place whose descriptor `fd` is still open: the flusher
   * owns the descriptor from here and closes it in every case (also when the run stops first).
   */
  flushOpen(relative: string, file: string, fd: number): void {
    if (this.stopped || this.heldOpen >= MAX_HELD_OPEN || this.queued.has(relative)) {
      void closeDescriptor(fd).catch(() => undefined);
      this.flush(relative, file);
      return;
    }
    this.queued.add(relative);
    this.heldOpen++;
    this.queue(async () => {
      try {
        if (this.stopped) return;
        await syncDescriptor(fd);
        this.synced.add(relative);
      } finally {
        this.heldOpen--;
        await closeDescriptor(fd);
      }
    });
  }

  /** Waits for the flushes under way; with `stop`, queued ones are skipped (the run is ending). */
  async settle(stop = false): Promise<void> {
    if (stop) this.stopped = true;
    await Promise.all([...this.pending]);
  }

  private queue(task: () => Promise<void>): void {
    const done = this.limit(task)
      .catch(() => undefined)
      .finally(() => this.pending.delete(done));
    this.pending.add(done);
  }
}
