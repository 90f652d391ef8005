/**
 * Publishing: a crash after any step of publishSnapshot leaves either a resumable `.partial` or the
 * finished snapshot, never a directory under the final name that fails verify; --resume of a
 * `.partial` stopped while publishing finishes it without fetching. Also: a stop signal during
 * publishing is reported after the snapshot is in place, a run where nothing was fetched leaves no
 * directory, and verify names a directory that does not exist.
 */
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import { CliError, EXIT, InterruptedError } from '../../src/errors.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { journalHeader, startJournal } from '../../src/snapshot/journal.js';
import { MANIFEST_FILE } from '../../src/snapshot/manifest.js';
import { createProgress, type ProgressReporter } from '../../src/snapshot/progress.js';
import { PUBLISH_STEPS, publishSnapshot, type PublishStep } from '../../src/snapshot/publish.js';
import { takeSnapshot, type SnapshotResult } from '../../src/snapshot/take-snapshot.js';
import { verifySnapshot } from '../../src/snapshot/verify.js';
import { dataFileHashes, FAST_RETRY, SMALL, TOKEN } from './fixtures.js';
import { deadBaseUrl } from '../helpers/dead-base-url.js';

let out: string;
let sim: RunningSimulator;
let reference: SnapshotResult;

beforeAll(async () => {
  out = await mkdtemp(path.join(tmpdir(), 'airt-publish-'));
  sim = await startSimulator(SMALL);
  reference = await takeSnapshot({
    baseUrl: sim.url,
    org: sim.org,
    workspace: sim.workspace,
    token: TOKEN,
    out: path.join(out, 'reference'),
  });
});

afterAll(async () => {
  await sim.close();
  await rm(out, { recursive: true, force: true });
});

class SimulatedCrash extends Error {}

/**
 * A working directory exactly as a run leaves it just before publishing: the reference's data files,
 * a journal vouching for them, no manifest, plus an unlisted leftover the sweep must remove.
 */
async function workingDirectory(name: string): Promise<{ parent: string; partialDir: string }> {
  const parent = path.join(out, name, 'acme', 'main');
  const partialDir = path.join(parent, `${reference.snapshotId}.partial`);
  await cp(reference.dir, partialDir, { recursive: true });
  await rm(path.join(partialDir, MANIFEST_FILE));
  const { manifest } = reference;
  const header = journalHeader({
    snapshot_id: manifest.snapshot_id,
    org: manifest.org,
    workspace: manifest.workspace,
    base_url: sim.url,
    started_at: manifest.started_at,
    options: manifest.options,
  });
  const files = manifest.files.map(
    ({ issues: _issues, issues_total: _total, unknown_keys: _keys, records: _records, ...file }) => file,
  );
  await (await startJournal(partialDir, header, files)).close();
  await writeFile(path.join(partialDir, 'stale-page.json'), '{}\n');
  return { parent, partialDir };
}

/** The invariant: the final name exists only as a snapshot that verifies, and then alone. */
async function expectNothingHalfPublished(parent: string): Promise<'partial' | 'final'> {
  const names = (await readdir(parent)).sort();
  if (names.includes(reference.snapshotId)) {
    expect(names).toEqual([reference.snapshotId]);
    const result = await verifySnapshot(path.join(parent, reference.snapshotId));
    expect(result.ok).toBe(true);
    return 'final';
  }
  expect(names).toEqual([`${reference.snapshotId}.partial`]);
  return 'partial';
}

const resumeOptions = (partialDir: string, name: string) => ({
  baseUrl: sim.url,
  org: 'acme',
  workspace: 'main',
  token: TOKEN,
  out: path.join(out, name),
  resume: partialDir,
});

describe('publishing order', () => {
  it('reports its steps in order and ends with the final name only', async () => {
    const { parent, partialDir } = await workingDirectory('steps');
    const seen: PublishStep[] = [];
    const finalDir = path.join(parent, reference.snapshotId);
    await publishSnapshot(partialDir, finalDir, reference.manifest, {
      afterStep: async (step) => {
        seen.push(step);
        // Before the rename nothing exists under the final name, whatever the step.
        if (step !== 'renamed') expect(await expectNothingHalfPublished(parent)).toBe('partial');
      },
    });
    expect(seen).toEqual([...PUBLISH_STEPS]);
    expect(await expectNothingHalfPublished(parent)).toBe('final');
    expect(await dataFileHashes(finalDir)).toEqual(await dataFileHashes(reference.dir));
  });

  it.each(PUBLISH_STEPS.filter((step) => step !== 'renamed'))(
    'a crash after %s leaves a .partial that --resume publishes with the same bytes',
    async (crashAfter) => {
      const name = `crash-after-${crashAfter}`;
      const { parent, partialDir } = await workingDirectory(name);
      const finalDir = path.join(parent, reference.snapshotId);
      const crash = publishSnapshot(partialDir, finalDir, reference.manifest, {
        afterStep: (step) => {
          if (step === crashAfter) throw new SimulatedCrash(step);
        },
      });
      await expect(crash).rejects.toBeInstanceOf(SimulatedCrash);
      expect(await expectNothingHalfPublished(parent)).toBe('partial');

      const before = sim.stats().requests;
      const resumed = await takeSnapshot(resumeOptions(partialDir, name));
      const requests = sim.stats().requests - before;
      expect(resumed.dir).toBe(finalDir);
      expect(resumed.status).toBe('complete');
      expect(await expectNothingHalfPublished(parent)).toBe('final');
      expect(await dataFileHashes(finalDir)).toEqual(await dataFileHashes(reference.dir));
      if (crashAfter === 'swept') {
        // No manifest yet: the journal is resumed, every file reused by hash.
        expect(requests).toBeLessThan(reference.manifest.files.length);
      } else {
        // The manifest was written and matches: nothing is fetched, the very manifest is published.
        expect(requests).toBe(0);
        expect(resumed.manifest).toEqual(reference.manifest);
      }
    },
  );

  it('--resume of a .partial whose manifest does not match its files resumes the journal instead', async () => {
    const name = 'mismatched-manifest';
    const { parent, partialDir } = await workingDirectory(name);
    const finalDir = path.join(parent, reference.snapshotId);
    await expect(
      publishSnapshot(partialDir, finalDir, reference.manifest, {
        afterStep: (step) => {
          if (step === 'manifest_written') throw new SimulatedCrash(step);
        },
      }),
    ).rejects.toBeInstanceOf(SimulatedCrash);
    // A body changed after the manifest vouched for it: the journal (same hashes) no longer vouches either.
    const victim = reference.manifest.files.find((file) => file.kind === 'trials')!;
    await writeFile(path.join(partialDir, victim.path), '[]\n');

    const before = sim.stats().requests;
    const resumed = await takeSnapshot(resumeOptions(partialDir, name));
    expect(sim.stats().requests - before).toBeGreaterThanOrEqual(1);
    expect(resumed.status).toBe('complete');
    expect(await expectNothingHalfPublished(parent)).toBe('final');
    expect(await dataFileHashes(finalDir)).toEqual(await dataFileHashes(reference.dir));
  });
});

describe('a stop signal while publishing', () => {
  it.each([
    { signal: 'SIGINT', exitCode: EXIT.interrupted },
    { signal: 'SIGTERM', exitCode: EXIT.terminated },
  ] as const)(
    '$signal lets publishing finish, then exits $exitCode naming the snapshot',
    async ({ signal, exitCode }) => {
      const root = path.join(out, `publish-${signal}`);
      const controller = new AbortController();
      const inner = createProgress({ write: () => undefined, isTTY: false, quiet: true });
      // The progress display is stopped when every request is done and publishing starts.
      const progress: ProgressReporter = {
        ...inner,
        stop() {
          inner.stop();
          controller.abort(new InterruptedError(signal));
        },
      };
      const error = await takeSnapshot(
        { baseUrl: sim.url, org: 'acme', workspace: 'main', token: TOKEN, out: root },
        { signal: controller.signal, progress },
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(exitCode);
      const message = (error as CliError).message;
      expect(message).toContain(`Interrupted by ${signal} while the snapshot was being published`);
      const parent = path.join(root, 'acme', 'main');
      const names = await readdir(parent);
      expect(names).toHaveLength(1);
      const dir = path.join(parent, names[0]!);
      expect(names[0]).not.toMatch(/\.partial$/);
      expect(message).toContain(dir);
      expect((await verifySnapshot(dir)).ok).toBe(true);
      expect(await dataFileHashes(dir)).toEqual(await dataFileHashes(reference.dir));
    },
  );
});

describe('nothing fetched', () => {
  it('leaves no directory when nothing listens at the base URL', async () => {
    const root = path.join(out, 'unreachable');
    const error = await takeSnapshot({
      baseUrl: await deadBaseUrl(),
      org: 'acme',
      workspace: 'main',
      token: TOKEN,
      out: root,
      retry: { ...FAST_RETRY, maxAttempts: 2 },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT.failure);
    expect((error as CliError).message).toMatch(
      /^Nothing was fetched, so there is no snapshot: .*ECONNREFUSED/,
    );
    // Nor the folders made for it: the output directory did not exist before.
    await expect(readdir(root)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('verify of a path that is no snapshot', () => {
  it('says the directory does not exist', async () => {
    const missing = path.join(out, 'no-such-dir');
    const io = recordingIO();
    expect(await main(['verify', missing], io)).toBe(EXIT.failure);
    expect(io.err.join('')).toContain(`${missing} does not exist`);
  });

  it('still says a directory without a manifest is not a finished snapshot', async () => {
    const empty = path.join(out, 'empty-dir');
    await mkdir(empty);
    const io = recordingIO();
    expect(await main(['verify', empty], io)).toBe(EXIT.failure);
    expect(io.err.join('')).toContain(`has no ${MANIFEST_FILE}`);
  });
});
