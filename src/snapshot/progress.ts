/**
 * Progress of a snapshot on stderr: requests done/total, bytes, retries, failures and an ETA. On a
 * terminal it is a redrawn bar (cli-progress); otherwise (CI logs, pipes) a plain line every few
 * seconds, because a redrawn bar turns a log file into noise. `quiet` silences both.
 *
 * The total grows while the snapshot runs (pages, then projects, then trial lists are discovered), so
 * the ETA is a rate estimate over what is known so far.
 */
import cliProgress from 'cli-progress';
import { formatBytes } from './disk-usage.js';

/** Requests done of the total, bytes, retries, failures and reused files so far. */
export interface ProgressCounts {
  done: number;
  total: number;
  bytes: number;
  retries: number;
  failed: number;
  reused: number;
}

/** What the snapshot pipeline reports; every method is cheap and synchronous. */
export interface ProgressReporter {
  /** More requests became known (e.g. the trial lists of a summary). */
  plan(count: number): void;
  /** A request finished with a stored body of `bytes`. */
  done(bytes: number): void;
  /** A planned request was satisfied without the network (--resume, --since). */
  reused(bytes: number): void;
  /** A planned request failed for good. */
  failed(): void;
  retry(): void;
  counts(): ProgressCounts;
  /** Final line (plain mode) / bar teardown. Idempotent. */
  stop(): void;
}

/** Where and how createProgress reports. */
export interface ProgressOptions {
  /** Writes one diagnostic chunk (CliIO.stderr). */
  write: (text: string) => void;
  isTTY: boolean;
  quiet: boolean;
  /** The terminal the bar redraws on; required for the bar, ignored otherwise. */
  stream?: NodeJS.WritableStream | undefined;
  /** Seconds between plain lines (default 5). */
  intervalSeconds?: number;
  /** Monotonic clock in ms for the elapsed time shown; default Date.now. */
  monotonicNow?: () => number;
}

function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  if (seconds < 90) return `${Math.round(seconds)}s`;
  return `${Math.floor(seconds / 60)}m${String(Math.round(seconds % 60)).padStart(2, '0')}s`;
}

/** One plain progress line, e.g. `snapshot: 120/400 requests, 3.2 MiB, 4 retries, 0 failed, ETA 12s`. */
export function formatProgressLine(counts: ProgressCounts, elapsedSeconds: number): string {
  const { done, total, bytes, retries, failed, reused } = counts;
  const rate = elapsedSeconds > 0 ? done / elapsedSeconds : 0;
  const eta = done >= total ? 0 : rate > 0 ? (total - done) / rate : Number.POSITIVE_INFINITY;
  const reusedPart = reused > 0 ? `, ${reused} reused` : '';
  return (
    `snapshot: ${done}/${total} requests${reusedPart}, ${formatBytes(bytes)}, ${retries} retries, ` +
    `${failed} failed, ETA ${formatSeconds(eta)}\n`
  );
}

/**
 * A progress reporter for takeSnapshot: a bar on a terminal, periodic lines otherwise, nothing when quiet.
 */
export function createProgress(options: ProgressOptions): ProgressReporter {
  const now = options.monotonicNow ?? Date.now;
  const startedAt = now();
  const counts: ProgressCounts = { done: 0, total: 0, bytes: 0, retries: 0, failed: 0, reused: 0 };
  let stopped = false;
  let bar: cliProgress.SingleBar | undefined;
  let timer: NodeJS.Timeout | undefined;

  if (!options.quiet && options.isTTY && options.stream) {
    bar = new cliProgress.SingleBar(
      {
        stream: options.stream,
        format:
          'snapshot [{bar}] {value}/{total} requests | {size} | {retries} retries | {failed} failed | ETA {eta_formatted}',
        hideCursor: true,
        clearOnComplete: false,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(0, 0, { size: formatBytes(0), retries: 0, failed: 0 });
  } else if (!options.quiet) {
    timer = setInterval(
      () => options.write(formatProgressLine(counts, (now() - startedAt) / 1000)),
      (options.intervalSeconds ?? 5) * 1000,
    );
    timer.unref();
  }

  const redraw = (): void => {
    if (!bar) return;
    bar.setTotal(counts.total);
    bar.update(counts.done, {
      size: formatBytes(counts.bytes),
      retries: counts.retries,
      failed: counts.failed,
    });
  };

  return {
    plan(count) {
      counts.total += count;
      redraw();
    },
    done(bytes) {
      counts.done++;
      counts.bytes += bytes;
      redraw();
    },
    reused(bytes) {
      counts.done++;
      counts.reused++;
      counts.bytes += bytes;
      redraw();
    },
    failed() {
      counts.done++;
      counts.failed++;
      redraw();
    },
    retry() {
      counts.retries++;
      redraw();
    },
    counts: () => ({ ...counts }),
    stop() {
      if (stopped) return;
      stopped = true;
      if (timer) clearInterval(timer);
      if (bar) {
        redraw();
        bar.stop();
      } else if (!options.quiet) {
        options.write(formatProgressLine(counts, (now() - startedAt) / 1000));
      }
    },
  };
}
