/**
 * Hashing a snapshot stops at an abort: verifySnapshot (on the hashing workers, and on this thread for
 * small snapshots) rejects with the signal's reason within a chunk of the file being read, a file of
 * any size, and leaves no file open; `verify` stopped by Ctrl-C exits 130 with one line and no verdict,
 * and `load` stopped while it hashes takes the load's interrupted path (exit 143 on SIGTERM, one line,
 * no temp database). `verify BUNDLE.zip` stops the same way within a big bundle entry (it read the
 * whole zip before giving way). The big file is sparse (1 GiB of zeros that take no disk) and read through the
 * real file system. Promptness is measured in bytes, not time: how much the process read (Linux's
 * /proc/<pid>/io), far less than the file. (A load whose hashing ignored the signal stopped too, but
 * only once the whole file was hashed.) Open files are those /proc/<pid>/fd lists.
 */
import { mkdir, open, readdir, readFile, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyBundle } from '../../src/pipeline/verify-bundle.js';
import { hashFiles } from '../../src/snapshot/hash-pool.js';
import { verifySnapshot } from '../../src/snapshot/verify.js';
import { spawnCli } from '../helpers/cli.js';
import { snapshotWithSparseFile } from '../helpers/sparse-snapshot.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { FIXTURES } from '../warehouse/helpers.js';

/** Far more than any test reads before it stops: the assertions below allow reading half of it. */
const BIG_BYTES = 2 ** 30;

let work: string;
/** A copy of the first fixture snapshot with a sparse BIG_BYTES file added (it verifies). */
let snapshot: string;
/** The big file, as /proc shows it among a process's open files. */
let bigFile: string;

beforeAll(async () => {
  work = await makeTempDir('airt-verify-int-');
  ({ snapshot, bigFile } = await snapshotWithSparseFile(work, BIG_BYTES));
});

/** Bytes the process `pid` has read so far (any file, any thread). */
async function bytesRead(pid: number | 'self' = 'self'): Promise<number> {
  const io = await readFile(`/proc/${pid}/io`, 'utf8');
  return Number(/^rchar: (\d+)$/m.exec(io)![1]);
}

/** Whether the process `pid` has `file` open now. */
async function hasOpen(file: string, pid: number | 'self' = 'self'): Promise<boolean> {
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
  const targets = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  return targets.includes(file);
}

/** Resolves once `ready()` holds (polled), or false when `until` settles first. */
async function whenReady(ready: () => Promise<boolean>, until: Promise<unknown>): Promise<boolean> {
  let over = false;
  void until.then(() => (over = true));
  for (;;) {
    if (over) return false;
    if (await ready()) return true;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Runs `hash` with a signal aborted once it has read some of the big file; returns what it rejected
 * with, the abort's reason, and the bytes read from start to rejection.
 */
async function abortedMidway(
  hash: (signal: AbortSignal) => Promise<unknown>,
  file = bigFile,
): Promise<{ error: unknown; reason: Error; read: number; open: boolean }> {
  const controller = new AbortController();
  const reason = new Error('stop hashing');
  const before = await bytesRead();
  const hashing = hash(controller.signal).then(
    () => new Error('hashing finished although it was aborted'),
    (error: unknown) => error,
  );
  const reading = await whenReady(
    async () => (await hasOpen(file)) && (await bytesRead()) - before > 8 * 1024 * 1024,
    hashing,
  );
  expect(reading, 'the big file was being read when the signal was aborted').toBe(true);
  controller.abort(reason);
  const error = await hashing;
  return { error, reason, read: (await bytesRead()) - before, open: await hasOpen(file) };
}

describe('verifySnapshot with an aborted signal', () => {
  it('rejects with the reason of a signal aborted before it starts, reading nothing', async () => {
    const reason = new Error('stopped before');
    const before = await bytesRead();
    await expect(verifySnapshot(snapshot, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(await bytesRead()).toBeLessThan(before + 1024 * 1024);
    expect(await hasOpen(bigFile)).toBe(false);
  });

  it('stops within the big file when the signal is aborted while it is read, and closes it', async () => {
    const { error, reason, read, open } = await abortedMidway((signal) =>
      verifySnapshot(snapshot, { signal }),
    );
    expect(error).toBe(reason);
    expect(read).toBeLessThan(BIG_BYTES / 2);
    expect(open).toBe(false);
  });

  it('stops the same way on this thread, where files small in all are hashed', async () => {
    // totalBytes as if small: hashed on this thread (INLINE_HASH_BYTES), by hash-pool's own stream.
    const { error, reason, read, open } = await abortedMidway((signal) =>
      hashFiles([bigFile], { totalBytes: 0, signal }),
    );
    expect(error).toBe(reason);
    expect(read).toBeLessThan(BIG_BYTES / 2);
    expect(open).toBe(false);
  });

  it('a signal never aborted changes nothing', async () => {
    const signal = new AbortController().signal;
    const result = await verifySnapshot(FIXTURES.first, { signal });
    expect(result.ok).toBe(true);
    const files = result.manifest.files.map((f) => path.join(FIXTURES.first, f.path));
    const expected = result.manifest.files.map((f) => ({ sha256: f.sha256, bytes: f.bytes }));
    expect(await hashFiles(files, { threads: 2, signal })).toEqual(expected);
    expect(await hashFiles(files, { totalBytes: 0, signal })).toEqual(expected);
  });
});

/**
 * Starts the CLI with `args`, sends `signal` once it reads the big file, and waits for it to end.
 * `read`: the bytes the child had read when last sampled before it exited (hashing the whole big file
 * shows as more than BIG_BYTES).
 */
async function stoppedWhileHashing(args: readonly string[], signal: NodeJS.Signals, file = bigFile) {
  const { child, finished } = spawnCli(args);
  const pid = child.pid!;
  let read = 0;
  let exited = false;
  void finished.then(() => (exited = true));
  const sampling = (async () => {
    while (!exited) {
      read = await bytesRead(pid).catch(() => read);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  const reading = await whenReady(() => hasOpen(file, pid), finished);
  if (reading) child.kill(signal);
  const run = await finished;
  await sampling;
  const where = `${signal}; exit ${run.code ?? run.signal}; ${read} bytes read\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
  return { reading, read, run, where };
}

describe('commands stopped while they hash a big file', () => {
  it('verify: Ctrl-C exits 130 with one line and no verdict', async () => {
    const { reading, read, run, where } = await stoppedWhileHashing(['verify', snapshot], 'SIGINT');
    expect(reading, where).toBe(true);
    expect(read, where).toBeLessThan(BIG_BYTES / 2);
    expect(run.signal, where).toBeNull();
    expect(run.code, where).toBe(130);
    expect(run.stdout, where).toBe('');
    expect(run.stderr, where).toMatch(
      /^airt-report: Interrupted by SIGINT before .* was fully verified; run verify again for a verdict\.\n$/,
    );
  });

  it('load: SIGTERM while it verifies exits 143 through the load interrupted path, leaving nothing', async () => {
    const dir = path.join(work, 'load');
    await mkdir(dir);
    const args = ['load', snapshot, '--db', path.join(dir, 'airt.duckdb')];
    const { reading, read, run, where } = await stoppedWhileHashing(args, 'SIGTERM');
    expect(reading, where).toBe(true);
    // Stopped within the big file, not once it had been hashed to the end.
    expect(read, where).toBeLessThan(BIG_BYTES / 2);
    expect(run.signal, where).toBeNull();
    expect(run.code, where).toBe(143);
    expect(run.stderr, where).toMatch(
      /^airt-report: Interrupted by SIGTERM during the load: 0 of 1 snapshot\(s\) done/m,
    );
    expect(run.stderr.match(/Interrupted by/g), where).toHaveLength(1);
    // A first load stopped before it committed anything: no database, no temp database or WAL.
    expect(await readdir(dir), where).toEqual([]);
  });
});

/**
 * A zip holding one stored (uncompressed) entry of `bytes` zeros, written sparse: the entry's data is
 * a hole, so the file takes no disk yet is read through the real file system like any bundle.
 */
async function writeSparseStoredZip(file: string, entryName: string, bytes: number): Promise<void> {
  const zeros = Buffer.alloc(4 * 1024 * 1024);
  let crc = 0;
  for (let done = 0; done < bytes; done += zeros.length) crc = crc32(zeros, crc);
  const name = Buffer.from(entryName, 'utf8');
  const DOS_DATE_1980_01_01 = 0x21;
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(10, 4); // version needed: stored
  local.writeUInt16LE(DOS_DATE_1980_01_01, 12);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(bytes, 18);
  local.writeUInt32LE(bytes, 22);
  local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(10, 6);
  central.writeUInt16LE(DOS_DATE_1980_01_01, 14);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(bytes, 20);
  central.writeUInt32LE(bytes, 24);
  central.writeUInt16LE(name.length, 28);
  const centralOffset = local.length + name.length + bytes;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + name.length, 12);
  end.writeUInt32LE(centralOffset, 16);
  const handle = await open(file, 'w');
  try {
    await handle.write(Buffer.concat([local, name]), 0, local.length + name.length, 0);
    const tail = Buffer.concat([central, name, end]);
    await handle.write(tail, 0, tail.length, centralOffset);
  } finally {
    await handle.close();
  }
}

describe('verify of a bundle (.zip), stopped', () => {
  /** A bundle-shaped zip whose one entry is BIG_BYTES of zeros (not a valid bundle: no SHA256SUMS). */
  let bundle: string;
  /** The bundle, as /proc shows it among a process's open files. */
  let bundleFile: string;

  beforeAll(async () => {
    bundle = path.join(work, 'big-bundle.zip');
    await writeSparseStoredZip(bundle, 'snapshot/findings/big.json', BIG_BYTES);
    bundleFile = await realpath(bundle);
  });

  it('verifyBundle rejects with the reason of a signal aborted before it starts, reading nothing', async () => {
    const reason = new Error('stopped before');
    const before = await bytesRead();
    await expect(verifyBundle(bundle, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(await bytesRead()).toBeLessThan(before + 1024 * 1024);
    expect(await hasOpen(bundleFile)).toBe(false);
  });

  it('verifyBundle stops within the big entry when the signal is aborted while it is read, and closes it', async () => {
    const { error, reason, read, open } = await abortedMidway(
      (signal) => verifyBundle(bundle, { signal }),
      bundleFile,
    );
    expect(error).toBe(reason);
    expect(read).toBeLessThan(BIG_BYTES / 2);
    expect(open).toBe(false);
  });

  it('verify BUNDLE.zip: Ctrl-C exits 130 with one line and no verdict', async () => {
    const { reading, read, run, where } = await stoppedWhileHashing(['verify', bundle], 'SIGINT', bundleFile);
    expect(reading, where).toBe(true);
    // Stopped within the big entry, not once it had been read to the end.
    expect(read, where).toBeLessThan(BIG_BYTES / 2);
    expect(run.signal, where).toBeNull();
    expect(run.code, where).toBe(130);
    expect(run.stdout, where).toBe('');
    expect(run.stderr, where).toMatch(
      /^airt-report: Interrupted by SIGINT before .*big-bundle\.zip was fully verified; run verify again for a verdict\.\n$/,
    );
  });

  it('a signal never aborted changes nothing: the bundle is read to the end and judged', async () => {
    const small = path.join(work, 'small-bundle.zip');
    await writeSparseStoredZip(small, 'snapshot/findings/big.json', 16 * 1024 * 1024);
    const result = await verifyBundle(small, { signal: new AbortController().signal });
    expect(result.entries).toBe(1);
    expect(result.ok).toBe(false);
    expect(result.problems).toContain(
      'SHA256SUMS is missing: this is not an airt-report bundle, or it was stripped.',
    );
  });
});
