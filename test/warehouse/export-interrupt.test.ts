/**
 * `export` stopped by Ctrl-C (SIGINT) or SIGTERM, as a real child process of the CLI: as soon as it
 * starts writing, midway through the tables, and at a random time after that. It used to ignore both
 * signals and exit 0. Now: exit 130/143 and one `Interrupted by …` line; nothing of the stopped export
 * is kept — a new directory is not created, an earlier export is left exactly as it was (no partition
 * a later incremental export would take as complete, no temp directory) — and exporting again gives
 * the files a clean export gives.
 */
import { cp, mkdir, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import { spawnCli, type CliRun } from '../helpers/cli.js';
import { exportFixture, parquetRows } from './export-fixture.js';

/**
 * Where the signal is sent: once the export's hidden staging directory appears in the output
 * directory (it has begun writing), once that holds `staged` entries, plus `delayMs`.
 */
interface StopPoint {
  staged?: number;
  delayMs?: number;
}

interface Stopped {
  out: string;
  signalled: boolean;
  /** Sent at a random time, which may be as the export ends. */
  late: boolean;
  run: CliRun;
  where: string;
}

let work: string;
/** A database of both snapshots. */
let dbBoth: string;
/** Rows per Parquet file of a clean export of both snapshots. */
let clean: Record<string, number>;
/** An export of the first snapshot alone: the earlier export the incremental cases add to. */
let earlier: string;

/** Every entry under `dir` (relative paths, sorted): files and directories. */
async function entries(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).sort();
}

/** Every entry under `dir` with its inode, size and mtime: what "left exactly as it was" compares. */
async function fingerprint(dir: string): Promise<string[]> {
  return Promise.all(
    (await entries(dir)).map(async (entry) => {
      const info = await stat(path.join(dir, entry));
      return `${entry} ${info.ino} ${info.size} ${info.mtimeMs}`;
    }),
  );
}

beforeAll(async () => {
  ({ work, dbBoth, clean, earlier } = await exportFixture('airt-export-int-'));
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The hidden staging directory an export writes into, once it exists. */
async function stagingIn(out: string): Promise<string | undefined> {
  const names = await readdir(out).catch(() => [] as string[]);
  // Not its lock (.airt-export.lock), which it takes first.
  const staging = names.find((n) => n.startsWith('.export.tmp-'));
  return staging === undefined ? undefined : path.join(out, staging);
}

/** Starts `export --db dbBoth --out out` in a child and sends `signal` at `point`. */
async function stoppedExport(out: string, signal: NodeJS.Signals, point: StopPoint): Promise<Stopped> {
  const { child, finished } = spawnCli(['export', '--db', dbBoth, '--out', out]);
  let exited = false;
  void finished.then(() => (exited = true));
  for (let waited = 0; !exited && waited < 60_000; waited += 5) {
    const staging = await stagingIn(out);
    if (staging !== undefined) {
      const staged = (await readdir(staging).catch(() => [] as string[])).length;
      if (staged >= (point.staged ?? 0)) break;
    }
    await sleep(5);
  }
  if (point.delayMs) await sleep(point.delayMs);
  const signalled = !exited;
  if (signalled) child.kill(signal);
  const run = await finished;
  const at = `${point.staged ?? 0} staged${point.delayMs ? ` + ${point.delayMs} ms` : ''}`;
  return {
    out,
    signalled,
    late: point.delayMs !== undefined,
    run,
    where: `${signal} at ${at}; exit ${run.code ?? run.signal}\n${run.stderr}`,
  };
}

/**
 * Exit and message of a stopped export. True when it was stopped before publishing (the output
 * directory must then be as before); false when the signal came while publishing or after it.
 */
function checkExit(stopped: Stopped, signal: NodeJS.Signals): boolean {
  const { run, where } = stopped;
  // Ended on its own first: exit 0, or — a random-time signal landing while the finished process
  // exits, its handlers gone — ended by the signal itself, without a word. The re-run checks it whole.
  const late =
    stopped.late && (run.code === 0 || (run.signal === signal && !run.stderr.includes('airt-report:')));
  if (!stopped.signalled || late) {
    if (run.code !== null) expect(run.code, where).toBe(0);
    return false;
  }
  expect(run.signal, where).toBeNull();
  expect(run.code, where).toBe(signal === 'SIGINT' ? 130 : 143);
  expect(run.stderr.match(/Interrupted by/g), where).toHaveLength(1);
  const before = `airt-report: Interrupted by ${signal} before the export was finished; nothing of it was kept in ${stopped.out}`;
  if (run.stderr.includes(before)) {
    // Not a single table's summary: nothing was reported as written.
    expect(run.stderr, where).not.toMatch(/partition\(s\) written/);
    return true;
  }
  expect(run.stderr, where).toContain(
    `airt-report: Interrupted by ${signal} while the export was being published; publishing was completed first`,
  );
  return false;
}

/** Exporting again completes it: the clean export's files and rows, no temp directory, marked done. */
async function checkRerun(stopped: Stopped): Promise<void> {
  const io = recordingIO();
  const code = await main(['export', '--db', dbBoth, '--out', stopped.out], io);
  expect(code, `${stopped.where}\nre-run:\n${io.err.join('')}`).toBe(0);
  expect(await parquetRows(stopped.out), stopped.where).toEqual(clean);
  expect((await entries(stopped.out)).filter((e) => path.basename(e).startsWith('.'))).toEqual([]);
  const marker = JSON.parse(await readFile(path.join(stopped.out, '_airt_export.json'), 'utf8')) as {
    exported_at: string | null;
  };
  expect(marker.exported_at, stopped.where).not.toBeNull();
}

const POINTS: [NodeJS.Signals, StopPoint][] = [
  ['SIGINT', {}],
  ['SIGTERM', { staged: 12 }],
  ['SIGINT', { delayMs: Math.floor(Math.random() * 700) }],
];

describe('export interrupted by SIGINT/SIGTERM', () => {
  it('a first export stops with 130/143 and one line, leaves no directory, and a re-run matches a clean export', async () => {
    await mkdir(path.join(work, 'new'));
    const stopped = await Promise.all(
      POINTS.map(([signal, point], i) => stoppedExport(path.join(work, 'new', `out-${i}`), signal, point)),
    );
    for (const [i, one] of stopped.entries()) {
      if (checkExit(one, POINTS[i]![0])) {
        // It created the directory: gone again, with the temp directories in it.
        await expect(stat(one.out), one.where).rejects.toThrow(/ENOENT/);
      }
    }
    expect(stopped[0]!.signalled && checkExit(stopped[0]!, 'SIGINT'), stopped[0]!.where).toBe(true);
    await Promise.all(stopped.map(checkRerun));
  });

  it('an incremental export leaves the earlier export exactly as it was, and a re-run adds what was missing', async () => {
    await mkdir(path.join(work, 'incremental'));
    const outs = await Promise.all(
      POINTS.map(async (_, i) => {
        const out = path.join(work, 'incremental', `out-${i}`);
        await cp(earlier, out, { recursive: true, preserveTimestamps: true });
        return { out, before: await fingerprint(out) };
      }),
    );
    const stopped = await Promise.all(
      POINTS.map(([signal, point], i) => stoppedExport(outs[i]!.out, signal, point)),
    );
    for (const [i, one] of stopped.entries()) {
      // Not a partition more, none rewritten, no temp directory: the next export sees the earlier one.
      if (checkExit(one, POINTS[i]![0]))
        expect(await fingerprint(one.out), one.where).toEqual(outs[i]!.before);
    }
    expect(stopped[1]!.signalled && checkExit(stopped[1]!, 'SIGTERM'), stopped[1]!.where).toBe(true);
    await Promise.all(stopped.map(checkRerun));
  });
});
