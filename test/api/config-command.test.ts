/** `airt-report config` end to end through main(), against a real HTTP server on 127.0.0.1. */
import { afterEach, describe, expect, it } from 'vitest';
import { recordingIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { configBody, TOKEN } from './helpers/bodies.js';
import {
  envelope,
  sequence,
  startScriptServer,
  type Script,
  type ScriptServer,
} from './helpers/script-server.js';

let server: ScriptServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function run(script: Script, argv: string[], env: Record<string, string> = {}) {
  server = await startScriptServer(script);
  const io = recordingIO({ env: { AIRT_BASE_URL: server.url, AIRT_TOKEN: TOKEN, ...env } });
  const code = await main(['config', ...argv], io);
  return { code, stdout: io.out.join(''), stderr: io.err.join('') };
}

describe('airt-report config', () => {
  it('prints versions, deployment mode, website and every flag as an aligned table', async () => {
    const { code, stdout, stderr } = await run(
      sequence({ body: configBody({ recaptcha_enabled: false }) }),
      [],
    );
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toBe(
      [
        'api_version               1.7.0',
        'app_version               2026.2.1',
        'deployment_mode           saas',
        'website_url               https://airt.example.test',
        'account_defender_enabled  -',
        'airgapped                 false',
        'credits_enabled           true',
        'email_configured          -',
        'feedback_diagnostics      -',
        'feedback_enabled          -',
        'integrations_enabled      true',
        'recaptcha_enabled         false',
        'slack_enabled             true',
        '',
      ].join('\n'),
    );
    // Operation 6 is called without a token, even when one is configured.
    expect(server?.requests).toHaveLength(1);
    expect(server?.requests[0]?.url).toBe('/api/v1/config');
    expect(server?.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('--json prints the validated body (defaults applied, unknown keys kept) and notes unknown keys', async () => {
    const { code, stdout, stderr } = await run(sequence({ body: configBody({ quantum_mode: 'on' }) }), [
      '--json',
    ]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      ...configBody(),
      quantum_mode: 'on',
      credits_enabled: true,
      integrations_enabled: true,
    });
    expect(stderr).toContain('does not know: $.quantum_mode');
  });

  it('neutralizes terminal control characters sent by the service', async () => {
    const { stdout } = await run(
      sequence({ body: configBody({ app_version: '1.0\u001b[2J\u202eevil' }) }),
      [],
    );
    expect(stdout).not.toContain('\u001b');
    expect(stdout).not.toContain('\u202e');
    expect(stdout).toContain('1.0\\u{001b}[2J\\u{202e}evil');
  });

  it('needs only the base URL', async () => {
    const { code } = await run(sequence({ body: configBody() }), [], { AIRT_TOKEN: '' });
    expect(code).toBe(0);
  });

  it('a failing service gives exit 1 and one clear line naming the request', async () => {
    const { code, stdout, stderr } = await run(
      sequence(envelope(500, 'server_error', 'Database unavailable')),
      [],
    );
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('airt-report: GET /api/v1/config failed with 500');
    expect(stderr).toContain('Database unavailable');
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('reports retries on stderr and succeeds', async () => {
    const { code, stderr } = await run(
      sequence(
        { ...envelope(429, 'usage_limit_exceeded_error', 'slow'), headers: { 'retry-after': '0' } },
        { body: configBody() },
      ),
      [],
    );
    expect(code).toBe(0);
    expect(stderr).toMatch(/^Retrying GET \/api\/v1\/config in 0\.0 s \(attempt 1 failed: 429/);
  });

  it('without a base URL: usage error (exit 2)', async () => {
    const io = recordingIO();
    expect(await main(['config'], io)).toBe(2);
    expect(io.err.join('')).toContain('AIRT_BASE_URL');
  });
});
