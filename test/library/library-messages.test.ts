/**
 * Library messages name what happened and the library's own options (`options.force`), never a CLI
 * flag or an `airt-report <command>`: the CLI words the same error with its flags and command hints
 * at its boundary (`cliMessage`), so what a CLI user reads is unchanged. The source check below keeps
 * new flag words from creeping back into library messages.
 */
import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliMessage, cliOptionName } from '../../src/cli/option-names.js';
import { describeError } from '../../src/errors.js';
import { runOptionName } from '../../src/pipeline/run-config.js';
import { readTriagedFindings } from '../../src/snapshot/triage-findings.js';
import { readManifest } from '../../src/snapshot/verify.js';
import { applyDecisions, type ApplyDecisionsOptions } from '../../src/triage/apply-decisions.js';
import { requireDatabase } from '../../src/warehouse/db.js';
import { readNamedQuery } from '../../src/warehouse/named-queries.js';
import { WarehouseLockedError } from '../../src/warehouse/warehouse-lock.js';
import { SnapshotStoppedError } from '../../src/snapshot/take-snapshot.js';
import { makeTempDir, removeTempDirs } from '../helpers/temp-dirs.js';

const CLI_WORDS = /--[a-z]|airt-report [a-z]/u;

let dir: string;
beforeAll(async () => {
  dir = await makeTempDir('airt-libmsg-');
});
afterAll(async () => {
  await removeTempDirs();
});

async function failure(work: () => unknown): Promise<Error> {
  try {
    await work();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a failure');
}

describe('library messages speak no CLI; the CLI words them with flags', () => {
  it('a missing database', async () => {
    const db = path.join(dir, 'none.duckdb');
    const error = await failure(() => requireDatabase(db));
    expect(error.message).toBe(`No database at ${db}; create it by loading a snapshot into it first.`);
    expect(cliMessage(error)).toBe(
      `No database at ${db}; create it with airt-report load SNAPSHOT_DIR --db ${db}`,
    );
  });

  it('an unfinished snapshot directory', async () => {
    const partial = path.join(dir, 'snap.partial');
    await mkdir(partial);
    const error = await failure(() => readManifest(partial));
    expect(error.message).not.toMatch(CLI_WORDS);
    expect(error.message).toContain(`options.resume: ${partial}`);
    expect(cliMessage(error)).toContain(`Continue it with: airt-report snapshot --resume ${partial}`);
  });

  it('an unreadable triage journal', async () => {
    const journal = path.join(dir, 'no-journal.jsonl');
    const error = await failure(() => readTriagedFindings(journal, 'acme', 'main'));
    expect(error.message).not.toMatch(CLI_WORDS);
    expect(error.message).toMatch(/Check options\.journal\.$/u);
    expect(cliMessage(error)).toMatch(/Check --journal\.$/u);
  });

  it('an unusable apply concurrency', async () => {
    const error = await failure(() => applyDecisions({ concurrency: 0 } as ApplyDecisionsOptions));
    expect(error.message).toBe('options.concurrency must be an integer from 1 to 16, got 0.');
    expect(cliMessage(error)).toBe('--concurrency must be an integer from 1 to 16, got 0.');
  });

  it('a stopped snapshot keeps the stopping error’s wording (SnapshotStoppedError)', async () => {
    const cause = await failure(() => readTriagedFindings(path.join(dir, 'missing.jsonl'), 'acme', 'main'));
    const kept = path.join(dir, 'kept.partial');
    const error = new SnapshotStoppedError((name) => describeError(cause, name), kept, 1, cause);
    expect(error.message).not.toMatch(CLI_WORDS);
    expect(error.message).toMatch(/Check options\.journal\. The unfinished snapshot is kept in /u);
    expect(cliMessage(error)).toMatch(/Check --journal\. The unfinished snapshot is kept in /u);
    expect(error.reasonWith(cliOptionName)).toMatch(/Check --journal\.$/u);
  });

  it('an unknown named query', async () => {
    const error = await failure(() => readNamedQuery('no_such_query'));
    expect(error.message).not.toMatch(CLI_WORDS);
    expect(cliMessage(error)).toMatch(/See: airt-report query @list$/u);
  });

  it('a locked database, worded for the library, the CLI and a run config', () => {
    const error = new WarehouseLockedError('w.duckdb', 2000, { pid: 7, executable: null, note: null });
    expect(error.message).not.toMatch(CLI_WORDS);
    expect(error.message).toMatch(/wait longer with options\.lockTimeoutMs\.$/u);
    expect(cliMessage(error)).toMatch(/wait longer with --lock-timeout SECONDS\.$/u);
    expect(describeError(error, runOptionName)).toMatch(/wait longer with lock\.wait_seconds\.$/u);
  });
});

/**
 * Every remaining place in library source where a string names a flag or a command, with why it may.
 * A new hit fails the test: word it through `describeWith` (WordedError / InvalidOptionError) instead.
 * The CLI, the demo, the simulator and Chromium's argv (report/pdf.ts) are not library messages.
 */
const ALLOWED: Record<string, string> = {
  // CLI wording inside a wordsFlags branch: the library's own message has none.
  'src/warehouse/db.ts': 'wordsFlags branch',
  'src/diff/snapshot-diff.ts': 'wordsFlags branch',
  'src/snapshot/verify.ts': 'wordsFlags branch',
  'src/pipeline/bundle.ts': 'wordsFlags branch; the bundle README tells its reader how to verify it',
  'src/pipeline/run-steps.ts': 'wordsFlags branch',
  'src/pipeline/check-gates.ts': 'wordsFlags branch',
  'src/warehouse/named-queries.ts': 'wordsFlags branch',
  // Not messages to a library caller.
  'src/warehouse/prune.ts': 'the lock holder note names the process holding the lock',
  'src/warehouse/loader.ts': 'the lock holder note names the process holding the lock',
  'src/pipeline/gate-junit.ts': 'the JUnit suite name',
  'src/pipeline/run-config.ts': 'run config schema title and the run command’s own help',
  'src/pipeline/lock.ts': 'names the other airt-report process',
  'src/pipeline/verify-bundle.ts': 'names the bundle format, not a command to run',
  'src/report/figures-source.ts': 'the stamp comment names the program that wrote it, not a command',
  'src/signing/ssh-keys.ts': 'names the program, not a command',
  'src/warehouse/ddl.ts': 'wordsFlags branch; names the program to upgrade',
  'src/triage/auto-refill-request.ts': 'wordsFlags branch (--enabled / --no-enabled is one CLI sentence)',
  'src/report/pdf-syntax.ts': 'a decrement, not a flag',
  'src/report/browser-launch-error.ts': 'a Chromium command, not ours',
  'src/report/pdf-determinism.ts': 'a Chromium command ("chromium --version"), not ours',
};
const NOT_LIBRARY = ['src/cli/', 'src/demo/', 'src/simulator/', 'src/report/pdf.ts'];

async function sourceFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) =>
      path.relative(process.cwd(), path.join(entry.parentPath, entry.name)).split(path.sep).join('/'),
    )
    .sort();
}

it('no library source outside the list names a CLI flag or command in a string', async () => {
  const hits: string[] = [];
  for (const file of await sourceFiles('src')) {
    if (NOT_LIBRARY.some((prefix) => file.startsWith(prefix)) || file in ALLOWED) continue;
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines.forEach((line, index) => {
      const code = line.trim();
      if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return;
      if (/--[a-z][a-z-]+|airt-report [a-z]/u.test(code)) hits.push(`${file}:${index + 1}: ${code}`);
    });
  }
  expect(hits).toEqual([]);
});
