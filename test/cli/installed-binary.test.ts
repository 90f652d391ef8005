/**
 * The installed binary (bin/airt-report.cjs over the compiled dist/), not the tsx entry the other CLI
 * tests spawn: what a user who ran `npm ci` or `npm link` actually executes.
 */
import { execFile, spawn } from 'node:child_process';
import { copyFile, mkdir, readdir, stat } from 'node:fs/promises';
import { get } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { FIXTURES } from '../warehouse/helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(ROOT, 'bin/airt-report.cjs');
const run = promisify(execFile);

async function newestMtime(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    newest = Math.max(newest, (await stat(path.join(entry.parentPath, entry.name))).mtimeMs);
  }
  return newest;
}

/** dist/ is built by `npm ci` (prepare); rebuild only when a source file is newer than it. */
async function ensureBuilt(): Promise<void> {
  const built = await stat(path.join(ROOT, 'dist/cli/main.js')).then(
    (s) => s.mtimeMs,
    () => 0,
  );
  if (built >= (await newestMtime(path.join(ROOT, 'src')))) return;
  await run(
    process.execPath,
    [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: ROOT,
    },
  );
}

/** Runs the binary with stdout read by a consumer that closes the pipe after its first chunk (`| head -1`). */
function runClosingEarly(
  args: string[],
): Promise<{ code: number | null; stderr: string; firstChunk: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let firstChunk = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.once('data', (chunk: Buffer) => {
      firstChunk = chunk.toString('utf8');
      child.stdout.destroy();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stderr, firstChunk }));
  });
}

describe('installed binary', () => {
  let db: string;

  beforeAll(async () => {
    await ensureBuilt();
    db = path.join(await makeTempDir('airt-bin-'), 'warehouse.duckdb');
    await run(process.execPath, [BIN, 'load', FIXTURES.first, '--db', db], { cwd: ROOT });
    // A rebuild (only when src/ is newer than dist/) takes tsc's time on a busy two-core machine.
  }, 180_000);

  it('stops quietly when the reader closes the pipe early (query … | head -1)', async () => {
    const result = await runClosingEarly([
      'query',
      'SELECT range AS n FROM range(300000)',
      '--db',
      db,
      '--format',
      'csv',
    ]);
    expect(result.firstChunk.startsWith('n\n')).toBe(true);
    expect(result.stderr).not.toMatch(/EPIPE|Unhandled|at .*\.js/u);
    expect(result.code).toBe(0);
  });

  it('prints its help', async () => {
    const result = await run(process.execPath, [BIN, '--help'], { cwd: ROOT });
    expect(result.stdout).toMatch(/^airt-report <command>/mu);
    for (const command of ['snapshot', 'load', 'query', 'report', 'run']) {
      expect(result.stdout).toContain(`airt-report ${command}`);
    }
  });

  it('runs a query to the end', async () => {
    const result = await run(
      process.execPath,
      [BIN, 'query', 'SELECT count(*) AS snapshots FROM snapshots', '--db', db, '--format', 'csv'],
      { cwd: ROOT },
    );
    expect(result.stdout).toBe('snapshots\n1\n');
    expect(result.stderr).toBe('');
  });

  /** Threads of `serve` started with `env`, counted once it has answered a page (its pool is running). */
  async function serveThreads(env: Record<string, string>): Promise<number> {
    const child = spawn(process.execPath, [BIN, 'serve', '--db', db, '--port', '0'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          out += chunk;
          const found = /http:\/\/127\.0\.0\.1:\d+\/\S*/u.exec(out);
          if (found) resolve(found[0]);
        });
        child.once('close', (code) => reject(new Error(`serve exited with ${code}`)));
      });
      await new Promise<void>((resolve, reject) =>
        get(url, (res) => res.resume().once('end', resolve)).once('error', reject),
      );
      return (await readdir(`/proc/${child.pid}/task`)).length;
    } finally {
      child.kill();
    }
  }

  it("runs libuv's thread pool with 8 threads, or the user's UV_THREADPOOL_SIZE", async () => {
    // Only the pool's size differs between these runs: the differences are its threads.
    const four = await serveThreads({ UV_THREADPOOL_SIZE: '4' });
    expect((await serveThreads({})) - four).toBe(4);
    expect((await serveThreads({ UV_THREADPOOL_SIZE: '2' })) - four).toBe(-2);
  });

  it('says in one line that dist/ must be built when it is missing', async () => {
    const bin = path.join(await makeTempDir('airt-bin-unbuilt-'), 'bin/airt-report.cjs');
    await mkdir(path.dirname(bin));
    await copyFile(BIN, bin);
    const failed = await run(process.execPath, [bin, '--version']).then(
      () => null,
      (error: unknown) => error as { code: number; stderr: string },
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toBe(
      'airt-report: dist/ is missing or incomplete; build it with `npm ci` or `npm run build`.\n',
    );
  });
});
