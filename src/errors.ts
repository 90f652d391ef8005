/**
 * Expected failures carry their process exit code, so the CLI's single error boundary can report them
 * as one clear line (no stack trace) and exit with the right status:
 * 0 ok · 1 failure · 2 usage error · 3 partial result · 4 a gate tripped · 130 interrupted (Ctrl-C,
 * the shell's 128 + SIGINT).
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, partial: 3, gate: 4, interrupted: 130 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure the user can act on: the message says what happened and, ideally, what to do. */
export class CliError extends Error {
  override readonly name: string = 'CliError';
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.failure,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Wrong flags or arguments: exit code 2. */
export class UsageError extends CliError {
  override readonly name = 'UsageError';
  constructor(message: string) {
    super(message, EXIT.usage);
  }
}

/** The work finished but not all of it: still usable, exit code 3. */
export class PartialResultError extends CliError {
  override readonly name = 'PartialResultError';
  constructor(message: string) {
    super(message, EXIT.partial);
  }
}

export function isCliError(error: unknown): error is CliError {
  return error instanceof CliError;
}

/**
 * The exit code for work stopped by an aborted `signal`: the abort reason's own when it is a CliError
 * (the CLI aborts with 130 on SIGINT, 1 on SIGTERM), else 130 — an abort is the user stopping it.
 */
export function abortExitCode(signal: AbortSignal): ExitCode {
  return signal.reason instanceof CliError ? signal.reason.exitCode : EXIT.interrupted;
}
