/**
 * The CLI's shell: yargs parses, one command runs, and a single error boundary turns every failure
 * into one clear line on stderr and an exit code (see src/errors.ts). Stack traces only with --debug.
 */
import yargs from 'yargs';
import { EXIT, expectedExitCode, InterruptedError, STOP_SIGNALS, UsageError } from '../errors.js';
import { commands } from './commands/index.js';
import { cliMessage } from './option-names.js';
import { misusedBooleansMiddleware } from './boolean-flags.js';
import { processIO, type CliIO } from './io.js';
import { nearestKey } from '../nearest-name.js';
import { VERSION } from '../version.js';

export async function main(argv: readonly string[], io?: CliIO): Promise<number> {
  const controller = new AbortController();
  const effects = io ?? processIO(controller.signal);
  const stopListening = io ? undefined : abortOnStopSignals(controller);
  const debug = argv.includes('--debug') || argv.includes('--debug=true') || effects.env.AIRT_DEBUG === '1';
  let exitCode: number = EXIT.ok;
  try {
    let parser = yargs([...argv])
      .scriptName('airt-report')
      .version(VERSION)
      .option('debug', { type: 'boolean', describe: 'Print stack traces of unexpected errors', global: true })
      .strict()
      .strictCommands()
      .demandCommand(1, 'Name a command.')
      .recommendCommands()
      // Before validation, so `--no-dry-run=yes` is refused as a misused yes/no option, not as an
      // unknown argument; and before any handler, so a misread `--dry-run=yes` never runs the command.
      .middleware(misusedBooleansMiddleware(argv), true)
      .wrap(Math.min(110, process.stdout.columns || 110))
      // yargs prints help and swallows the error when a handler rejects; rethrow so the boundary below
      // reports it instead (STYLE.md, "One error boundary").
      .fail((message, error) => {
        throw error ?? new UsageError(withTypoHints(message, argv));
      });
    for (const definition of commands) {
      parser = parser.command({
        command: definition.command,
        describe: definition.describe,
        builder: definition.builder,
        handler: async (args) => {
          exitCode = await definition.run(args, effects);
        },
      });
    }
    await parser.parseAsync();
    return exitCode;
  } catch (error) {
    return reportError(error, effects, debug, commandNameIn(argv));
  } finally {
    stopListening?.();
  }
}

/**
 * Ctrl-C (SIGINT) and SIGTERM (cron, systemd, Kubernetes, CI runners) take the same path: the command's
 * AbortSignal is aborted with an InterruptedError, long work stops cleanly, and the error boundary exits
 * 128 + the signal's number (130, 143). `once`: a second signal of the same kind kills at once, as usual.
 * Returns the function that stops listening.
 */
function abortOnStopSignals(controller: AbortController): () => void {
  const handlers = STOP_SIGNALS.map((name) => ({
    name,
    stop: (): void => controller.abort(new InterruptedError(name)),
  }));
  for (const { name, stop } of handlers) process.once(name, stop);
  return () => {
    for (const { name, stop } of handlers) process.off(name, stop);
  };
}

/** The command the user named (first word of argv), so usage hints can point at its own help. */
function commandNameIn(argv: readonly string[]): string | undefined {
  const first = argv.find((arg) => !arg.startsWith('-'));
  return commands.find((definition) => definition.command.split(' ')[0] === first) ? first : undefined;
}

/**
 * Makes yargs' usage messages say what was wrong and what was probably meant: its command suggestion
 * alone ("Did you mean snapshot?") does not say the command is unknown, and it suggests nothing for a
 * mistyped option, which with a required option reads as "Missing required argument: db".
 */
function withTypoHints(message: string, argv: readonly string[]): string {
  const recommended = /^Did you mean (\S+)\?$/.exec(message);
  if (recommended) {
    const typed = argv.find((arg) => !arg.startsWith('-')) ?? '';
    return `Unknown command: ${typed}. Did you mean ${recommended[1]}?`;
  }
  const known = knownOptions(commandNameIn(argv));
  const hints = typedOptions(argv)
    // yargs also accepts --base-url as --baseUrl.
    .filter((name) => !known.has(name) && !known.has(name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)))
    .flatMap((name) => {
      const closest = nearestKey(name, known);
      return closest === undefined ? [] : [{ typed: name, closest }];
    });
  const text = dedupeUnknownArguments(message);
  if (hints.length === 0) return text;
  return `${text}. Did you mean ${hints.map((h) => `--${h.closest} instead of --${h.typed}`).join(', ')}?`;
}

/** yargs lists a kebab-case option twice ("bse-url, bseUrl"); keep the form the user typed. */
function dedupeUnknownArguments(message: string): string {
  const match = /^(Unknown arguments?): (.*)$/.exec(message);
  if (!match) return message;
  const names = (match[2] ?? '').split(', ');
  const kebab = new Set(names.filter((n) => n.includes('-')).map(camelCase));
  const kept = names.filter((n) => !kebab.has(n));
  return `Unknown argument${kept.length === 1 ? '' : 's'}: ${kept.join(', ')}`;
}

function camelCase(name: string): string {
  return name.replace(/-(.)/g, (_, c: string) => c.toUpperCase());
}

/** Option names the user typed (`--dbb x`, `--dbb=x`, `-x`), up to a `--` that ends the options. */
function typedOptions(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end))
    .filter((arg) => /^--?[^-]/.test(arg))
    .map((arg) => arg.replace(/^--?/, '').split('=')[0] ?? '')
    .map((name) => name.replace(/^no-/, ''));
}

/** The options of `command` (or only the global ones), as its builder declares them; positionals left out. */
function knownOptions(command: string | undefined): Set<string> {
  const known = new Set(['help', 'version', 'debug']);
  const definition = commands.find((d) => d.command.split(' ')[0] === command);
  if (!definition) return known;
  const positionals = new Set([...definition.command.matchAll(/[<[]([^\]>.]+)/g)].map((m) => m[1]));
  // getOptions() is public on the yargs instance but missing from its type declarations.
  const parser = definition.builder(yargs([])) as unknown as {
    getOptions(): { key: Record<string, unknown> };
  };
  for (const name of Object.keys(parser.getOptions().key)) if (!positionals.has(name)) known.add(name);
  return known;
}

/**
 * DuckDB's words for a database file whose bytes changed under it (a block's checksum differs): met
 * while a command reads, not when it opens the file (opening reads only the catalog). Not a bug in
 * airt-report, so not an "Unexpected error": what happened, and what to do.
 */
export function damagedDatabaseMessage(message: string): string | undefined {
  if (!/Corrupt database file|does not match stored checksum/i.test(message)) return undefined;
  return (
    `The database file is damaged: its bytes changed after DuckDB wrote them (${message.split('\n')[0]}). ` +
    'Restore it from a backup, or build a new one by loading the snapshots again ' +
    '(airt-report load SNAPSHOT_DIR… --db NEW_FILE).'
  );
}

function reportError(error: unknown, io: CliIO, debug: boolean, command: string | undefined): number {
  // The API client's errors are the library's, not CliErrors, but expected all the same.
  const expected = expectedExitCode(error);
  if (expected !== undefined && error instanceof Error) {
    io.stderr(`airt-report: ${cliMessage(error)}\n`);
    if (error instanceof UsageError) {
      io.stderr(`Run airt-report${command === undefined ? '' : ` ${command}`} --help for usage.\n`);
    }
    if (debug && error.stack) io.stderr(`${error.stack}\n`);
    return expected;
  }
  const message = error instanceof Error ? error.message : String(error);
  const damaged = damagedDatabaseMessage(message);
  if (damaged !== undefined) {
    io.stderr(`airt-report: ${damaged}\n`);
    if (debug && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
    return EXIT.failure;
  }
  io.stderr(`airt-report: Unexpected error: ${message}\n`);
  if (debug && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
  else io.stderr('Run again with --debug for the stack trace.\n');
  return EXIT.failure;
}

/**
 * The process entry point shared by the installed binary (bin/airt-report.cjs) and `tsx src/cli/main.ts`,
 * so both stop the same way. A reader that stops early (`airt-report query … | head`) closes the pipe:
 * not an error worth a stack trace. Stop quietly; any other stdout failure is still reported.
 *
 * stderr carries only diagnostics (progress, warnings), never the data a command produces: a reader
 * of them that goes away (`load … 2>&1 >/dev/null | head -1`) must not stop the work they describe,
 * and did, with exit 1, no message, and a load's temp database left behind. The command carries on
 * and exits as it would have; what it had left to say on stderr is dropped.
 */
export async function runCli(argv: readonly string[]): Promise<void> {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok);
  });
  process.stderr.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  process.exitCode = await main([...argv]);
}

const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (invokedDirectly) await runCli(process.argv.slice(2));
