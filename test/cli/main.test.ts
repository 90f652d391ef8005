import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import { VERSION } from '../../src/version.js';

describe('CLI shell', () => {
  it('keeps the tool version in step with package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(VERSION).toBe(pkg.version);
  });

  it('rejects an unknown command with a usage error (exit 2) and no stack trace', async () => {
    const io = recordingIO();
    const code = await main(['definitely-not-a-command'], io);
    expect(code).toBe(2);
    const stderr = io.err.join('');
    expect(stderr).toMatch(/airt-report: /);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('asks for a command when none is given', async () => {
    const io = recordingIO();
    expect(await main([], io)).toBe(2);
    expect(io.err.join('')).toMatch(/Name a command/);
  });
});
