/**
 * The `snapshot` and `verify` commands end to end (in-process CLI, simulator on loopback): exit codes
 * and messages for 401 and 426, a hostile slug that must stay inside --out, verify catching changes,
 * findings copied from a triage journal, and progress output.
 */
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { verifySnapshot } from '../../src/snapshot/verify.js';
import { listAll, readJson, readManifestFile, SMALL, startProxy, TOKEN } from './fixtures.js';

let tmp: string;
let sim: RunningSimulator;
let snapshotDir: string;

const connection = (s: RunningSimulator): string[] => [
  '--base-url',
  s.url,
  '--org',
  s.org,
  '--workspace',
  s.workspace,
];

async function cli(args: string[], token = TOKEN): Promise<{ code: number; out: string; err: string }> {
  const io = recordingIO({ env: { AIRT_TOKEN: token } });
  const code = await main(args, io);
  return { code, out: io.out.join(''), err: io.err.join('') };
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'airt-snapcli-'));
  sim = await startSimulator({ ...SMALL, hostileSlug: true });
  const run = await cli(['snapshot', ...connection(sim), '--out', path.join(tmp, 'base')]);
  expect(run.code).toBe(0);
  snapshotDir = run.out.trim().split('\n').at(-1)!;
});

afterAll(async () => {
  await sim.close();
  await rm(tmp, { recursive: true, force: true });
});

describe('airt-report snapshot', () => {
  it('prints the finished directory as the last stdout line and progress on stderr', async () => {
    const run = await cli(['snapshot', ...connection(sim), '--out', path.join(tmp, 'progress')]);
    expect(run.code).toBe(0);
    const last = run.out.trim().split('\n').at(-1)!;
    expect(path.isAbsolute(last)).toBe(true);
    expect((await readManifestFile(last)).status).toBe('complete');
    expect(run.err).toMatch(/snapshot: (\d+)\/\1 requests, [\d.]+ (KiB|MiB), 0 retries, 0 failed/);
    const quiet = await cli(['snapshot', ...connection(sim), '--out', path.join(tmp, 'quiet'), '--quiet']);
    expect(quiet.code).toBe(0);
    expect(quiet.err).toBe('');
  });

  it('keeps a hostile project slug inside --out', async () => {
    const root = path.join(tmp, 'hostile');
    const out = path.join(root, 'a', 'b', 'out');
    const run = await cli([
      'snapshot',
      ...connection(sim),
      '--out',
      out,
      '--project',
      '../../etc',
      '--quiet',
    ]);
    expect(run.code).toBe(0);
    const dir = run.out.trim();
    const manifest = await readManifestFile(dir);
    const hostile = manifest.projects.find((p) => p.key === '../../etc')!;
    expect(hostile.status).toBe('ok');
    expect(hostile.dir).not.toContain('/');
    expect(hostile.dir).not.toContain('..');
    // Everything created lies under --out, and no path segment is the traversal target.
    const everything = await listAll(root);
    for (const file of everything)
      expect(
        file === path.join('a') ||
          file === path.join('a', 'b') ||
          file.startsWith(path.join('a', 'b', 'out')),
      ).toBe(true);
    expect(everything.some((file) => file.split(path.sep).includes('etc'))).toBe(false);
    expect(await readJson(path.join(dir, 'projects', hostile.dir, 'summary.json'))).toMatchObject({
      project_key: '../../etc',
    });
    expect((await verifySnapshot(dir)).ok).toBe(true);
  });

  it('reports an invalid token clearly, exits 1 and leaves no directory', async () => {
    const out = path.join(tmp, 'unauthorized');
    const run = await cli(['snapshot', ...connection(sim), '--out', out, '--quiet'], 'wrong-token-123');
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/401/);
    expect(run.err).toMatch(/AIRT_TOKEN/);
    expect(run.err).not.toContain('wrong-token-123');
    expect(run.out).toBe('');
    // Nor the folders made for it: the output directory did not exist before.
    await expect(readdir(out)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('stops on 426 with an upgrade message naming the service version', async () => {
    const outdated = await startSimulator({ ...SMALL, upgradeRequired: true });
    try {
      const out = path.join(tmp, 'upgrade');
      const run = await cli(['snapshot', ...connection(outdated), '--out', out, '--quiet']);
      expect(run.code).toBe(1);
      expect(run.err).toMatch(/426/);
      expect(run.err).toMatch(/newer client/);
      expect(run.err).toMatch(/api_version \S+/);
      // Nor the folders made for it: the output directory did not exist before.
      await expect(readdir(out)).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await outdated.close();
    }
  });

  it('copies the latest FindingDetail per finding from a triage journal', async () => {
    const findingId = sim.truth.findingIds(sim.projectKeys[0]!)[0]!;
    const detail = (status: string): Record<string, unknown> => ({
      id: findingId,
      assessment_id: '0f8fad5b-d9cb-469f-a165-70867728950e',
      attack_name: 'pair',
      goal: 'leak the system prompt',
      goal_category: null,
      status: 'completed',
      severity: 'high',
      finding_status: status,
      created_at: '2026-01-01T00:00:00Z',
      completed_at: null,
      best_score: 0.9,
      execution_time_s: 1.5,
      finished_trials: 3,
      total_trials: 3,
      compliance_tags: null,
      transforms_applied: null,
    });
    const line = (time: string, workspace: string, finding: unknown): string =>
      JSON.stringify({
        journal: 'airt-triage/1',
        time,
        org: 'acme',
        workspace,
        finding_id: findingId,
        request: { finding_status: 'false_positive' },
        outcome: 'applied',
        http_status: 200,
        error: null,
        finding,
        source: 'cli',
      });
    const journal = path.join(tmp, 'triage.jsonl');
    await writeFile(
      journal,
      [
        line('2026-01-02T00:00:00Z', 'main', detail('false_positive')),
        line('2026-01-01T00:00:00Z', 'main', detail('open')),
        line('2026-01-03T00:00:00Z', 'other-workspace', detail('remediated')),
        'not json',
      ].join('\n') + '\n',
    );
    const run = await cli([
      'snapshot',
      ...connection(sim),
      '--out',
      path.join(tmp, 'findings'),
      '--journal',
      journal,
      '--quiet',
    ]);
    expect(run.code).toBe(0);
    const dir = run.out.trim();
    const manifest = await readManifestFile(dir);
    const findings = manifest.files.filter((f) => f.kind === 'finding');
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      path: `findings/${findingId}.json`,
      request: null,
      finding_id: findingId,
      fetched_at: '2026-01-02T00:00:00Z',
      issues_total: 0,
    });
    expect(await readJson(path.join(dir, findings[0]!.path))).toEqual(detail('false_positive'));
    expect(manifest.warnings.map((w) => w.code)).toContain('journal_lines_skipped');
    expect((await verifySnapshot(dir)).ok).toBe(true);
  });
});

describe('airt-report verify', () => {
  it('passes an intact snapshot', async () => {
    const run = await cli(['verify', snapshotDir]);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/OK \(root sha256 [0-9a-f]{64}\)/);
  });

  it('reports a modified, a missing and an extra file, and exits 1', async () => {
    const copy = path.join(tmp, 'tampered');
    await cp(snapshotDir, copy, { recursive: true });
    const manifest = await readManifestFile(copy);
    const [first, second] = manifest.files.filter((f) => f.kind === 'trials');
    await writeFile(path.join(copy, first!.path), '[]');
    await rm(path.join(copy, second!.path));
    await mkdir(path.join(copy, 'extra'), { recursive: true });
    await writeFile(path.join(copy, 'extra', 'planted.json'), '{}');

    const result = await verifySnapshot(copy);
    expect(result.ok).toBe(false);
    expect(result.modified.map((m) => m.path)).toEqual([first!.path]);
    expect(result.missing).toEqual([second!.path]);
    expect(result.extra).toEqual(['extra/planted.json']);
    expect(result.rootHash.ok).toBe(true);

    const run = await cli(['verify', copy]);
    expect(run.code).toBe(1);
    // Labelled as `verify BUNDLE.zip` labels them: it said "(sha256 <actual> != <expected>)", leaving
    // the reader to guess which was which.
    const actual = createHash('sha256').update('[]').digest('hex');
    expect(run.out).toContain(
      `modified  ${first!.path} (expected sha256 ${first!.sha256}, actual ${actual})`,
    );
    expect(run.out).toContain(`missing   ${second!.path}`);
    expect(run.out).toContain('extra     extra/planted.json');
  });

  it('catches an edited manifest through the root hash', async () => {
    const copy = path.join(tmp, 'edited-manifest');
    await cp(snapshotDir, copy, { recursive: true });
    const manifest = await readManifestFile(copy);
    manifest.root_sha256 = '0'.repeat(64);
    await writeFile(path.join(copy, 'manifest.json'), JSON.stringify(manifest));
    const result = await verifySnapshot(copy);
    expect(result.ok).toBe(false);
    expect(result.rootHash.ok).toBe(false);
    const run = await cli(['verify', copy]);
    expect(run.code).toBe(1);
    expect(run.out).toContain(
      `root hash: expected ${'0'.repeat(64)} (the manifest's), actual ${result.rootHash.actual} (manifest edited)`,
    );
  });

  it('refuses a directory without a manifest with a clear message', async () => {
    const dir = path.join(tmp, 'x.partial');
    await mkdir(dir, { recursive: true });
    const run = await cli(['verify', dir]);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/no manifest\.json.*--resume/s);
    const plain = await cli(['verify', tmp]);
    expect(plain.code).toBe(1);
    expect(plain.err).toMatch(/not a finished snapshot/);
    expect(await readFile(path.join(snapshotDir, 'manifest.json'), 'utf8')).toContain('airt-snapshot/1');
  });
});

describe('manifest warnings', () => {
  it('flags a total that changed while paging, duplicate job ids and a project that returned 404', async () => {
    // Page 2 claims 150 more jobs than page 1 and repeats page 1's first job.
    let firstJob: unknown;
    const proxy = await startProxy(sim.url, {
      rewrite(pathAndQuery, body) {
        if (!pathAndQuery.includes('/evaluations?')) return undefined;
        const page = JSON.parse(body) as { items: unknown[]; total: number; page: number };
        if (page.page === 1) firstJob = page.items[0];
        if (page.page !== 2) return undefined;
        return JSON.stringify({ ...page, total: page.total + 150, items: [firstJob, ...page.items] });
      },
    });
    try {
      const run = await cli([
        'snapshot',
        '--base-url',
        proxy.url,
        '--org',
        'acme',
        '--workspace',
        'main',
        '--out',
        path.join(tmp, 'warnings'),
        '--project',
        'no-such-project',
        '--concurrency',
        '1',
      ]);
      // A --project the service does not know is a failed item: partial snapshot, exit 3.
      expect(run.code).toBe(3);
      expect(run.err).toMatch(/warning\(s\): .*project_not_found/);
      const manifest = await readManifestFile(run.out.trim().split('\n').at(-1)!);
      const codes = manifest.warnings.map((w) => w.code);
      expect(codes).toContain('total_changed');
      expect(codes).toContain('duplicate_id');
      expect(manifest.warnings).toContainEqual(
        expect.objectContaining({ code: 'project_not_found', project: 'no-such-project' }),
      );
      expect(manifest.projects.find((p) => p.key === 'no-such-project')?.status).toBe('not_found');
      expect(manifest.status).toBe('partial');
      expect(manifest.failed_requests).toEqual([
        expect.objectContaining({ kind: 'project_summary', project: 'no-such-project', status: 404 }),
      ]);
      // The grown total is followed: one more page is fetched, and paging stops there.
      const pages = manifest.files.filter((f) => f.kind === 'evaluations_page').map((f) => f.page);
      const expectedPages = Math.ceil((sim.truth.evaluationJobIds().length + 150) / 100);
      expect(pages).toEqual(Array.from({ length: expectedPages }, (_, i) => i + 1));
    } finally {
      await proxy.close();
    }
  });
});

describe('snapshot --project with a project the service does not know', () => {
  it('exits 3 (partial), says which --project and what to do, and keeps everything else', async () => {
    const run = await cli([
      'snapshot',
      ...connection(sim),
      '--out',
      path.join(tmp, 'unknown-project'),
      '--project',
      'no-such-project',
      '--quiet',
    ]);
    expect(run.code).toBe(3);
    expect(run.err).toContain(
      'snapshot: warning: --project "no-such-project" returned 404 not found in acme/main',
    );
    expect(run.err).toContain(
      '--project "no-such-project": not found (404) in acme/main, so the snapshot is marked partial; ' +
        'everything else was fetched. Check the project slug or id',
    );
    // Resuming would only ask for the same project again: no --resume advice for this failure.
    expect(run.err).not.toContain('--resume');
    const manifest = await readManifestFile(run.out.trim().split('\n').at(-1)!);
    expect(manifest.projects.filter((p) => p.status === 'ok').length).toBeGreaterThan(0);
    // Only the unknown project failed.
    expect(manifest.failed_requests).toHaveLength(1);
  });
});
