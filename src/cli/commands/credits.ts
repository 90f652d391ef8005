/**
 * `airt-report credits auto-refill --enabled|--no-enabled --threshold N --quantity N --monthly-cap N [--json]`
 *
 * Sets an organization's credit auto-refill (PUT /api/v1/org/{org}/credits/auto-refill). All four
 * settings are required and checked against the spec's bounds before anything is sent; the answer is
 * printed, and a missing payment method or a disabled reason is called out on stderr.
 */
import { UsageError } from '../../errors.js';
import { formatRetryEvent } from '../../api/retry.js';
import { defineCommand } from '../command.js';
import { resolveConnection, withConnectionOptions, type ConnectionArgs } from '../connection.js';

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
    const [{ validateAutoRefill }, { configureAutoRefill }, format, { terminalSafe }] = await Promise.all([
      import('../../triage/auto-refill-request.js'),
      import('../../triage/auto-refill.js'),
      import('../../triage/format-auto-refill.js'),
      import('../../triage/terminal-text.js'),
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
      const result = await configureAutoRefill(client, connection.org, request);
      io.stdout(args.json ? format.formatAutoRefillJson(result) : format.formatAutoRefillTable(result));
      for (const warning of result.warnings) io.stderr(`Warning: ${warning}\n`);
      if (result.unknownKeys.length > 0) {
        io.stderr(
          `Note: the service sent fields this version does not know: ${result.unknownKeys.map((k) => terminalSafe(k, 100)).join(', ')}\n`,
        );
      }
      return 0;
    } finally {
      await client.close();
    }
  },
});

/** yargs turns a repeated flag into an array; refuse it rather than pick one. */
function singleValue(value: unknown, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw new UsageError(`${flag} was given ${value.length} times; give it once.`);
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  throw new UsageError(`${flag} needs a value.`);
}
