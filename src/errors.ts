/**
 * Expected failures carry their process exit code, so the CLI's single error boundary can report them
 * as one clear line (no stack trace) and exit with the right status:
 * 0 ok · 1 failure · 2 usage error · 3 partial result · 4 a gate tripped.
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, partial: 3, gate: 4 } as const;
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
