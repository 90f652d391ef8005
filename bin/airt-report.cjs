#!/usr/bin/env node
// Entry point of the installed CLI: the compiled TypeScript lives in dist/ (built by `npm run build`,
// which `npm ci` runs through the prepare script). runCli is the same entry `tsx src/cli/main.ts`
// uses (EPIPE guard included), so the installed binary and the tests behave alike.
//
// CommonJS on purpose: it runs before anything touches libuv's thread pool, whose size is read once,
// when the pool starts. An ES module entry is itself read through the pool, so setting the size there
// comes too late. A snapshot writes and fsyncs one file per response with 8 requests in flight; with
// the default 4 threads the file work queued behind fsyncs and requests waited for it (bench/snapshot:
// 0.86-0.88 of the trivial server's requests/s with 4 threads, 0.90-0.93 with 8). A user's own
// UV_THREADPOOL_SIZE is kept.
/* global process */
'use strict';
process.env.UV_THREADPOOL_SIZE ??= '8';
import('../dist/cli/main.js').then(
  ({ runCli }) => runCli(process.argv.slice(2)),
  (error) => {
    // A checkout that was never built (`npm ci` builds dist/ through prepare): one line, not a stack.
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    process.stderr.write(
      'airt-report: dist/ is missing or incomplete; build it with `npm ci` or `npm run build`.\n',
    );
    process.exitCode = 1;
  },
);
