/**
 * Connection settings shared by every command that talks to the service. Flags win over environment
 * variables; the token comes only from AIRT_TOKEN or --token-file, never a flag, because argv is
 * visible to every user of the machine.
 */
import path from 'node:path';
import type { Argv } from 'yargs';
import { normalizeBaseUrl, readToken } from '../api/connection-settings.js';
import { UsageError } from '../errors.js';
import type { CliIO } from './io.js';

export interface ConnectionArgs {
  'base-url'?: string | undefined;
  org?: string | undefined;
  workspace?: string | undefined;
  'token-file'?: string | undefined;
}

export interface Connection {
  baseUrl: string;
  org: string;
  workspace: string;
  /** Absent only when a command does not need one (GET /api/v1/config). */
  token: string | undefined;
}

export function withConnectionOptions<T>(y: Argv<T>): Argv<T & ConnectionArgs> {
  return y
    .option('base-url', { type: 'string', describe: 'Service base URL [env AIRT_BASE_URL]' })
    .option('org', { type: 'string', describe: 'Organization slug [env AIRT_ORG]' })
    .option('workspace', { type: 'string', describe: 'Workspace slug [env AIRT_WORKSPACE]' })
    .option('token-file', {
      type: 'string',
      describe: 'File holding the access token [default: env AIRT_TOKEN]',
    });
}

export interface ConnectionNeeds {
  org?: boolean;
  workspace?: boolean;
  token?: boolean;
}

export function resolveConnection(
  args: ConnectionArgs,
  io: Pick<CliIO, 'env' | 'cwd'>,
  needs: ConnectionNeeds = { org: true, workspace: true, token: true },
): Connection {
  const baseUrl = args['base-url'] ?? io.env.AIRT_BASE_URL;
  if (!baseUrl) throw new UsageError('No service address: pass --base-url URL or set AIRT_BASE_URL.');
  // The library's one rule (no query string, no credentials); its InvalidOptionError is worded with
  // the CLI's flags at the error boundary (cli/option-names.ts).
  const normalized = normalizeBaseUrl(baseUrl);
  const org = args.org ?? io.env.AIRT_ORG ?? '';
  const workspace = args.workspace ?? io.env.AIRT_WORKSPACE ?? '';
  if (needs.org && !org) throw new UsageError('No organization: pass --org SLUG or set AIRT_ORG.');
  if (needs.workspace && !workspace) {
    throw new UsageError('No workspace: pass --workspace SLUG or set AIRT_WORKSPACE.');
  }
  const token = readToken({
    file: args['token-file'] === undefined ? undefined : path.resolve(io.cwd, args['token-file']),
    env: io.env.AIRT_TOKEN,
  });
  if (needs.token && !token) {
    throw new UsageError('No access token: set AIRT_TOKEN or pass --token-file FILE.');
  }
  return { baseUrl: normalized, org, workspace, token };
}
