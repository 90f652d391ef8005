/**
 * `airt-report config [--json]`: the service's public configuration (GET /api/v1/config) — which API
 * and app version it runs, how it is deployed, and which features are switched on. Needs only the
 * base URL: the operation is called without a token.
 */
import { formatRetryEvent } from '../../api/retry.js';
import { defineCommand } from '../command.js';
import { resolveConnection, withConnectionOptions, type ConnectionArgs } from '../connection.js';
import type { ConfigResponse } from '../../api/schemas.js';

interface ConfigArgs extends ConnectionArgs {
  json?: boolean | undefined;
}

/** The boolean feature flags of ConfigResponse, in the order they are printed. */
const FLAG_KEYS = [
  'account_defender_enabled',
  'airgapped',
  'credits_enabled',
  'email_configured',
  'feedback_diagnostics',
  'feedback_enabled',
  'integrations_enabled',
  'recaptcha_enabled',
  'slack_enabled',
] as const satisfies readonly (keyof ConfigResponse)[];

export const configCommand = defineCommand<ConfigArgs>({
  command: 'config',
  describe: "Show the service's API/app version, deployment mode and feature flags (GET /api/v1/config)",
  builder: (y) =>
    withConnectionOptions(y).option('json', {
      type: 'boolean',
      describe: 'Print the validated body as JSON',
    }),
  async run(args, io) {
    const connection = resolveConnection(args, io, { org: false, workspace: false, token: false });
    const [{ createApiClient }, { neutralizeControls }] = await Promise.all([
      import('../../api/client.js'),
      import('../../api/error-body.js'),
    ]);
    // No token is handed to the client: this operation never sends one.
    const client = createApiClient({
      baseUrl: connection.baseUrl,
      signal: io.signal,
      userAgentSuffix: 'config',
      onRetry: (event) => io.stderr(`${formatRetryEvent(event)}\n`),
    });
    try {
      const { value, unknownKeys } = await client.getConfig();
      if (args.json) io.stdout(`${JSON.stringify(value, null, 2)}\n`);
      else io.stdout(formatConfigTable(value, neutralizeControls));
      if (unknownKeys.length > 0) {
        io.stderr(
          `Note: the service sent fields this version of airt-report does not know: ` +
            `${unknownKeys.map(neutralizeControls).join(', ')}\n`,
        );
      }
      return 0;
    } finally {
      await client.close();
    }
  },
});

/**
 * Two aligned columns: versions, deployment mode and website, then every boolean flag (`-` when the
 * service did not report it). Service strings are shown with control characters neutralized.
 */
export function formatConfigTable(config: ConfigResponse, neutralize: (text: string) => string): string {
  const rows: [string, string][] = [
    ['api_version', neutralize(config.api_version)],
    ['app_version', neutralize(config.app_version)],
    ['deployment_mode', neutralize(config.deployment_mode)],
    ['website_url', neutralize(config.website_url)],
    ...FLAG_KEYS.map((key): [string, string] => {
      const flag = config[key];
      return [key, flag === undefined ? '-' : String(flag)];
    }),
  ];
  const width = Math.max(...rows.map(([key]) => key.length));
  return rows.map(([key, value]) => `${key.padEnd(width)}  ${value}\n`).join('');
}
