/**
 * Runs the CLI as a real child process (`node --import tsx src/cli/main.ts …`), for tests that need
 * process-level behaviour: exit codes from the real entry point, signals (SIGINT, SIGKILL), stdout
 * and stderr as separate streams. In-process tests should call `main(argv, recordingIO())` instead.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
// By location, not by name: `--import tsx` is resolved from the child's cwd, which may be a temp dir.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Added to a minimal environment (PATH, HOME, TZ=UTC); AIRT_* variables are not inherited. */
  env?: Record<string, string>;
  cwd?: string;
}

function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', ...extra };
}

/** Starts the CLI; the caller owns the process (kill it, await `finished`). */
export function spawnCli(
  args: readonly string[],
  options: CliOptions = {},
): { child: ChildProcess; finished: Promise<CliRun> } {
  const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: childEnv(options.env),
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
}

/** Runs the CLI to completion. */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  return spawnCli(args, options).finished;
}
