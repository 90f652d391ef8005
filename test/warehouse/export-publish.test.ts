/**
 * The export's publishing step and its directory lock:
 * - a failure while publishing says the export is (partly) published, not "nothing of it was kept",
 *   even when the signal has fired meanwhile; exporting again completes it;
 * - a directory whose new version could not be renamed into place gets its old one back (left under
 *   a temp name, the next export would have removed it as a killed export's);
 * - a table directory that links to another file system (EXDEV for a rename from the staging
 *   directory) is published by copying beside its place, then renaming;
 * - an interrupted export names "the earlier export" only when there was one that finished;
 * - two exports into one directory: the second refuses while the first runs, so it can never remove
 *   the first one's marker; a killed export's lock is taken over;
 * - while publishing, the CLI holds off a second Ctrl-C/SIGTERM.
 */
import { spawn } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import {
  ExportBusyError,
  ExportInterruptedError,
  exportParquet,
  ExportPublishError,
  publishDirectory,
  type PublishOps,
} from '../../src/warehouse/export.js';
import { spawnCli } from '../helpers/cli.js';
import { exportFixture, parquetRows } from './export-fixture.js';

let work: string;
/** A database of both snapshots. */
let dbBoth: string;
/** Rows per Parquet file of a clean export of both snapshots. */
let clean: Record<string, number>;
/** An export of the first snapshot alone: the earlier export incremental cases add to. */
let earlier: string;

/** Hidden entries (temp directories, a lock) anywhere under `dir`. */
async function hidden(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).filter((e) => path.basename(e).startsWith('.'));
}

async function marker(dir: string): Promise<{ exported_at: string | null }> {
  return JSON.parse(await readFile(path.join(dir, '_airt_export.json'), 'utf8')) as {
    exported_at: string | null;
  };
}

/** The export's result or its error. */
async function outcome(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    (result) => result,
    (error: unknown) => error,
  );
}

/** Exporting again completes the directory: the clean export's files and rows, marked, nothing hidden. */
async function checkCompletedByRerun(out: string): Promise<void> {
  await exportParquet(dbBoth, out);
  expect(await parquetRows(out)).toEqual(clean);
  expect(await hidden(out)).toEqual([]);
  expect((await marker(out)).exported_at).not.toBeNull();
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until an export has begun writing into `out` (its staging directory is there). */
async function untilStaging(out: string): Promise<string> {
  for (let waited = 0; waited < 60_000; waited += 2) {
    const staging = (await readdir(out).catch(() => [] as string[])).find((n) =>
      n.startsWith('.export.tmp-'),
    );
    if (staging !== undefined) return path.join(out, staging);
    await sleep(2);
  }
  throw new Error(`no export began writing into ${out}`);
}

let otherFs: string | undefined;

beforeAll(async () => {
  ({ work, dbBoth, clean, earlier } = await exportFixture('airt-export-publish-'));
  // A second file system, when there is one (tmpfs on Linux): a table directory linked there.
  const shm = await stat('/dev/shm').catch(() => null);
  if (shm?.isDirectory() && shm.dev !== (await stat(work)).dev)
    otherFs = await mkdtemp('/dev/shm/airt-export-publish-');
});

afterAll(async () => {
  if (otherFs) await rm(otherFs, { recursive: true, force: true });
});

/** A copy of the earlier export in `name`. */
async function earlierCopy(name: string): Promise<string> {
  const out = path.join(work, name);
  await cp(earlier, out, { recursive: true, preserveTimestamps: true });
  return out;
}

/** The staging directory of the export writing into `out` (called while it publishes). */
function stagingOf(out: string): string {
  const name = readdirSync(out).find((n) => n.startsWith('.export.tmp-'));
  if (name === undefined) throw new Error(`no staging directory in ${out}`);
  return path.join(out, name);
}

/** `text` as a literal inside a RegExp. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('publishing fails', () => {
  it('after some directories are in place: says it is partly published (not "nothing kept", though stopped), and a re-run completes it', async () => {
    const out = await earlierCopy('partly');
    const controller = new AbortController();
    const error = await outcome(
      exportParquet(dbBoth, out, {
        signal: controller.signal,
        // Ctrl-C as publishing begins, and the current views' staged directories gone (published after
        // the tables' partitions): their renames fail.
        whilePublishing: () => {
          controller.abort(new InterruptedError('SIGINT'));
          const staging = stagingOf(out);
          for (const name of readdirSync(staging))
            if (readdirSync(path.join(staging, name)).includes('data_0.parquet'))
              rmSync(path.join(staging, name), { recursive: true });
          return () => undefined;
        },
      }),
    );
    expect(error).toBeInstanceOf(ExportPublishError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^The export into ${escape(out)} was only partly published \\(ENOENT[^)]*\\): some of its partitions and views are in place, the others not\\. Run the export again to complete it\\.$`,
      ),
    );
    expect((error as ExportPublishError).exitCode).toBe(1);
    // No temp directory or lock left; the marker still says when the last complete export was.
    expect(await hidden(out)).toEqual([]);
    expect((await marker(out)).exported_at).not.toBeNull();
    await checkCompletedByRerun(out);
  });

  it('before anything is in place: says none of it was put in place', async () => {
    const out = path.join(work, 'none-published');
    const error = await outcome(
      exportParquet(dbBoth, out, {
        whilePublishing: () => {
          rmSync(stagingOf(out), { recursive: true });
          return () => undefined;
        },
      }),
    );
    expect(error).toBeInstanceOf(ExportPublishError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^The export into ${escape(out)} could not be published \\(ENOENT[^)]*\\); none of its partitions or views was put in place\\. Run the export again to write it\\.$`,
      ),
    );
    expect(await hidden(out)).toEqual([]);
    await checkCompletedByRerun(out);
  });
});

describe('publishDirectory', () => {
  /** A staged directory and a place holding an older version of it. */
  async function stagedOver(name: string): Promise<{ staged: string; final: string }> {
    const base = path.join(work, name);
    const staged = path.join(base, 'staging', 'view');
    const final = path.join(base, 'out', 'view');
    await mkdir(staged, { recursive: true });
    await mkdir(final, { recursive: true });
    await writeFile(path.join(staged, 'data_0.parquet'), 'new');
    await writeFile(path.join(final, 'data_0.parquet'), 'old');
    return { staged, final };
  }

  it('puts the old directory back when the new one cannot be renamed into place', async () => {
    const { staged, final } = await stagedOver('put-back');
    const { rename, cp: copy } = await import('node:fs/promises');
    const ops: PublishOps = {
      cp: copy,
      rename: async (from, to) => {
        // The new directory's last rename, into its place, is refused.
        if (to === final && !from.endsWith('.old'))
          throw Object.assign(new Error('EIO: refused'), { code: 'EIO' });
        await rename(from, to);
      },
    };
    await expect(publishDirectory({ staged, final }, ops)).rejects.toThrow(/EIO: refused/);
    // The old version is in place again, and nothing is left under a temp name beside it.
    expect(await readFile(path.join(final, 'data_0.parquet'), 'utf8')).toBe('old');
    expect(await readdir(path.dirname(final))).toEqual(['view']);
  });

  it('copies a staged directory beside its place when a rename crosses file systems (EXDEV)', async () => {
    const { staged, final } = await stagedOver('exdev');
    const { rename, cp: copy } = await import('node:fs/promises');
    const renamed: string[] = [];
    const ops: PublishOps = {
      cp: copy,
      rename: async (from, to) => {
        if (from === staged) throw Object.assign(new Error('EXDEV: cross-device link'), { code: 'EXDEV' });
        renamed.push(path.basename(to));
        await rename(from, to);
      },
    };
    await publishDirectory({ staged, final }, ops);
    expect(await readFile(path.join(final, 'data_0.parquet'), 'utf8')).toBe('new');
    expect(await readdir(path.dirname(final))).toEqual(['view']);
    // The copy was renamed into place whole (old one aside first).
    expect(renamed.at(-1)).toBe('view');
  });
});

describe('a table directory linked elsewhere', () => {
  async function linkedTrials(name: string, to: string): Promise<string> {
    const out = await earlierCopy(name);
    const elsewhere = path.join(to, name, 'trials');
    await mkdir(path.dirname(elsewhere), { recursive: true });
    await cp(path.join(out, 'trials'), elsewhere, { recursive: true, preserveTimestamps: true });
    await rm(path.join(out, 'trials'), { recursive: true });
    await symlink(elsewhere, path.join(out, 'trials'));
    return elsewhere;
  }

  async function checkExport(name: string, elsewhere: string): Promise<void> {
    const out = path.join(work, name);
    await exportParquet(dbBoth, out);
    const trials = Object.fromEntries(
      Object.entries(clean)
        .filter(([file]) => file.startsWith('trials/'))
        .map(([file, n]) => [file.slice('trials/'.length), n]),
    );
    expect(await parquetRows(elsewhere)).toEqual(trials);
    expect(await hidden(elsewhere)).toEqual([]);
    expect(await hidden(out)).toEqual([]);
    expect((await stat(path.join(out, 'trials'))).isDirectory()).toBe(true);
  }

  it('on the same file system: the new partitions are published into it', async () => {
    const elsewhere = await linkedTrials('linked-same-fs', path.join(work, 'elsewhere'));
    await checkExport('linked-same-fs', elsewhere);
  });

  it.runIf(process.platform === 'linux')(
    'on another file system (/dev/shm): published by a copy beside its place, not refused with EXDEV',
    async () => {
      if (otherFs === undefined) return;
      const elsewhere = await linkedTrials('linked-other-fs', otherFs);
      await checkExport('linked-other-fs', elsewhere);
    },
  );
});

describe('an interrupted export', () => {
  async function interrupted(out: string): Promise<ExportInterruptedError> {
    const controller = new AbortController();
    const running = outcome(exportParquet(dbBoth, out, { signal: controller.signal }));
    await untilStaging(out);
    controller.abort(new InterruptedError('SIGTERM'));
    const error = await running;
    expect(error).toBeInstanceOf(ExportInterruptedError);
    return error as ExportInterruptedError;
  }

  it('names the earlier export only when one had finished there', async () => {
    const finished = await earlierCopy('interrupted-after-complete');
    expect((await interrupted(finished)).message).toBe(
      `Interrupted by SIGTERM before the export was finished; nothing of it was kept in ${finished} (the earlier export there is as it was). Run the export again to write it.`,
    );
    // A killed export's marker (no time): there was no earlier export, only a part of one.
    const killed = await earlierCopy('interrupted-after-killed');
    await writeFile(
      path.join(killed, '_airt_export.json'),
      `${JSON.stringify({ format: 'airt-parquet/2', exported_at: null }, null, 2)}\n`,
    );
    expect((await interrupted(killed)).message).toBe(
      `Interrupted by SIGTERM before the export was finished; nothing of it was kept in ${killed}. Run the export again to write it.`,
    );
    expect((await marker(killed)).exported_at).toBeNull();
    await checkCompletedByRerun(killed);
  });
});

describe('two exports into one directory', () => {
  it('the second refuses while the first runs, so a failing first never takes the other one’s marker', async () => {
    const out = path.join(work, 'two-at-once');
    const controller = new AbortController();
    const first = outcome(exportParquet(dbBoth, out, { signal: controller.signal }));
    await untilStaging(out);
    const second = await outcome(exportParquet(dbBoth, out));
    expect(second).toBeInstanceOf(ExportBusyError);
    expect((second as Error).message).toBe(
      `Another export (pid ${process.pid}) is writing into ${out}; nothing was written. Run this one again once it has finished.`,
    );
    // The first is stopped: it leaves no directory (it made it), nothing of the second's to remove.
    controller.abort(new InterruptedError('SIGINT'));
    expect(await first).toBeInstanceOf(ExportInterruptedError);
    await expect(stat(out)).rejects.toThrow(/ENOENT/);
    await checkCompletedByRerun(out);
  });

  it('as two processes at once: one completes, the other completes after it or refuses; the directory ends marked', async () => {
    const out = path.join(work, 'two-processes');
    const runs = await Promise.all(
      [0, 1].map(() => spawnCli(['export', '--db', dbBoth, '--out', out]).finished),
    );
    const where = runs.map((r) => `exit ${r.code ?? r.signal}: ${r.stderr}`).join('\n');
    expect(
      runs.some((r) => r.code === 0),
      where,
    ).toBe(true);
    for (const run of runs)
      if (run.code !== 0) {
        expect(run.code, where).toBe(1);
        expect(run.stderr, where).toMatch(
          new RegExp(
            `^airt-report: Another export \\(pid \\d+\\) is writing into ${escape(out)}; nothing was written\\.`,
          ),
        );
      }
    expect(await parquetRows(out)).toEqual(clean);
    expect(await hidden(out)).toEqual([]);
    expect((await marker(out)).exported_at).not.toBeNull();
  });

  it('takes over the lock of an export that was killed, and refuses a live one’s', async () => {
    const out = await earlierCopy('stale-lock');
    const gone = spawn(process.execPath, ['-e', '']);
    const deadPid = await new Promise<number>((resolve) => gone.once('exit', () => resolve(gone.pid!)));
    await writeFile(path.join(out, '.airt-export.lock'), `${deadPid} 0123456789abcdef\n`);
    await exportParquet(dbBoth, out);
    expect(await parquetRows(out)).toEqual(clean);
    expect(await hidden(out)).toEqual([]);
    // A live process's lock (the parent of this test process) is not taken over.
    await writeFile(path.join(out, '.airt-export.lock'), `${process.ppid} 0123456789abcdef\n`);
    const refused = await outcome(exportParquet(dbBoth, out));
    expect(refused).toBeInstanceOf(ExportBusyError);
    expect((refused as ExportBusyError).pid).toBe(process.ppid);
    expect(await readFile(path.join(out, '.airt-export.lock'), 'utf8')).toBe(
      `${process.ppid} 0123456789abcdef\n`,
    );
    await rm(path.join(out, '.airt-export.lock'));
  });
});

describe('publishing in the CLI', () => {
  it('holds off a second Ctrl-C/SIGTERM while the export publishes', async () => {
    const command = pathToFileURL(
      fileURLToPath(new URL('../../src/cli/commands/export.ts', import.meta.url)),
    ).href;
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    // Signals sent to itself while held: none kills it; released, it ends on its own.
    const script = `
      const { holdStopSignals } = await import(${JSON.stringify(command)});
      const release = holdStopSignals();
      for (const name of ['SIGINT', 'SIGINT', 'SIGTERM']) process.kill(process.pid, name);
      setTimeout(() => { release(); process.stdout.write('finished'); }, 300);
    `;
    const child = spawn(process.execPath, ['--import', tsx, '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once('close', (c, s) => resolve([c, s])),
    );
    expect({ code, signal, stdout }, stderr).toEqual({ code: 0, signal: null, stdout: 'finished' });
  });

  it('calls whilePublishing once everything is staged, and lets go once the export is marked', async () => {
    const out = await earlierCopy('while-publishing');
    const seen: string[] = [];
    await exportParquet(dbBoth, out, {
      whilePublishing: () => {
        seen.push(`begin ${readdirSync(out).filter((n) => n.startsWith('.export.tmp-')).length}`);
        return () => seen.push('end');
      },
    });
    expect(seen).toEqual(['begin 1', 'end']);
    expect(await parquetRows(out)).toEqual(clean);
  });
});
