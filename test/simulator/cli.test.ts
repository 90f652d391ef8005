/**
 * `airt-report simulator`: prints where it listens and the environment lines, serves until the abort
 * signal (SIGINT/SIGTERM in the real process), then closes cleanly with exit code 0.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import { startSimulator } from '../../src/simulator/index.js';

async function waitFor<T>(probe: () => T | undefined, attempts = 200): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('condition not reached');
}

describe('airt-report simulator', () => {
  it('prints URL, org, workspace, projects and env lines, serves, then stops on abort with exit 0', async () => {
    const controller = new AbortController();
    const io = recordingIO({ signal: controller.signal });
    const running = main(
      ['simulator', '--port', '0', '--seed', '3', '--org', 'globex', '--projects', '2', '--token', 'tok en'],
      io,
    );
    const url = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(io.out.join(''))?.[1]);
    const out = io.out.join('');
    expect(out).toContain('org: globex');
    expect(out).toContain('workspace: main');
    expect(out).toContain('projects: customer-support-bot, payments-agent');
    expect(out).toContain(`export AIRT_BASE_URL=${url}`);
    expect(out).toContain("export AIRT_TOKEN='tok en'");
    const response = await fetch(`${url}/api/v1/org/globex/ws/main/evaluations`, {
      headers: { authorization: 'Bearer tok en' },
    });
    expect(response.status).toBe(200);
    await response.text();
    controller.abort();
    expect(await running).toBe(0);
    await expect(fetch(`${url}/api/v1/config`)).rejects.toThrow();
  });

  it('says in one line that the port is in use, exit 1 (not "Unexpected error")', async () => {
    const sim = await startSimulator({});
    try {
      const port = new URL(sim.url).port;
      const io = recordingIO();
      expect(await main(['simulator', '--port', port], io)).toBe(1);
      expect(io.err.join('')).toBe(
        `airt-report: Port ${port} on 127.0.0.1 is already in use: choose another --port (0 picks a free one).\n`,
      );
    } finally {
      await sim.close();
    }
  });

  it('rejects a bad fault spec with a usage error', async () => {
    const io = recordingIO();
    expect(await main(['simulator', '--port', '0', '--faults', '429=lots'], io)).toBe(2);
    expect(io.err.join('')).toMatch(/--faults rate/);
  });
});
