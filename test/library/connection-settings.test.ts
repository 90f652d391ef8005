/**
 * One rule for the service address, whoever passes it: the API client, the CLI's --base-url /
 * AIRT_BASE_URL and a run config's connection.base_url all refuse a query string, a fragment,
 * credentials and non-http schemes, each naming the setting where its caller set it. (Only the
 * client refused a query string before.) The token is read by one function for the CLI and a run.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { readToken } from '../../src/api/connection-settings.js';
import { resolveConnection } from '../../src/cli/connection.js';
import { cliMessage } from '../../src/cli/option-names.js';
import { InvalidOptionError } from '../../src/errors.js';
import { resolveRunToken, runConfigFromObject } from '../../src/pipeline/run-config.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

const BAD = [
  ['a query string', 'http://127.0.0.1:8080/?page=1', 'must not carry a query string or fragment'],
  ['a fragment', 'http://127.0.0.1:8080/#x', 'must not carry a query string or fragment'],
  ['credentials', 'http://user:pw@127.0.0.1:8080', 'must not embed credentials'],
  ['an ftp scheme', 'ftp://127.0.0.1', 'must be http:// or https://'],
] as const;

/** The message a check throws, as its caller shows it. */
function refusal(check: () => unknown, show: (error: Error) => string = (e) => e.message): string {
  try {
    check();
  } catch (error) {
    if (error instanceof Error) return show(error);
  }
  throw new Error('expected a refusal');
}

const runConfig = (baseUrl: string): unknown => ({
  connection: { base_url: baseUrl, org: 'acme', workspace: 'main' },
});

describe('one base URL rule', () => {
  it.each(BAD)('refuses %s in the client, the CLI and a run config alike', (_, url, problem) => {
    const client = refusal(() => createApiClient({ baseUrl: url }));
    expect(client).toContain(`options.baseUrl ${problem}`);

    const cli = refusal(
      () =>
        resolveConnection(
          { 'base-url': url, org: 'acme', workspace: 'main' },
          { env: { AIRT_TOKEN: 't' }, cwd: '/' },
        ),
      (error) => cliMessage(error),
    );
    expect(cli).toContain(`--base-url / AIRT_BASE_URL ${problem}`);

    const config = refusal(() => runConfigFromObject(runConfig(url), '/'));
    expect(config).toContain('connection.base_url');
    if (url.startsWith('http')) expect(config).toContain(problem);
  });

  it('accepts a plain address everywhere and strips its trailing slash', () => {
    const url = 'https://airt.example.com/base/';
    expect(
      resolveConnection(
        { 'base-url': url, org: 'acme', workspace: 'main' },
        { env: { AIRT_TOKEN: 't' }, cwd: '/' },
      ).baseUrl,
    ).toBe('https://airt.example.com/base');
    expect(runConfigFromObject(runConfig(url), '/').connection.base_url).toBe(
      'https://airt.example.com/base',
    );
  });
});

describe('one token reader', () => {
  it('reads a token file (trimmed) before the environment, and names an empty file by its setting', async () => {
    const dir = await makeTempDir('airt-token-');
    const file = path.join(dir, 'token');
    await writeFile(file, '  from-file\n');
    expect(readToken({ file, env: 'from-env' })).toBe('from-file');
    expect(readToken({ env: ' from-env ' })).toBe('from-env');
    expect(readToken({})).toBeUndefined();

    await writeFile(file, '\n');
    const empty = refusal(() => readToken({ file }));
    expect(empty).toBe(`options.tokenFile ${file} is empty.`);
    const viaCli = refusal(
      () =>
        resolveConnection(
          { 'base-url': 'http://127.0.0.1:1', org: 'acme', workspace: 'main', 'token-file': file },
          { env: {}, cwd: '/' },
        ),
      (error) => {
        expect(error).toBeInstanceOf(InvalidOptionError);
        return cliMessage(error);
      },
    );
    expect(viaCli).toBe(`--token-file ${file} is empty.`);
    const config = runConfigFromObject(
      { connection: { base_url: 'http://127.0.0.1:1', org: 'a', workspace: 'w', token_file: file } },
      '/',
    );
    await expect(resolveRunToken(config, {})).rejects.toThrow(`connection.token_file ${file} is empty.`);
  });
});
