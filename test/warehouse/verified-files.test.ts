/**
 * Issue 14: a load does not re-hash a file this warehouse already hashed and that is untouched since
 * (same device, inode, size, mtime and ctime; src/warehouse/verified-files.ts). A file edited in place
 * with its size and mtime restored has a new ctime and is read again, and the load refuses it; a
 * digest is never recorded for a file changed within the settle window; a load killed at any point
 * leaves a database whose recorded digests are all true.
 */
import { execFileSync } from 'node:child_process';
import { link, mkdir, open, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTLED_MS } from '../../src/snapshot/file-identity.js';
import { computeRootHash, type Manifest } from '../../src/snapshot/manifest.js';
import { verifySnapshot } from '../../src/snapshot/verify.js';
import { loadSnapshots, SnapshotRefusedError, type LoadProgress } from '../../src/warehouse/loader.js';
import { copyFixture, FIXTURES, rows, tableCounts, tempDir } from './helpers.js';
import { loadKilledAt } from './killed-load.js';

let work: { dir: string; cleanup: () => Promise<void> };
/** The fixture's files (one inode each), settled; more snapshots are made of links to them. */
let original: string;

/** A snapshot holding hard links to every file of `from`, under its own id (what `--since` makes). */
async function linkedSnapshot(from: string, id: string): Promise<string> {
  const target = path.join(work.dir, 'snapshots', id);
  const manifest = JSON.parse(await readFile(path.join(from, 'manifest.json'), 'utf8')) as Manifest;
  for (const file of manifest.files) {
    await mkdir(path.dirname(path.join(target, file.path)), { recursive: true });
    await link(path.join(from, file.path), path.join(target, file.path));
  }
  const next = { ...manifest, snapshot_id: id };
  next.root_sha256 = computeRootHash(next.files);
  await writeFile(path.join(target, 'manifest.json'), `${JSON.stringify(next, null, 2)}\n`);
  return target;
}

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, SETTLED_MS + 200));

/** Loads and returns the verify event's count of files not read. */
async function loadCountingReuse(db: string, dir: string): Promise<number> {
  let reused = -1;
  await loadSnapshots(db, [dir], {
    onProgress: (event: LoadProgress) => {
      if (event.type === 'verify') reused = event.reused;
    },
  });
  return reused;
}

async function fileCount(dir: string): Promise<number> {
  return (JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as Manifest).files.length;
}

/** Snapshots by id, all made (and settled) before the tests: any new link moves the inodes' ctime. */
const snapshots = new Map<string, string>();

beforeAll(async () => {
  work = await tempDir('airt-verified-');
  await mkdir(path.join(work.dir, 'snapshots'));
  await mkdir(path.join(work.dir, 'own'));
  original = await copyFixture(FIXTURES.first, path.join(work.dir, 'snapshots'));
  // The tamper test's own inodes: its edit must not damage the other tests' files.
  const own = await copyFixture(FIXTURES.first, path.join(work.dir, 'own'));
  for (const id of ['reuse-a', 'reuse-b', 'kill-a', 'kill-b'])
    snapshots.set(id, await linkedSnapshot(original, id));
  for (const id of ['tamper-a', 'tamper-b']) snapshots.set(id, await linkedSnapshot(own, id));
  await settle();
});
const snapshot = (id: string): string => snapshots.get(id) ?? '';
afterAll(async () => work.cleanup());

describe('verified files (load)', () => {
  it('does not record a digest for a file changed within the settle window', async () => {
    const db = path.join(work.dir, 'fresh.duckdb');
    await mkdir(path.join(work.dir, 'fresh'));
    // Just written: the files' ctime is now, so no digest may be recorded.
    const fresh = await copyFixture(FIXTURES.first, path.join(work.dir, 'fresh'));
    expect(await loadCountingReuse(db, fresh)).toBe(0);
    const again = await verifySnapshot(fresh, { known: await knownFrom(db) });
    expect(again.ok).toBe(true);
    expect(again.reused).toBe(0);
  });

  it('reuses every digest for a snapshot whose files the warehouse already hashed', async () => {
    const db = path.join(work.dir, 'reuse.duckdb');
    const [a, b] = [snapshot('reuse-a'), snapshot('reuse-b')];
    expect(await loadCountingReuse(db, a)).toBe(0);
    expect(await loadCountingReuse(db, b)).toBe(await fileCount(b));
    const [loaded] = await rows(db, 'SELECT count(*) AS n, bool_and(verified) AS ok FROM snapshots');
    expect(loaded).toEqual({ n: 2, ok: true });
  });

  it('re-reads and refuses a file edited in place with its size and mtime restored', async () => {
    const db = path.join(work.dir, 'tamper.duckdb');
    const [a, b] = [snapshot('tamper-a'), snapshot('tamper-b')];
    expect(await loadCountingReuse(db, a)).toBe(0);
    const counts = await tableCounts(db);
    // The same inode as a's summary: same bytes count, one byte changed, mtime set back.
    const victim = path.join(b, (await summaryPath(b)) ?? '');
    const before = await stat(victim, { bigint: true });
    // `touch -r` keeps the exact (nanosecond) times, as an edit covering its tracks would.
    const reference = path.join(work.dir, 'times-of-victim');
    await writeFile(reference, '');
    execFileSync('touch', ['-r', victim, reference]);
    const handle = await open(victim, 'r+');
    try {
      const byte = Buffer.alloc(1);
      await handle.read(byte, 0, 1, 10);
      await handle.write(Buffer.from([byte[0] === 0x20 ? 0x0a : 0x20]), 0, 1, 10);
    } finally {
      await handle.close();
    }
    execFileSync('touch', ['-r', reference, victim]);
    const after = await stat(victim, { bigint: true });
    expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs]);
    const refused = await loadSnapshots(db, [b]).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SnapshotRefusedError);
    expect((refused as SnapshotRefusedError).message).toContain('sha256/size differ from the manifest');
    expect(await tableCounts(db)).toEqual(counts);
  });

  it('leaves only true digests when the load is killed at any point', { timeout: 60_000 }, async () => {
    const db = path.join(work.dir, 'kill.duckdb');
    const [a, b] = [snapshot('kill-a'), snapshot('kill-b')];
    await loadSnapshots(db, [a]);
    // Before the transaction, inside it (the n-th relation written), after its commit.
    const points = [
      ['verify', 1],
      ['table', 12],
      ['committed', 1],
    ] as const;
    for (const [event, nth] of points) {
      const signal = await loadKilledAt(work.dir, db, [b], nth, `e.type === ${JSON.stringify(event)}`);
      expect(signal).toBe('SIGKILL');
      // Every recorded digest is the file's true sha256 (verify with them agrees with a full verify).
      const known = await knownFrom(db);
      const full = await verifySnapshot(b);
      const withKnown = await verifySnapshot(b, { known });
      expect(withKnown.ok).toBe(full.ok);
      expect(full.ok).toBe(true);
      const [loaded] = await rows(db, "SELECT count(*) AS n FROM snapshots WHERE snapshot_id = 'kill-b'");
      // Killed at 'committed': b is in; before: nothing of b.
      expect(Number(loaded?.n)).toBe(event === 'committed' ? 1 : 0);
    }
    const [loaded] = await rows(db, 'SELECT count(*) AS n, bool_and(verified) AS ok FROM snapshots');
    expect(loaded).toEqual({ n: 2, ok: true });
    expect((await readdir(work.dir)).filter((n) => n.includes('.creating-'))).toEqual([]);
  });
});

describe('verifySnapshot with known digests', () => {
  it('reads a file whose known digest differs from the manifest, and finds it good', async () => {
    const wrong = { sha256: '0'.repeat(64), bytes: 1 };
    const result = await verifySnapshot(original, { known: { get: () => wrong } });
    expect(result.ok).toBe(true);
    expect(result.reused).toBe(0);
  });

  it('without known digests reads every file and records nothing', async () => {
    const result = await verifySnapshot(original);
    expect(result.ok).toBe(true);
    expect(result.reused).toBe(0);
    expect(result.hashed).toEqual([]);
  });
});

async function summaryPath(dir: string): Promise<string | undefined> {
  const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  return manifest.files.find((f) => f.kind === 'project_summary')?.path;
}

/** The database's recorded digests, read the way the loader reads them. */
async function knownFrom(db: string) {
  const { openWarehouse } = await import('../../src/warehouse/db.js');
  const { readKnownDigests } = await import('../../src/warehouse/verified-files.js');
  const warehouse = await openWarehouse(db, { readOnly: true });
  try {
    return await readKnownDigests(warehouse.conn);
  } finally {
    warehouse.close();
  }
}
