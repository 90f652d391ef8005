/**
 * The body of a validation worker (see check-pool.ts): validates one stored file off the main thread,
 * so the thread that drives the requests never waits on a schema. The validation is checkBody itself,
 * so a result (issues, messages, unknown keys) is the same as on the main thread.
 */
import { parentPort } from 'node:worker_threads';
import { checkBody } from './check-body.js';
import type { CheckJob, CheckReply } from './check-pool.js';

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
      const check = await checkBody(job.kind, job.file, job.bytes, job.content);
      return { id: job.id, ok: true, check };
    } catch (error) {
      return failure(job.id, error);
    }
  })().then((reply) => port.postMessage(reply));
});
