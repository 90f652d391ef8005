/**
 * `airt-report credits auto-refill --enabled|--no-enabled --threshold N --quantity N --monthly-cap N [--json]`
 *
 * Sets an organization's credit auto-refill (PUT /api/v1/org/{org}/credits/auto-refill). All four
 * settings are required and checked against the spec's bounds before anything is sent; the answer is
 * printed, and a missing payment method is called out on stderr.
 *
 * Exit codes: 0 the service holds the settings asked for · 3 it answered with other settings (each
 * named on stderr, asked vs held: "done, but not as asked", like a partial result) · 1 refused, or
 * outcome unknown (it may or may not have applied them; sending the same settings again is safe and
 * shows what it holds) · 130/143 interrupted, which while the PUT is in flight is an unknown outcome too.
 */
import { abortExitCode, CliError, interruptionText, PartialResultError, UsageError } from '../../errors.js';
import { formatRetryEvent } from '../../api/retry.js';
import type { OutcomeUnknownError } from '../../api/errors.js';
import type { ConfigureAutoRefillRequest } from '../../api/schemas.js';
import type { AutoRefillResult } from '../../triage/auto-refill.js';
import { defineCommand } from '../command.js';
import { resolveConnection, withConnectionOptions, type ConnectionArgs } from '../connection.js';
import type { CliIO } from '../io.js';

interface CreditsArgs extends ConnectionArgs {
  action: string;
  enabled?: boolean | undefined;
  threshold?: unknown;
  quantity?: unknown;
  'monthly-cap'?: unknown;
  json?: boolean | undefined;
}

export const creditsCommand = defineCommand<CreditsArgs>({
  command: 'credits <action>',
  describe:
    'Configure the organization\'s credits: "credits auto-refill --enabled --threshold N --quantity N --monthly-cap N"',
  builder: (y) =>
    withConnectionOptions(y)
      .positional('action', {
        type: 'string',
        demandOption: true,
        choices: ['auto-refill'],
        describe: 'What to configure',
      })
      .option('enabled', {
        type: 'boolean',
        describe: 'Turn auto-refill on (--enabled) or off (--no-enabled); required',
      })
      // `type: 'number'` labels them [number] in --help; `string: true` keeps the text as typed, so
      // validateAutoRefill can refuse `1e3` or `0x10` and quote it (yargs would turn them into 1000, 16).
      .option('threshold', {
        type: 'number',
        string: true,
        describe: 'Refill when the balance falls below this many credits (1000-1000000); required',
      })
      .option('quantity', {
        type: 'number',
        string: true,
        describe: 'Credit packs bought per refill (1-10); required',
      })
      .option('monthly-cap', {
        type: 'number',
        string: true,
        describe: 'At most this many refills per month (1-50); required',
      })
      .option('json', { type: 'boolean', describe: 'Print the result as JSON' })
      .example(
        '$0 credits auto-refill --enabled --threshold 5000 --quantity 2 --monthly-cap 10',
        'Turn auto-refill on',
      ),
  async run(args, io) {
    const [
      { validateAutoRefill },
      { configureAutoRefill },
      format,
      { terminalSafe },
      { isOutcomeUnknownError },
    ] = await Promise.all([
      import('../../triage/auto-refill-request.js'),
      import('../../triage/auto-refill.js'),
      import('../../triage/format-auto-refill.js'),
      import('../../triage/terminal-text.js'),
      import('../../api/errors.js'),
    ]);
    const request = validateAutoRefill({
      enabled: args.enabled,
      threshold: singleValue(args.threshold, '--threshold'),
      quantity: singleValue(args.quantity, '--quantity'),
      monthlyCap: singleValue(args['monthly-cap'], '--monthly-cap'),
    });
    const connection = resolveConnection(args, io, { org: true, workspace: false, token: true });
    const { createApiClient } = await import('../../api/client.js');
    const client = createApiClient({
      baseUrl: connection.baseUrl,
      token: connection.token,
      signal: io.signal,
      userAgentSuffix: 'credits',
      onRetry: (event) => io.stderr(`${formatRetryEvent(event)}\n`),
    });
    try {
      // Stopped before the PUT left (during the imports above): nothing was sent.
      io.signal.throwIfAborted();
      const result = await configureAutoRefill(client, connection.org, request).catch((error: unknown) => {
        throw isOutcomeUnknownError(error) ? outcomeUnknown(request, error, io) : error;
      });
      io.stdout(args.json ? format.formatAutoRefillJson(result) : format.formatAutoRefillTable(result));
      for (const warning of result.warnings) io.stderr(`Warning: ${warning}\n`);
      if (result.unknownKeys.length > 0) {
        io.stderr(
          `Note: the service sent fields this version does not know: ${result.unknownKeys.map((k) => terminalSafe(k, 100)).join(', ')}\n`,
        );
      }
      if (result.mismatches.length > 0) throw notAsAsked(request, result);
      return 0;
    } finally {
      await client.close();
    }
  },
});

/** The command that sends `request` again: `credits auto-refill --no-enabled --threshold 5000 …`. */
function sameCommand(request: ConfigureAutoRefillRequest): string {
  return (
    `airt-report credits auto-refill ${request.enabled ? '--enabled' : '--no-enabled'} ` +
    `--threshold ${request.threshold} --quantity ${request.quantity} --monthly-cap ${request.monthly_cap}`
  );
}

/**
 * The PUT may or may not have been applied: say so, and how to find out. The API has no GET for these
 * settings; sending the same ones again is safe (a PUT of all four) and its answer shows them. Ctrl-C
 * or SIGTERM while it was in flight exits 130/143 like any interrupted command, with the same advice.
 */
function outcomeUnknown(
  request: ConfigureAutoRefillRequest,
  error: OutcomeUnknownError,
  io: CliIO,
): CliError {
  const advice =
    `The service may or may not have applied the settings. To find out, run the same command again ` +
    `(${sameCommand(request)}, with the same connection settings): sending the same settings twice is ` +
    'safe, as the PUT sets all four and a repeat changes nothing more, and what it prints shows ' +
    'what the service holds (the API has no way to read them without setting them).';
  if (io.signal.aborted) {
    return new CliError(
      `${interruptionText(io.signal)} while the auto-refill settings were being sent (${error.request}): ` +
        `outcome unknown. ${advice}`,
      abortExitCode(io.signal),
      { cause: error },
    );
  }
  return new CliError(`${error.request}: outcome unknown — ${error.reason}. ${advice}`, undefined, {
    cause: error,
  });
}

/**
 * The service answered with settings other than those asked for (each named in a warning above): the
 * work is done but not as asked, so exit 3 (partial result), never 0 — a script must not take
 * "auto-refill off" for done while the service keeps it on and keeps buying credits.
 */
function notAsAsked(request: ConfigureAutoRefillRequest, result: AutoRefillResult): PartialResultError {
  const fields = result.mismatches.map((mismatch) => mismatch.field).join(', ');
  const stillOn = result.mismatches.some(
    (mismatch) => mismatch.field === 'enabled' && mismatch.held === true,
  );
  return new PartialResultError(
    `The service answered, but does not hold the settings asked for (${fields}; see the warnings above)` +
      (stillOn ? ': auto-refill is still ON and keeps buying credits' : '') +
      ". Check the organization's auto-refill in the service; sending the same settings again " +
      `(${sameCommand(request)}) is safe.`,
  );
}

/** yargs turns a repeated flag into an array; refuse it rather than pick one. */
function singleValue(value: unknown, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw new UsageError(`${flag} was given ${value.length} times; give it once.`);
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  throw new UsageError(`${flag} needs a value.`);
}
