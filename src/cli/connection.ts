/**
 * Connection settings shared by every command that talks to the service. Flags win over environment
 * variables; the token comes only from AIRT_TOKEN or --token-file, never a flag, because argv is
 * visible to every user of the machine.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Argv } from 'yargs';
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
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new UsageError(`--base-url is not a URL: ${JSON.stringify(baseUrl)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`--base-url must be http:// or https://, got ${parsed.protocol}`);
  }
  if (parsed.username || parsed.password) {
    throw new UsageError('--base-url must not embed credentials; use AIRT_TOKEN or --token-file.');
  }
  const org = args.org ?? io.env.AIRT_ORG ?? '';
  const workspace = args.workspace ?? io.env.AIRT_WORKSPACE ?? '';
  if (needs.org && !org) throw new UsageError('No organization: pass --org SLUG or set AIRT_ORG.');
  if (needs.workspace && !workspace) {
    throw new UsageError('No workspace: pass --workspace SLUG or set AIRT_WORKSPACE.');
  }
  const token = readToken(args['token-file'], io);
  if (needs.token && !token) {
    throw new UsageError('No access token: set AIRT_TOKEN or pass --token-file FILE.');
  }
  return { baseUrl: baseUrl.replace(/\/+$/, ''), org, workspace, token };
}

function readToken(tokenFile: string | undefined, io: Pick<CliIO, 'env' | 'cwd'>): string | undefined {
  if (tokenFile) {
    let text: string;
    try {
      text = readFileSync(path.resolve(io.cwd, tokenFile), 'utf8');
    } catch (error) {
      throw new UsageError(`Cannot read --token-file ${tokenFile}: ${(error as Error).message}`);
    }
    const token = text.trim();
    if (!token) throw new UsageError(`--token-file ${tokenFile} is empty.`);
    return token;
  }
  const fromEnv = io.env.AIRT_TOKEN?.trim();
  return fromEnv ? fromEnv : undefined;
}
