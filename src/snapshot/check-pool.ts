/**
 * A small pool of worker threads that validate stored bodies (checkBody) from their files, so the main
 * thread only drives requests: the snapshot sends here the bodies it does not hold in memory (trial
 * lists of megabytes, streamed from disk element by element); bodies still in memory are checked on
 * the main thread in slices, where the quick schema check costs less than a worker's start and copy.
 *
 * - The caller bounds how many jobs are outstanding (FileStore keeps at most `size`); jobs beyond a
 *   free worker wait in a queue here, in order.
 * - Results are checkBody's own (it runs in the worker), so issues and messages are the same as on the
 *   main thread; an I/O error comes back as an Error with the worker's message and errno fields.
 * - A worker that dies fails its job and every later one: the run stops rather than lose a check.
 * - Workers are started on the first job, never keep the process alive (unref), and end with close().
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { BodyCheck } from './check-body.js';
import type { FileKind } from './manifest.js';

/** Validation threads at most: the main thread and the service need the rest of a small machine. */
export const MAX_CHECK_THREADS = 2;

/** One file to check: `content` is its bytes when still in memory (copied to the worker). */
export interface CheckJob {
  id: number;
  kind: FileKind;
  file: string;
  bytes: number | undefined;
  content: Uint8Array | undefined;
}

export type CheckReply =
  | { id: number; ok: true; check: BodyCheck }
  | { id: number; ok: false; message: string; code?: string; syscall?: string; path?: string };

interface Pending {
  job: CheckJob;
  transfer: ArrayBuffer[];
  resolve: (check: BodyCheck) => void;
  reject: (error: Error) => void;
}

/**
 * Starts one worker: the compiled check-worker.js next to this module, or, when running from the
 * TypeScript sources (tsx, the tests), check-worker.ts behind a bootstrap that registers tsx in the
 * worker first (a worker does not inherit the loader hooks of the thread that starts it).
 */
function spawnWorker(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./check-worker.js', import.meta.url));
  // tsx's ESM entry: `register()` installs its hooks in the thread that calls it.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href.replace(
    /\.cjs$/,
    '.mjs',
  );
  const script = new URL('./check-worker.ts', import.meta.url).href;
  const bootstrap = `import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(script)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`));
}

function replyError(reply: Extract<CheckReply, { ok: false }>): Error {
  const error: NodeJS.ErrnoException = new Error(reply.message);
  if (reply.code !== undefined) error.code = reply.code;
  if (reply.syscall !== undefined) error.syscall = reply.syscall;
  if (reply.path !== undefined) error.path = reply.path;
  return error;
}

export class CheckPool {
  /** How many workers the pool runs at most. */
  readonly size: number;
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Pending>();
  private readonly queue: Pending[] = [];
  private started = 0;
  private broken: Error | undefined;
  private closed = false;
  private nextId = 0;

  constructor(size = Math.max(1, Math.min(MAX_CHECK_THREADS, availableParallelism() - 1))) {
    this.size = size;
  }

  /** Validates one stored file on a worker. */
  run(job: Omit<CheckJob, 'id'>): Promise<BodyCheck> {
    if (this.broken) return Promise.reject(this.broken);
    if (this.closed) return Promise.reject(new Error('The validation pool was closed.'));
    // A fresh, exactly sized copy is sent (and its buffer moved): a received chunk may be a view
    // into a larger buffer that must neither be copied whole nor taken from the caller.
    const content = job.content?.slice();
    const full: CheckJob = { ...job, content, id: this.nextId++ };
    return new Promise<BodyCheck>((resolve, reject) => {
      this.queue.push({
        job: full,
        transfer: content ? [content.buffer] : [],
        resolve,
        reject,
      });
      this.dispatch();
    });
  }

  /**
   * Starts every worker now instead of on the first jobs: a worker takes a moment to load, and the
   * first bodies arrive soon after the run starts.
   */
  warmUp(): void {
    while (!this.closed && !this.broken && this.started < this.size) this.idle.push(this.startWorker());
  }

  /** Ends the workers; jobs not answered yet fail. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.fail(new Error('The validation pool was closed.'));
    const workers = [...this.idle, ...this.busy.keys()];
    this.idle.length = 0;
    this.busy.clear();
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.started < this.size ? this.startWorker() : undefined);
      if (!worker) return;
      const pending = this.queue.shift()!;
      this.busy.set(worker, pending);
      worker.postMessage(pending.job, pending.transfer);
    }
  }

  private startWorker(): Worker {
    this.started++;
    const worker = spawnWorker();
    worker.unref();
    worker.on('message', (reply: CheckReply) => {
      const pending = this.busy.get(worker);
      if (!pending || pending.job.id !== reply.id) return;
      this.busy.delete(worker);
      this.idle.push(worker);
      if (reply.ok) pending.resolve(reply.check);
      else pending.reject(replyError(reply));
      this.dispatch();
    });
    const died = (error: Error): void => {
      if (this.closed) return;
      this.broken ??= error;
      this.fail(this.broken);
    };
    worker.on('error', died);
    // A worker that ends without an 'error' (out of memory, process.exit) must not leave a job waiting.
    worker.on('exit', (code) => died(new Error(`A validation worker exited (code ${code}) mid-run.`)));
    return worker;
  }

  /** Rejects every job in flight or queued. */
  private fail(error: Error): void {
    for (const pending of [...this.busy.values(), ...this.queue.splice(0)]) pending.reject(error);
    this.busy.clear();
  }
}
