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

  it('says a mistyped command is unknown and suggests the closest one (exit 2)', async () => {
    const io = recordingIO();
    expect(await main(['snapshto'], io)).toBe(2);
    expect(io.err.join('')).toBe(
      'airt-report: Unknown command: snapshto. Did you mean snapshot?\nRun airt-report --help for usage.\n',
    );
  });

  it('suggests the closest known option of the command for a mistyped one (exit 2)', async () => {
    const unknown = recordingIO();
    expect(await main(['query', 'select 1', '--dbb', 'x.duckdb'], unknown)).toBe(2);
    expect(unknown.err.join('')).toContain(
      'airt-report: Unknown argument: dbb. Did you mean --db instead of --dbb?\n',
    );
    // A mistyped required option first shows as missing: the hint says which one was meant.
    const missing = recordingIO();
    expect(await main(['load', 'snap', '--dbb', 'x.duckdb'], missing)).toBe(2);
    expect(missing.err.join('')).toContain(
      'airt-report: Missing required argument: db. Did you mean --db instead of --dbb?\n',
    );
    // A kebab-case option is listed once, not also as its camelCase twin.
    const kebab = recordingIO();
    expect(await main(['snapshot', '--bse-url', 'http://127.0.0.1:1'], kebab)).toBe(2);
    expect(kebab.err.join('')).toContain(
      'airt-report: Unknown argument: bse-url. Did you mean --base-url instead of --bse-url?\n',
    );
    // Several typos: one suggestion each; nothing close: no suggestion; camelCase spellings are known.
    const several = recordingIO();
    expect(
      await main(
        ['load', 'snap', '--db', 'x', '--forse', '--quite', '--zzzzzz', '--memoryLimit', '1GB'],
        several,
      ),
    ).toBe(2);
    expect(several.err.join('')).toContain(
      'Unknown arguments: forse, quite, zzzzzz. Did you mean --force instead of --forse, --quiet instead of --quite?\n',
    );
  });

  it('asks for a command when none is given', async () => {
    const io = recordingIO();
    expect(await main([], io)).toBe(2);
    expect(io.err.join('')).toMatch(/Name a command/);
  });
});
