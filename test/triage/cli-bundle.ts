/**
 * The CLI bundled once into a few plain .js files (esbuild, dependencies left external), for tests that
 * start it many times as a child process: the same source as `src/cli/main.ts`, but each start skips
 * tsx's per-module transform, which halves start-up time on a two-core machine. The bundle lives
 * under test-artifacts/ (inside the repository, so the external packages resolve from node_modules).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { CliOptions, CliRun } from '../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliBundle {
  spawn(args: readonly string[], options: CliOptions): { child: ChildProcess; finished: Promise<CliRun> };
  remove(): Promise<void>;
}

export async function bundleCli(): Promise<CliBundle> {
  const outdir = await mkdtemp(path.join(ROOT, 'test-artifacts', 'cli-bundle-'));
  await build({
    entryPoints: [path.join(ROOT, 'src', 'cli', 'main.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    splitting: true,
    packages: 'external',
    target: 'node20',
    outdir,
    logLevel: 'error',
  });
  const main = path.join(outdir, 'main.js');
  return {
    spawn(args, options) {
      const child = spawn(process.execPath, [main, ...args], {
        cwd: options.cwd ?? ROOT,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', ...options.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const finished = new Promise<CliRun>((resolve, reject) => {
        child.once('error', reject);
        child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
      });
      return { child, finished };
    },
    remove: () => rm(outdir, { recursive: true, force: true }),
  };
}
