/**
 * The CLI's side effects in one injectable value: where data and diagnostics go, the environment it
 * reads, and whether stderr is a terminal (progress bars) — so tests run commands in-process with
 * recording effects instead of spawning processes.
 */
export interface CliIO {
  /** Data: what the command produces (paths, tables, JSON). */
  stdout: (text: string) => void;
  /**
   * Data like `stdout`, resolving once the consumer can take more (a slow pipe holds a long output
   * back instead of filling memory). Absent: `stdout` is used.
   */
  writeStdout?: (text: string) => Promise<void>;
  /** Diagnostics: progress, warnings, errors. */
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  stderrIsTTY: boolean;
  /** Whether stdout is a terminal (data shown there, not kept): unset means not. */
  stdoutIsTTY?: boolean;
  /** Aborted on SIGINT/SIGTERM; long work stops cleanly and keeps what it can resume from. */
  signal: AbortSignal;
}

export function processIO(signal: AbortSignal = new AbortController().signal): CliIO {
  return {
    stdout: (text) => void process.stdout.write(text),
    writeStdout: (text) => writeWithBackpressure(process.stdout, text),
    stderr: (text) => void process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    signal,
  };
}

/**
 * Writes `text` and, when the stream's buffer is full, waits for it to drain, or for the stream to
 * close or fail (a closed pipe: the EPIPE guard in main.ts ends the process).
 */
function writeWithBackpressure(
  stream: NodeJS.WritableStream & { writableNeedDrain?: boolean },
  text: string,
): Promise<void> {
  if (stream.write(text)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      stream.off('error', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
    stream.on('error', done);
  });
}

/** An in-memory CliIO for tests: everything written is kept. */
export function recordingIO(overrides: Partial<CliIO> = {}): CliIO & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    stdout: (text) => void out.push(text),
    stderr: (text) => void err.push(text),
    env: {},
    cwd: process.cwd(),
    stderrIsTTY: false,
    signal: new AbortController().signal,
    ...overrides,
    out,
    err,
  };
}
