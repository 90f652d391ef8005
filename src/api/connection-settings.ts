/**
 * Connection settings in one place: how the service address and the access token are checked and
 * read. The API client, the snapshot, the CLI's flags and the run config all go through here, so an
 * address is accepted or refused the same way whoever passes it (a query string is refused by all of
 * them), and a token is read from its file or the environment by one function.
 *
 * Problems are InvalidOptionErrors naming `baseUrl` / `token`: the library says `options.baseUrl`, the
 * CLI `--base-url`, a run config `connection.base_url` (see OptionWording in errors.ts).
 */
import { readFileSync } from 'node:fs';
import { InvalidOptionError, type OptionWording } from '../errors.js';
import { textSnippet } from './text-snippet.js';

/** Why `baseUrl` cannot be the service address (worded through `name`), or null when it can. */
export function baseUrlProblem(baseUrl: string): OptionWording | null {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return (name) => `${name('baseUrl')} is not a URL: ${JSON.stringify(textSnippet(baseUrl))}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return (name) => `${name('baseUrl')} must be http:// or https://, got ${url.protocol}`;
  }
  if (url.username || url.password) {
    return (name) => `${name('baseUrl')} must not embed credentials; use ${name('token')}.`;
  }
  if (url.search || url.hash) {
    return (name) => `${name('baseUrl')} must not carry a query string or fragment.`;
  }
  return null;
}

/**
 * The service address as requests are built from it: origin and path, no trailing slash. Throws an
 * InvalidOptionError (option `baseUrl`) for anything but a plain http(s) URL: no credentials, query
 * string or fragment.
 */
export function normalizeBaseUrl(baseUrl: string): string {
  const problem = baseUrlProblem(baseUrl);
  if (problem !== null) throw new InvalidOptionError('baseUrl', problem);
  const url = new URL(baseUrl);
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/**
 * A token that cannot be sent as a header value is refused up front, without repeating it; an empty
 * one counts as none. Throws an InvalidOptionError (option `token`).
 */
export function checkToken(token: string | undefined): string | undefined {
  if (token === undefined || token === '') return undefined;
  // Visible ASCII only: RFC 6750 bearer tokens are a subset, and this rules out header injection.
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new InvalidOptionError(
      'token',
      (name) =>
        'The access token contains spaces, line breaks or non-ASCII characters and cannot be sent. ' +
        `Check ${name('token')}.`,
    );
  }
  return token;
}

/** Where a token may come from: a file (wins) or an environment variable's value. */
export interface TokenSources {
  /** Path of a file holding the token (surrounding whitespace ignored). */
  file?: string | undefined;
  /** The option that named `file`, for messages (`tokenFile`; the CLI shows `--token-file`). */
  fileOption?: string;
  /** The environment's token (AIRT_TOKEN), used when no file is named. */
  env?: string | undefined;
}

/**
 * The token, read once: from `file` when one is named (an unreadable or empty file is an
 * InvalidOptionError naming `fileOption`), else from `env`; undefined when neither has one.
 */
export function readToken(sources: TokenSources): string | undefined {
  const option = sources.fileOption ?? 'tokenFile';
  if (sources.file !== undefined && sources.file !== '') {
    const file = sources.file;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new InvalidOptionError(
        option,
        (name) => `Cannot read ${name(option)} ${file}: ${(error as Error).message}`,
      );
    }
    const token = text.trim();
    if (!token) throw new InvalidOptionError(option, (name) => `${name(option)} ${file} is empty.`);
    return token;
  }
  const fromEnv = sources.env?.trim();
  return fromEnv ? fromEnv : undefined;
}
