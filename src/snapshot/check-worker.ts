/**
 * The body of a validation worker (see check-pool.ts): makes one stored file durable and validates it,
 * off the main thread, so the thread that drives the requests never waits on a disk flush or a schema.
 * The validation is checkBody itself, so a result (issues, messages, unknown keys) is the same as on
 * the main thread. The fsync is a plain synchronous call: on this thread it holds neither the event
 * loop of the requests nor a slot of the libuv thread pool that their file writes use.
 */
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { checkBody } from './check-body.js';
import type { CheckJob, CheckReply } from './check-pool.js';

function syncFile(file: string): void {
  const fd = openSync(file, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function failure(id: number, error: unknown): CheckReply {
  const fields = error as NodeJS.ErrnoException;
  return {
    id,
    ok: false,
    message: error instanceof Error ? error.message : String(error),
    ...(typeof fields?.code === 'string' ? { code: fields.code } : {}),
    ...(typeof fields?.syscall === 'string' ? { syscall: fields.syscall } : {}),
    ...(typeof fields?.path === 'string' ? { path: fields.path } : {}),
  };
}

const port = parentPort;
if (!port) throw new Error('check-worker.js runs as a worker thread (see check-pool.ts).');
port.on('message', (job: CheckJob) => {
  void (async (): Promise<CheckReply> => {
    try {
      if (job.sync) syncFile(job.file);
      const check = await checkBody(job.kind, job.file, job.bytes, job.content);
      return { id: job.id, ok: true, check, synced: job.sync };
    } catch (error) {
      return failure(job.id, error);
    }
  })().then((reply) => port.postMessage(reply));
});
