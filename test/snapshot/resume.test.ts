/**
 * Interruptions: SIGKILL, SIGINT and SIGTERM of a real child process, an abort in-process, and requests
 * that keep failing.
 * Each must leave nothing that looks finished, and --resume must complete the snapshot with data
 * byte-identical to an uninterrupted run while re-fetching only what is missing.
 */
import { access, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import { CliError, EXIT, UsageError } from '../../src/errors.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { createProgress, type ProgressReporter } from '../../src/snapshot/progress.js';
import { SnapshotStoppedError, takeSnapshot, type SnapshotResult } from '../../src/snapshot/take-snapshot.js';
import { verifySnapshot } from '../../src/snapshot/verify.js';
import { isTempFileName } from '../../src/snapshot/write-atomic.js';
import { spawnCli } from '../helpers/cli.js';
import { dataFileHashes, FAST_RETRY, readManifestFile, SMALL, startFailingProxy, TOKEN } from './fixtures.js';

let out: string;
let sim: RunningSimulator;
let reference: SnapshotResult;
const WORKSPACE = { ...SMALL, scale: { ...SMALL.scale, assessmentsPerProject: 8 } };

const exists = (file: string): Promise<boolean> =>
  access(file).then(
    () => true,
    () => false,
  );

beforeAll(async () => {
  out = await mkdtemp(path.join(tmpdir(), 'airt-resume-'));
  // Latency makes a run long enough to interrupt in the middle; it does not change any byte.
  sim = await startSimulator({ ...WORKSPACE, faults: 'latency=40ms' });
  reference = await takeSnapshot({
    baseUrl: sim.url,
    org: sim.org,
    workspace: sim.workspace,
    token: TOKEN,
    out: path.join(out, 'reference'),
    concurrency: 8,
  });
});

afterAll(async () => {
  await sim.close();
  await rm(out, { recursive: true, force: true });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition not reached in time');
}

/** A snapshot of acme/main into `root`, one request at a time (long enough to interrupt mid-run). */
const snapshotOneAtATime = (root: string): string[] => [
  'snapshot',
  '--base-url',
  sim.url,
  '--org',
  'acme',
  '--workspace',
  'main',
  '--out',
  root,
  '--concurrency',
  '1',
];

describe('interrupted snapshots', () => {
  it('SIGKILL mid-run leaves only a resumable .partial; --resume gives the same bytes', async () => {
    const root = path.join(out, 'killed');
    const parent = path.join(root, 'acme', 'main');
    const { child, finished } = spawnCli(snapshotOneAtATime(root), { env: { AIRT_TOKEN: TOKEN } });
    let partialDir = '';
    await waitFor(async () => {
      const names = await readdir(parent).catch(() => [] as string[]);
      const partial = names.find((n) => n.endsWith('.partial'));
      if (!partial) return false;
      partialDir = path.join(parent, partial);
      const trials = await readdir(path.join(partialDir, 'trials')).catch(() => [] as string[]);
      return trials.filter((t) => t.endsWith('.json') && !t.startsWith('.')).length >= 2;
    }, 30_000);
    child.kill('SIGKILL');
    const run = await finished;
    expect(run.signal).toBe('SIGKILL');

    // Nothing looks finished: no manifest in the .partial and no directory under the final name.
    expect(await readdir(parent)).toEqual([path.basename(partialDir)]);
    expect(await exists(path.join(partialDir, 'manifest.json'))).toBe(false);

    const before = sim.stats().requests;
    const resumed = await takeSnapshot({
      baseUrl: sim.url,
      org: 'acme',
      workspace: 'main',
      token: TOKEN,
      out: root,
      resume: partialDir,
    });
    const fetchedAgain = sim.stats().requests - before;
    expect(resumed.status).toBe('complete');
    expect(resumed.dir).toBe(partialDir.replace(/\.partial$/, ''));
    expect(await dataFileHashes(resumed.dir)).toEqual(await dataFileHashes(reference.dir));
    expect(resumed.manifest.root_sha256).toBe(reference.manifest.root_sha256);
    expect(fetchedAgain).toBeLessThan(reference.manifest.files.length);
    expect((await verifySnapshot(resumed.dir)).ok).toBe(true);
  });

  // The CLI stops the same way on Ctrl-C and on a service manager's SIGTERM; only the exit code differs.
  it.each([
    { signal: 'SIGINT', exitCode: EXIT.interrupted },
    { signal: 'SIGTERM', exitCode: EXIT.terminated },
  ] as const)(
    'a real $signal mid-run exits $exitCode, names the signal and leaves a resumable .partial',
    async ({ signal, exitCode }) => {
      const root = path.join(out, `stopped-by-${signal}`);
      const parent = path.join(root, 'acme', 'main');
      const { child, finished } = spawnCli(snapshotOneAtATime(root), { env: { AIRT_TOKEN: TOKEN } });
      await waitFor(async () => {
        const names = await readdir(parent).catch(() => [] as string[]);
        const partial = names.find((n) => n.endsWith('.partial'));
        if (!partial) return false;
        const trials = await readdir(path.join(parent, partial, 'trials')).catch(() => [] as string[]);
        return trials.some((t) => t.endsWith('.json') && !t.startsWith('.'));
      }, 30_000);
      child.kill(signal);
      const run = await finished;
      expect(run.signal).toBeNull();
      expect(run.code).toBe(exitCode);
      expect(run.stderr).toContain(`airt-report: Interrupted by ${signal} before the snapshot was finished.`);
      const match = /airt-report snapshot --resume (\S+\.partial)/.exec(run.stderr);
      expect(match).not.toBeNull();
      const partialDir = match![1]!;

      // Nothing looks finished and nothing is half-written: only the .partial, no manifest, no temp files.
      expect(await readdir(parent)).toEqual([path.basename(partialDir)]);
      expect(await exists(path.join(partialDir, 'manifest.json'))).toBe(false);
      const leftovers = await readdir(partialDir, { recursive: true });
      expect(leftovers.filter((name) => isTempFileName(path.basename(name)))).toEqual([]);

      const resumed = await takeSnapshot({
        baseUrl: sim.url,
        org: 'acme',
        workspace: 'main',
        token: TOKEN,
        out: root,
        resume: partialDir,
      });
      expect(resumed.status).toBe('complete');
      expect(await dataFileHashes(resumed.dir)).toEqual(await dataFileHashes(reference.dir));
    },
  );

  it('SIGINT (abort) stops cleanly with a resume hint; --resume completes it', async () => {
    const root = path.join(out, 'interrupted');
    const controller = new AbortController();
    const inner = createProgress({ write: () => undefined, isTTY: false, quiet: true });
    // Abort once a few bodies are stored, as a user's Ctrl-C would.
    const progress: ProgressReporter = {
      ...inner,
      done(bytes) {
        inner.done(bytes);
        if (inner.counts().done >= 6) controller.abort(new CliError('Interrupted', EXIT.interrupted));
      },
    };
    const options = { baseUrl: sim.url, org: 'acme', workspace: 'main', token: TOKEN, out: root };
    const error = await takeSnapshot(options, { signal: controller.signal, progress }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT.interrupted);
    const message = (error as CliError).message;
    expect(message).toMatch(/Interrupted/);
    // The library names the kept directory; the CLI adds its --resume command (see the SIGINT test above).
    expect(error).toBeInstanceOf(SnapshotStoppedError);
    const partialDir = (error as SnapshotStoppedError).partialDir;
    expect(message).toContain(partialDir);
    expect(partialDir).toMatch(/\.partial$/);
    expect(await exists(path.join(partialDir, 'manifest.json'))).toBe(false);
    expect((await readdir(partialDir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);

    const resumed = await takeSnapshot({ ...options, resume: partialDir });
    expect(resumed.status).toBe('complete');
    expect(await dataFileHashes(resumed.dir)).toEqual(await dataFileHashes(reference.dir));
  });

  it('a request that keeps failing ends partial (exit 3); --resume fetches only it', async () => {
    const victim = reference.manifest.files.find((f) => f.kind === 'trials')!;
    let failing = true;
    const proxy = await startFailingProxy(sim.url, (p) => failing && p === victim.request!.path);
    try {
      const root = path.join(out, 'partial');
      const args = [
        '--base-url',
        proxy.url,
        '--org',
        'acme',
        '--workspace',
        'main',
        '--out',
        root,
        '--quiet',
      ];
      const io = recordingIO({ env: { AIRT_TOKEN: TOKEN } });
      expect(await main(['snapshot', ...args], io)).toBe(3);
      const dir = io.out.join('').trim().split('\n').at(-1)!;
      expect(io.err.join('')).toMatch(/1 request\(s\) failed.*--resume/s);
      const manifest = await readManifestFile(dir);
      expect(manifest.status).toBe('partial');
      expect(manifest.failed_requests).toHaveLength(1);
      expect(manifest.failed_requests[0]).toMatchObject({
        path: victim.request!.path,
        file: victim.path,
        kind: 'trials',
        status: 502,
      });
      expect(manifest.failed_requests[0]!.attempts).toBeGreaterThan(1);
      expect(manifest.files.find((f) => f.path === victim.path)).toBeUndefined();
      expect((await verifySnapshot(dir)).ok).toBe(true);

      failing = false;
      const before = sim.stats().requests;
      const io2 = recordingIO({ env: { AIRT_TOKEN: TOKEN } });
      expect(await main(['snapshot', ...args, '--resume', dir], io2)).toBe(0);
      expect(sim.stats().requests - before).toBe(1);
      const resumedDir = io2.out.join('').trim().split('\n').at(-1)!;
      expect(resumedDir).toBe(dir);
      expect((await readManifestFile(dir)).status).toBe('complete');
      expect(await dataFileHashes(dir)).toEqual(await dataFileHashes(reference.dir));
      expect((await verifySnapshot(dir)).ok).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it('records failures with the attempts the client made (fast retries)', async () => {
    const victim = reference.manifest.files.find((f) => f.kind === 'project_summary')!;
    const proxy = await startFailingProxy(sim.url, (p) => p === victim.request!.path);
    try {
      const result = await takeSnapshot({
        baseUrl: proxy.url,
        org: 'acme',
        workspace: 'main',
        token: TOKEN,
        out: path.join(out, 'failing-summary'),
        retry: { ...FAST_RETRY, maxAttempts: 3 },
      });
      expect(result.status).toBe('partial');
      expect(result.manifest.failed_requests).toEqual([
        expect.objectContaining({ kind: 'project_summary', status: 502, attempts: 3, file: victim.path }),
      ]);
      expect(result.manifest.projects.find((p) => p.key === victim.project)?.status).toBe('failed');
    } finally {
      await proxy.close();
    }
  });

  it('refuses to resume a complete snapshot or one of another workspace, changing nothing', async () => {
    const options = { baseUrl: sim.url, org: 'acme', workspace: 'main', token: TOKEN, out };
    await expect(takeSnapshot({ ...options, resume: reference.dir })).rejects.toThrow(
      /complete; there is nothing/,
    );
    await expect(
      takeSnapshot({ ...options, workspace: 'other', resume: reference.dir }),
    ).rejects.toBeInstanceOf(UsageError);
    expect((await verifySnapshot(reference.dir)).ok).toBe(true);
  });
});
