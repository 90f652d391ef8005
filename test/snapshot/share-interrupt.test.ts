/**
 * Interrupting a snapshot that links files from the previous one (SIGKILL or SIGINT of the real CLI
 * at random points of its progress, repeated) never leaves a published snapshot that fails verify and
 * never changes a byte of the previous snapshot, whose files the run shares by hard link: every write
 * of a snapshot goes to a temp file that is renamed, so a linked inode is never written in place.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { takeSnapshot, type SnapshotResult } from '../../src/snapshot/take-snapshot.js';
import { verifySnapshot } from '../../src/snapshot/verify.js';
import { spawnCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { dataFileHashes, SMALL, TOKEN } from './fixtures.js';

const TRIALS = 6;
const WORKSPACE = { ...SMALL, scale: { ...SMALL.scale, assessmentsPerProject: 6 } };

let sim: RunningSimulator;
let previous: SnapshotResult;
let previousHashes: Map<string, string>;
let reference: Map<string, string>;

beforeAll(async () => {
  // Latency stretches the run so the kill points spread over it; it changes no byte.
  sim = await startSimulator({ ...WORKSPACE, faults: 'latency=10ms' });
  const base = { baseUrl: sim.url, org: sim.org, workspace: sim.workspace, token: TOKEN };
  previous = await takeSnapshot({ ...base, out: await makeTempDir('airt-share-kill-prev-') });
  previousHashes = await dataFileHashes(previous.dir);
  reference = previousHashes;
});

afterAll(async () => {
  await sim.close();
});

/** A small seeded generator, so a failing sequence of kill points can be replayed from its seed. */
function generator(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Data files (no temp files, no journal) below `dir`, or -1 when it is gone. */
async function storedFiles(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => undefined);
  if (!entries) return -1;
  return entries.filter((e) => e.isFile() && !e.name.startsWith('.')).length;
}

describe('interrupting a linking snapshot', () => {
  it(`${TRIALS} random SIGKILL/SIGINT points: published snapshots verify, the previous one never changes`, async () => {
    const seed = Date.now() % 100_000;
    const random = generator(seed);
    const root = await makeTempDir('airt-share-kill-');
    const parent = path.join(root, sim.org, sim.workspace);
    const files = previous.manifest.files.length;
    const outcomes: string[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const signal: NodeJS.Signals = trial % 2 === 0 ? 'SIGKILL' : 'SIGINT';
      // Kill once the working directory holds this many files (0 = as soon as it exists). Every
      // third trial aims at the end: the last files, publishing (the manifest is a file too), or after.
      const killAt =
        trial % 3 === 2 ? files - 1 + Math.floor(random() * 4) : Math.floor(random() * (files + 1));
      const { child, finished } = spawnCli(
        [
          'snapshot',
          ...['--base-url', sim.url, '--org', sim.org, '--workspace', sim.workspace],
          ...['--out', root, '--since', previous.dir, '--concurrency', '2', '--quiet'],
        ],
        { env: { AIRT_TOKEN: TOKEN } },
      );
      let exited = false;
      void finished.then(() => (exited = true));
      const before = new Set(await readdir(parent).catch(() => [] as string[]));
      // Bounded wait: the run itself ends within seconds, and the loop stops when it exits.
      for (let polls = 0; polls < 4000 && !exited; polls++) {
        const names = await readdir(parent).catch(() => [] as string[]);
        const fresh = names.filter((n) => !before.has(n));
        const counts = await Promise.all(fresh.map((n) => storedFiles(path.join(parent, n))));
        if (fresh.length > 0 && Math.max(...counts) >= killAt) break;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      if (!exited) child.kill(signal);
      const run = await finished;
      outcomes.push(`${signal}@${killAt}/${files}:${run.signal ?? run.code}`);

      // Whatever got a final name verifies; the previous snapshot is byte for byte as it was.
      for (const name of await readdir(parent)) {
        if (name.endsWith('.partial')) continue;
        const result = await verifySnapshot(path.join(parent, name));
        expect(result.ok, `seed ${seed}, trial ${trial} (${outcomes.at(-1)}): ${name}`).toBe(true);
        expect(await dataFileHashes(path.join(parent, name))).toEqual(reference);
      }
      const prev = await verifySnapshot(previous.dir);
      expect(prev.ok, `seed ${seed}, trial ${trial}: previous snapshot`).toBe(true);
      expect(await dataFileHashes(previous.dir)).toEqual(previousHashes);
    }

    // A working directory a kill left behind resumes into a snapshot that verifies (one killed before
    // its journal was written has nothing to resume: --resume says so, and a new snapshot is the way).
    const partials = (await readdir(parent)).filter((n) => n.endsWith('.partial'));
    const withJournal = await Promise.all(
      partials.map((n) =>
        stat(path.join(parent, n, '.journal.jsonl')).then(
          () => true,
          () => false,
        ),
      ),
    );
    const leftover = partials.find((_, i) => withJournal[i]);
    if (leftover) {
      const resumed = await takeSnapshot({
        baseUrl: sim.url,
        org: sim.org,
        workspace: sim.workspace,
        token: TOKEN,
        out: root,
        resume: path.join(parent, leftover),
      });
      expect((await verifySnapshot(resumed.dir)).ok).toBe(true);
      expect(await dataFileHashes(resumed.dir)).toEqual(reference);
    }
    // The previous snapshot's inodes are shared, still whole, and were never replaced.
    for (const file of previous.manifest.files) {
      expect((await stat(path.join(previous.dir, file.path))).size).toBe(file.bytes);
    }
    expect((await verifySnapshot(previous.dir)).ok).toBe(true);
  }, 60_000);
});
