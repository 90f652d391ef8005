/**
 * A request never waits for the file system, and no file is written before the run may write: the
 * snapshot sends its first requests while its journal is still being written (two fsyncs), and a
 * fetched body waits in memory until the journal exists (FileStore's `ready`), so a working directory
 * never holds a data file without a journal. Checked by order, not by time: the body has arrived (its
 * facts were read) while `ready` is still pending, and nothing is on disk until it resolves; a
 * `ready` that fails stops the file with that error and leaves nothing behind.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { readConfigFacts, type ConfigFacts } from '../../src/snapshot/check-body.js';
import { configTarget } from '../../src/snapshot/fetch-plan.js';
import { FileStore } from '../../src/snapshot/file-store.js';
import { journalHeader, startJournal, type JournalFile } from '../../src/snapshot/journal.js';
import { createProgress } from '../../src/snapshot/progress.js';
import { RunStopper } from '../../src/snapshot/run-stopper.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { SMALL, TOKEN } from './fixtures.js';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator(SMALL);
});
afterAll(async () => {
  await sim.close();
});

/** Files under `dir`, recursively, relative (temp files included). */
async function filesIn(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

/** A store over a fresh directory whose `ready` the test settles; `sent` lists the requests made. */
async function storeWithPendingReady(): Promise<{
  store: FileStore;
  dir: string;
  sent: string[];
  appended: JournalFile[];
  open: () => void;
  fail: (error: Error) => void;
  close: () => Promise<void>;
}> {
  const dir = await makeTempDir('airt-ready-');
  const sent: string[] = [];
  const client = createApiClient({
    baseUrl: sim.url,
    token: TOKEN,
    concurrency: 2,
    fetch: (input, init) => {
      sent.push(input instanceof URL ? input.href : typeof input === 'string' ? input : input.url);
      return undiciFetch(input, init);
    },
  });
  // The journal lives beside the working directory here, so the directory shows only data files.
  const journalDir = await makeTempDir('airt-ready-journal-');
  const journal = await startJournal(
    journalDir,
    journalHeader({
      snapshot_id: 'test',
      org: sim.org,
      workspace: sim.workspace,
      base_url: sim.url,
      started_at: new Date(0).toISOString(),
      options: { projects: [], trials_limit: 5000, jailbreaks_only: false, since: null },
    }),
  );
  const appended: JournalFile[] = [];
  let open: () => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  const store = new FileStore({
    dir,
    client,
    journal: {
      append: (file) => {
        appended.push(file);
        return journal.append(file);
      },
      flush: () => journal.flush(),
      close: () => journal.close(),
    },
    progress: createProgress({ write: () => undefined, isTTY: false, quiet: true }),
    stopper: new RunStopper(),
    now: () => new Date(0),
    concurrency: 2,
    finished: new Map(),
    ready,
  });
  const close = async (): Promise<void> => {
    await store.close();
    await journal.close();
    await client.close();
  };
  return { store, dir, sent, appended, open, fail, close };
}

describe('FileStore: requests before the run may write, files only after', () => {
  it('sends the request and reads the body while ready is pending, and writes the file only once it resolves', async () => {
    const { store, dir, sent, appended, open, close } = await storeWithPendingReady();
    try {
      let arrived: (facts: ConfigFacts) => void = () => undefined;
      const factsRead = new Promise<ConfigFacts>((resolve) => (arrived = resolve));
      const obtained = store.obtain(configTarget(), readConfigFacts, { onFacts: (facts) => arrived(facts) });
      const facts = await factsRead;
      expect(facts.apiVersion).toEqual(expect.any(String));
      expect(sent).toHaveLength(1);
      // The body is in memory; nothing (not even a temp file) is on disk, and no journal line.
      expect(await filesIn(dir)).toEqual([]);
      expect(appended).toEqual([]);
      open();
      const result = await obtained;
      expect(typeof result === 'object' && result.facts).toEqual(facts);
      expect(await filesIn(dir)).toEqual(['config.json']);
      await store.drain();
      expect(appended.map((file) => file.path)).toEqual(['config.json']);
    } finally {
      await close();
    }
  });

  it('stops the file with the error of a ready that fails, and leaves nothing behind', async () => {
    const { store, dir, appended, fail, close } = await storeWithPendingReady();
    try {
      let arrived: () => void = () => undefined;
      const factsRead = new Promise<void>((resolve) => (arrived = resolve));
      const obtained = store.obtain(configTarget(), readConfigFacts, { onFacts: () => arrived() });
      await factsRead;
      const disk = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      fail(disk);
      await expect(obtained).rejects.toBe(disk);
      expect(await filesIn(dir)).toEqual([]);
      expect(appended).toEqual([]);
    } finally {
      await close();
    }
  });
});
