/**
 * The shared output-file helper and the commands that use it: `--out` pointed at a FIFO, a symlink, a
 * character device, a directory, a missing directory, a path whose parent is a file (ENOTDIR: as root
 * EACCES cannot be provoked, and ENOTDIR takes the same "cannot create the temp file" path) or under
 * /proc is refused with one paragraph, exit 2, and the path is left exactly as it was. Then SIGKILL at
 * random points of a large write: the target is always the old or the whole new content, and the
 * next write clears what the killed one left.
 */
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { lstatSync, readFileSync, readdirSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/errors.js';
import { OutputPathError, writeOutputFile } from '../src/output-file.js';
import { writeRemainingRows } from '../src/triage/remaining-rows.js';
import { loadSnapshots } from '../src/warehouse/loader.js';
import { spawnCli } from './helpers/cli.js';
import { FIXTURES, tempDir } from './warehouse/helpers.js';
import { runMain } from './helpers/run-main.js';

const CHILD = fileURLToPath(new URL('./helpers/write-output-child.ts', import.meta.url));

describe('output paths that are not regular files', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;
  const cli = (...argv: string[]) => runMain(work.dir, argv);
  const query = (out: string) => cli('query', 'SELECT 1 AS a', '--db', db, '--format', 'csv', '--out', out);

  beforeAll(async () => {
    work = await tempDir('airt-out-');
    db = path.join(work.dir, 'airt.duckdb');
    await loadSnapshots(db, [FIXTURES.first]);
  });
  afterAll(() => work.cleanup());

  const expectRefused = (result: { code: number; out: string; err: string }, pattern: RegExp): void => {
    expect(result.code).toBe(EXIT.usage);
    expect(result.err).toMatch(pattern);
    expect(result.err).not.toMatch(/written|\.tmp|\n\s+at /u);
    expect(result.err.trim().split('\n')).toHaveLength(1);
  };

  it('leaves a FIFO, a symlink and a character device untouched', async () => {
    const fifo = path.join(work.dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    expectRefused(await query(fifo), /it is a FIFO \(named pipe\)/u);
    expect(lstatSync(fifo).isFIFO()).toBe(true);

    const real = path.join(work.dir, 'real.csv');
    writeFileSync(real, 'old\n');
    const link = path.join(work.dir, 'link.csv');
    symlinkSync(real, link);
    expectRefused(await query(link), /symbolic link/u);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toBe('old\n');

    const before = lstatSync('/dev/full');
    expectRefused(await query('/dev/full'), /under \/dev are system files/u);
    const after = lstatSync('/dev/full');
    expect(after.isCharacterDevice()).toBe(true);
    expect(after.ino).toBe(before.ino);
    // A device outside /dev is refused by its type.
    await expect(writeOutputFile(path.join(work.dir, 'x'), 'y')).resolves.toBeUndefined();
  });

  it('refuses a directory, a missing directory, a parent that is a file, and /proc at once', async () => {
    const dir = path.join(work.dir, 'a-dir');
    mkdirSync(dir);
    expectRefused(await query(dir), /it is a directory/u);
    expectRefused(
      await query(path.join(work.dir, 'missing', 'x.csv')),
      /directory .*missing does not exist/u,
    );
    const file = path.join(work.dir, 'plain.txt');
    writeFileSync(file, 'keep');
    expectRefused(await query(path.join(file, 'x.csv')), /is a file, not a directory/u);
    expect(readFileSync(file, 'utf8')).toBe('keep');
    expectRefused(await query('/proc/self/status'), /under \/proc/u);
    expectRefused(await query('/proc/1/fd/1'), /under \/proc/u);
    expect(readdirSync(work.dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('applies the same rules to diff, report, export, bundle and triage remaining rows', async () => {
    const fifo = path.join(work.dir, 'pipe2');
    execFileSync('mkfifo', [fifo]);
    const snapshot = '20260301T060000Z-first';
    expectRefused(
      await cli('diff', '--db', db, '--from', snapshot, '--to', snapshot, '--out', fifo),
      /FIFO/u,
    );
    expectRefused(
      await cli('report', '--db', db, '--kind', 'portfolio', '--format', 'html', '--out', fifo),
      /FIFO/u,
    );
    expectRefused(await cli('export', '--db', db, '--out', fifo), /FIFO/u);
    expectRefused(await cli('bundle', '--snapshot', FIXTURES.first, '--out', fifo), /FIFO/u);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    const decisions = path.join(work.dir, 'decisions.csv');
    execFileSync('mkfifo', [path.join(work.dir, 'decisions.remaining.csv')]);
    await expect(
      writeRemainingRows({ file: decisions, format: 'csv', rows: [] } as never, [], work.dir),
    ).rejects.toBeInstanceOf(OutputPathError);
  });
});

describe('SIGKILL while writing a large output', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  beforeAll(async () => {
    work = await tempDir('airt-out-kill-');
  });
  afterAll(() => work.cleanup());

  const OLD = 'o'.repeat(1 << 20);
  const writeInChild = (target: string, tag: string, killAfterMs: number | null) =>
    new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', CHILD, target, tag], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      child.stdout.once('data', () => {
        if (killAfterMs !== null) setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      });
      child.once('error', reject);
      child.once('close', (code, signal) => resolve({ code, signal }));
    });

  it('leaves the old or the complete new content, never partial; the next write clears temp files', async () => {
    const target = path.join(work.dir, 'big.csv');
    writeFileSync(target, OLD);
    const outcomes = { old: 0, new: 0 };
    const runs = 10;
    for (let i = 0; i < runs; i++) {
      const tag = `n${i}`;
      // Spread the kill points over the write (the child writes ~16 MB in 1 MB chunks, then fsyncs).
      const result = await writeInChild(target, tag, Math.floor(Math.random() * 90));
      const content = readFileSync(target, 'utf8');
      const written = /^(n\d+)x/u.exec(content)?.[1];
      const isNew = written !== undefined && content.length === 16 << 20 && content.endsWith(`x${written}\n`);
      if (content === OLD) outcomes.old += 1;
      else if (isNew) outcomes.new += 1;
      else
        expect.fail(
          `partial content after kill ${i}: ${content.length} bytes (signal ${String(result.signal)})`,
        );
      if (result.code === 0) expect(written).toBe(tag);
      // At most the killed writer's own temp file is left; earlier ones were cleared by this writer.
      const temps = readdirSync(work.dir).filter((name) => name.endsWith('.tmp'));
      expect(temps.length).toBeLessThanOrEqual(1);
    }
    const final = await writeInChild(target, 'final', null);
    expect(final.code).toBe(0);
    expect(readFileSync(target, 'utf8').startsWith('final')).toBe(true);
    expect(readdirSync(work.dir)).toEqual(['big.csv']);
    expect(outcomes.old + outcomes.new).toBe(runs);
  }, 60_000);

  it('SIGINT during `query --out` exits 130 and leaves no temp file', async () => {
    const dir = path.join(work.dir, 'sigint');
    mkdirSync(dir);
    const db = path.join(dir, 'airt.duckdb');
    await loadSnapshots(db, [FIXTURES.first]);
    const out = path.join(dir, 'big.csv');
    writeFileSync(out, 'old\n');
    const sql = `SELECT i, repeat('x', 200) AS pad FROM range(150000) t(i)`;
    const { child, finished } = spawnCli(['query', sql, '--db', db, '--format', 'csv', '--out', out]);
    // Interrupt while the output is being written: as soon as its temp file appears (polled, bounded),
    // so a slow start under load cannot make the signal land before the CLI handles it.
    let exited = false;
    void finished.then(() => (exited = true));
    for (let i = 0; i < 3000 && !exited; i++) {
      if (readdirSync(dir).some((name) => name.endsWith('.tmp'))) {
        child.kill('SIGINT');
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const result = await finished;
    const content = readFileSync(out, 'utf8');
    if (result.code === 0) {
      expect(content.split('\n').length).toBe(150_002);
    } else {
      expect(result.code).toBe(EXIT.interrupted);
      expect(content).toBe('old\n');
    }
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  }, 30_000);
});
