/**
 * Expected failures carry their process exit code, so the CLI's single error boundary can report them
 * as one clear line (no stack trace) and exit with the right status:
 * 0 ok · 1 failure · 2 usage error · 3 partial result · 4 a gate tripped · 130 interrupted (Ctrl-C,
 * the shell's 128 + SIGINT) · 143 terminated (SIGTERM from cron, systemd, Kubernetes, CI: 128 + 15).
 */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  partial: 3,
  gate: 4,
  interrupted: 130,
  terminated: 143,
} as const;
/** One of the EXIT codes. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The signals that stop the CLI gracefully (long work stops cleanly) instead of killing it. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** Each stop signal exits like a shell command it killed would: 128 + the signal's number. */
const STOP_SIGNAL_EXIT: Record<StopSignal, ExitCode> = { SIGINT: EXIT.interrupted, SIGTERM: EXIT.terminated };

/**
 * A message that names the settings it is about through `name`, so one error reads right for every
 * caller: the library spells an option `options.baseUrl`, the CLI `--base-url / AIRT_BASE_URL`, a run
 * config `connection.base_url`. Errors built from one offer `describeWith(name)`.
 */
export type OptionWording = (name: (option: string) => string) => string;

/** How library messages name a caller's option: `options.concurrency`. */
export function libraryOptionName(option: string): string {
  return `options.${option}`;
}

/** The options the API client's errors point at, in plain words (see describedOptionName). */
const DESCRIBED_OPTIONS: Record<string, string> = {
  baseUrl: "the service's base URL",
  token: 'the access token',
  tokenFile: 'the access token file',
};

/**
 * How text that outlives the call names a setting: in plain words, no interface's spelling
 * (`baseUrl` → "the service's base URL", `token` → "the access token"). Data written to disk (a
 * manifest's failed requests) is read later by the library, the CLI and a run alike, so it says what
 * to check rather than `options.baseUrl`, `--base-url` or `connection.base_url`. Other options:
 * `trialsLimit` → "the trials limit setting".
 */
export function describedOptionName(option: string): string {
  const known = DESCRIBED_OPTIONS[option];
  if (known !== undefined) return known;
  const words = option
    .replace(/([a-z0-9])([A-Z])/gu, '$1 $2')
    .replace(/[_-]+/gu, ' ')
    .toLowerCase();
  return `the ${words} setting`;
}

/**
 * The message of `error` with option names spelled by `name`, for errors that offer `describeWith`
 * (InvalidOptionError, the API client's errors); otherwise the message as it is.
 */
export function describeError(error: Error, name: (option: string) => string): string {
  const wording = (error as Partial<{ describeWith: (name: (option: string) => string) => string }>)
    .describeWith;
  return typeof wording === 'function' ? wording.call(error, name) : error.message;
}

/**
 * The exit code of an expected failure: a CliError's, or that of a library error carrying one of the
 * EXIT codes (the API client's errors, which are not CliErrors). Undefined for anything unexpected.
 */
export function expectedExitCode(error: unknown): ExitCode | undefined {
  if (error instanceof CliError) return error.exitCode;
  const code = error instanceof Error ? (error as { exitCode?: unknown }).exitCode : undefined;
  return (Object.values(EXIT) as unknown[]).includes(code) ? (code as ExitCode) : undefined;
}

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

/**
 * Wrong flags or arguments: exit code 2. Built from a wording when the message names an option or a
 * next step, so the CLI can word it with its flags (`describeWith`, as WordedError).
 */
export class UsageError extends CliError {
  override readonly name: string = 'UsageError';
  private readonly wording: OptionWording | undefined;
  constructor(message: string | OptionWording) {
    super(typeof message === 'string' ? message : message(libraryOptionName), EXIT.usage);
    this.wording = typeof message === 'string' ? undefined : message;
  }
  /** The message with every option name spelled by `name` (the CLI passes its flag spelling). */
  describeWith(name: (option: string) => string): string {
    return this.wording === undefined ? this.message : this.wording(name);
  }
}

/**
 * A library option with a value that cannot be used. `option` is the option's name as the library
 * call spells it (`concurrency`, `baseUrl`); the message names it `options.concurrency`. The CLI shows
 * the same problem with its flag (`--concurrency`) through `describeWith`, so the library never speaks
 * in flags and the CLI never re-words the problem.
 */
export class InvalidOptionError extends UsageError {
  override readonly name = 'InvalidOptionError';
  constructor(
    /** The option's name in the library call, e.g. `concurrency`. */
    readonly option: string,
    private readonly describe: OptionWording,
  ) {
    super(describe(libraryOptionName));
  }
  /** The message with every option name spelled by `name` (the CLI passes its flag spelling). */
  override describeWith(name: (option: string) => string): string {
    return this.describe(name);
  }
}

/**
 * An expected failure whose message names a caller's options through `name` (see OptionWording): the
 * library's message says `options.force`, the CLI shows `--force` through `describeWith`. Wordings that
 * point to a step the caller takes next (load the snapshot first, resume it) word that step for the
 * caller too: `wordsFlags(name)` tells them apart, so the library's message names no CLI command.
 */
export class WordedError extends CliError {
  override readonly name: string = 'WordedError';
  constructor(
    private readonly describe: OptionWording,
    exitCode: ExitCode = EXIT.failure,
    options?: { cause?: unknown },
  ) {
    super(describe(libraryOptionName), exitCode, options);
  }
  /** The message with every option name spelled by `name` (the CLI passes its flag spelling). */
  describeWith(name: (option: string) => string): string {
    return this.describe(name);
  }
}

/**
 * Whether `name` spells options as command-line flags (the CLI's wording), so a message may point to a
 * command; the library's message (`options.x`) and a run config's (`database`) name none.
 */
export function wordsFlags(name: (option: string) => string): boolean {
  return name('option').startsWith('--');
}

/** The work finished but not all of it: still usable, exit code 3. */
export class PartialResultError extends CliError {
  override readonly name = 'PartialResultError';
  constructor(message: string) {
    super(message, EXIT.partial);
  }
}

/**
 * The abort reason the CLI gives its AbortSignal when a stop signal arrives: names the signal and
 * carries its exit code, so every command stops the same way whichever signal it was.
 */
export class InterruptedError extends CliError {
  override readonly name = 'InterruptedError';
  constructor(readonly signalName: StopSignal) {
    super(`Interrupted by ${signalName}`, STOP_SIGNAL_EXIT[signalName]);
  }
}

/**
 * The exit code for work stopped by an aborted `signal`: the abort reason's own when it is a CliError
 * (the CLI aborts with 130 on SIGINT, 143 on SIGTERM), else 130 — an abort is the user stopping it.
 */
export function abortExitCode(signal: AbortSignal): ExitCode {
  return signal.reason instanceof CliError ? signal.reason.exitCode : EXIT.interrupted;
}

/** What stopped the work, to open a message: "Interrupted by SIGTERM", or "Interrupted" for other aborts. */
export function interruptionText(signal: AbortSignal): string {
  return signal.reason instanceof InterruptedError ? signal.reason.message : 'Interrupted';
}
