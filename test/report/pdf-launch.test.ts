/**
 * A Chromium that exists but fails to start: one paragraph (which executable, that it failed, the
 * browser's first complaint without ANSI codes, how to fix it) instead of playwright's ~40-line log.
 * The "browser" is a shell script that complains on stderr and exits 1; no real browser is needed.
 */
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordingIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { CliError } from '../../src/errors.js';
import { firstMeaningfulLine } from '../../src/report/browser-launch-error.js';
import { printPdf } from '../../src/report/pdf.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { caught } from '../helpers/caught.js';

const COMPLAINT =
  '/usr/lib/chromium/chromium: error while loading shared libraries: libnss3.so: cannot open shared object file';

let dir: string;
let broken: string;
let silent: string;

beforeAll(async () => {
  dir = await makeTempDir('airt-pdf-launch-');
  broken = path.join(dir, 'chromium');
  // Coloured like a real terminal-aware wrapper, to check the codes never reach the message.
  await writeFile(broken, `#!/bin/sh\nprintf '\\033[31m%s\\033[0m\\n' '${COMPLAINT}' >&2\nexit 1\n`);
  silent = path.join(dir, 'chromium-silent');
  await writeFile(silent, '#!/bin/sh\nexit 1\n');
  await Promise.all([chmod(broken, 0o755), chmod(silent, 0o755)]);
});

describe('a Chromium that fails to start', () => {
  it('gives one paragraph: the executable, that it failed, its first complaint, the fix', async () => {
    const error = await caught(printPdf('<p>x</p>', { executablePath: broken }));
    expect(error).toBeInstanceOf(CliError);
    expect(error.message).toBe(
      `PDF output: Chromium at ${broken} failed to start (exit code 1): ${COMPLAINT}. ` +
        'Install Debian\'s package "chromium" (apt-get install chromium) and check that "chromium --version" ' +
        'runs, or set AIRT_CHROMIUM to a Chromium executable that starts.',
    );
  });

  it('still names the executable and the fix when the browser says nothing', async () => {
    const error = await caught(printPdf('<p>x</p>', { executablePath: silent }));
    expect(error.message).toMatch(new RegExp(`^PDF output: Chromium at ${silent} failed to start`));
    expect(error.message).not.toContain('\n');
    expect(error.message).not.toContain('\u001b');
    expect(error.message).toContain('AIRT_CHROMIUM');
  });

  it('finds the browser line in a playwright log and strips ANSI codes', () => {
    const log = [
      'browserType.launchPersistentContext: Target page, context or browser has been closed',
      'Browser logs:',
      '<launching> /x/chromium --headless',
      '\u001b[2m  - [pid=7][err] \u001b[31mboom\u001b[0m\u001b[22m',
    ].join('\n');
    expect(firstMeaningfulLine(log)).toBe('boom');
    expect(firstMeaningfulLine('browserType.launch: \u001b[1mclosed\u001b[0m\nCall log:')).toBe('closed');
  });

  it('`report --format pdf` prints that paragraph and exits 1', async () => {
    const db = path.join(dir, 'airt.duckdb');
    await loadSnapshots(db, [path.resolve('fixtures/snapshots/acme/main/20260301T060000Z-first')]);
    const io = recordingIO({ cwd: dir, env: { AIRT_CHROMIUM: broken } });
    const code = await main(
      [
        'report',
        '--db',
        db,
        '--kind',
        'executive',
        '--project',
        'support-agent',
        '--format',
        'pdf',
        '--out',
        'x.pdf',
      ],
      io,
    );
    const stderr = io.err.join('');
    expect(code, stderr).toBe(1);
    expect(stderr).toContain(`Chromium at ${broken} failed to start (exit code 1): ${COMPLAINT}.`);
    expect(stderr).not.toContain('\u001b');
    expect(stderr).not.toContain('Call log');
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });
});
