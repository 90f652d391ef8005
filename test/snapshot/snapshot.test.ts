/**
 * A full snapshot against the simulator on loopback: equals the simulator's ground truth, verifies,
 * never contains the token, and is byte-identical with injected faults.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { takeSnapshot, type SnapshotResult } from '../../src/snapshot/take-snapshot.js';
import { verifySnapshot } from '../../src/snapshot/verify.js';
import { dataFileHashes, FAST_RETRY, listAll, readJson, SMALL, TOKEN } from './fixtures.js';

let out: string;
let sim: RunningSimulator;
let snapshot: SnapshotResult;

beforeAll(async () => {
  out = await mkdtemp(path.join(tmpdir(), 'airt-snap-'));
  sim = await startSimulator(SMALL);
  snapshot = await takeSnapshot({
    baseUrl: sim.url,
    org: sim.org,
    workspace: sim.workspace,
    token: TOKEN,
    out: path.join(out, 'clean'),
  });
});

afterAll(async () => {
  await sim.close();
  await rm(out, { recursive: true, force: true });
});

describe('snapshot of a small workspace', () => {
  it('is complete, lives at <out>/<org>/<workspace>/<id> and verifies', async () => {
    expect(snapshot.status).toBe('complete');
    expect(path.dirname(snapshot.dir)).toBe(path.join(out, 'clean', 'acme', 'main'));
    expect(path.basename(snapshot.dir)).toBe(snapshot.snapshotId);
    expect(snapshot.manifest.failed_requests).toEqual([]);
    const result = await verifySnapshot(snapshot.dir);
    expect(result.ok).toBe(true);
    expect(result.files).toBe(snapshot.manifest.files.length);
    // Nothing but the finished directory is left: no .partial, no journal, no temp files.
    expect(await readdir(path.join(out, 'clean', 'acme', 'main'))).toEqual([snapshot.snapshotId]);
    expect((await listAll(snapshot.dir)).filter((f) => path.basename(f).startsWith('.'))).toEqual([]);
  });

  it('records the service versions from GET /api/v1/config', async () => {
    const config = (await readJson(path.join(snapshot.dir, 'config.json'))) as Record<string, unknown>;
    expect(snapshot.manifest.api_version).toBe(config.api_version);
    expect(snapshot.manifest.app_version).toBe(config.app_version);
  });

  it('holds every evaluation job, page by page, with matching record counts', async () => {
    const pages = snapshot.manifest.files.filter((f) => f.kind === 'evaluations_page');
    const expectedIds = sim.truth.evaluationJobIds();
    expect(pages.map((p) => p.path)).toEqual(
      Array.from(
        { length: Math.ceil(expectedIds.length / 100) },
        (_, i) => `evaluations/page-000${i + 1}.json`,
      ),
    );
    const ids: string[] = [];
    for (const page of pages) {
      const body = (await readJson(path.join(snapshot.dir, page.path))) as { items: { id: string }[] };
      expect(page.records).toBe(body.items.length);
      ids.push(...body.items.map((item) => item.id));
    }
    expect(ids.sort()).toEqual([...expectedIds].sort());
  });

  it('holds every project summary and every assessment trial list of the ground truth', async () => {
    const manifest = snapshot.manifest;
    for (const project of sim.truth.projects()) {
      const entry = manifest.projects.find((p) => p.project_id === project.id);
      expect(entry, project.key).toBeDefined();
      expect(entry!.status).toBe('ok');
      const summaryFile = manifest.files.find(
        (f) => f.kind === 'project_summary' && f.project === entry!.key,
      );
      expect(summaryFile).toBeDefined();
      expect(await readJson(path.join(snapshot.dir, summaryFile!.path))).toEqual(
        sim.truth.summary(project.key),
      );
      const assessmentIds = sim.truth.assessmentIds(project.key);
      expect(entry!.assessments).toBe(assessmentIds.length);
      for (const id of assessmentIds) {
        const trials = manifest.files.find((f) => f.kind === 'trials' && f.assessment_id === id);
        expect(trials, id).toBeDefined();
        expect(trials!.path).toBe(`trials/${id}.json`);
        expect(trials!.request?.path).toMatch(/\/traces\/trials\?limit=5000$/);
        expect(trials!.project_id).toBe(project.id);
        const body = (await readJson(path.join(snapshot.dir, trials!.path))) as unknown[];
        expect(body.length).toBe(Math.min(5000, sim.truth.trialCount(id)));
        expect(trials!.records).toBe(body.length);
        expect(trials!.assessment_updated_at).toBe(sim.truth.assessmentUpdatedAt(id));
      }
    }
    const trialFiles = manifest.files.filter((f) => f.kind === 'trials');
    const allAssessments = sim.truth.projects().flatMap((p) => sim.truth.assessmentIds(p.key));
    expect(trialFiles.length).toBe(allAssessments.length);
  });

  it('lists unknown keys per file and as aggregated schema drift', () => {
    const { files, schema_drift } = snapshot.manifest;
    for (const file of files) {
      for (const key of file.unknown_keys) expect(schema_drift[file.kind]).toContain(key);
    }
    expect(Object.keys(schema_drift).length).toBeGreaterThan(0);
  });

  it('never writes the token or an Authorization header', async () => {
    for (const file of await listAll(path.join(out, 'clean'))) {
      const full = path.join(out, 'clean', file);
      if (!file.endsWith('.json')) continue;
      const text = await readFile(full, 'utf8');
      expect(text, file).not.toContain(TOKEN);
      expect(text.toLowerCase(), file).not.toContain('bearer ');
      expect(text.toLowerCase(), file).not.toContain('authorization');
    }
  });

  it('stores byte-identical data files when the service injects faults (same seed)', async () => {
    const faulty = await startSimulator({
      ...SMALL,
      faults: '429=0.1,502=0.05,504=0.05,cut=0.02,retry_after=0',
    });
    try {
      const retried = await takeSnapshot(
        {
          baseUrl: faulty.url,
          org: faulty.org,
          workspace: faulty.workspace,
          token: TOKEN,
          out: path.join(out, 'faulty'),
          retry: FAST_RETRY,
        },
        {},
      );
      expect(faulty.stats().faults).not.toEqual({});
      expect(retried.status).toBe('complete');
      expect(await dataFileHashes(retried.dir)).toEqual(await dataFileHashes(snapshot.dir));
      expect(retried.manifest.root_sha256).toBe(snapshot.manifest.root_sha256);
    } finally {
      await faulty.close();
    }
  });

  it('flags trial lists whose length equals --trials-limit as possibly truncated', async () => {
    const limited = await takeSnapshot({
      baseUrl: sim.url,
      org: sim.org,
      workspace: sim.workspace,
      token: TOKEN,
      out: path.join(out, 'limited'),
      trialsLimit: 5,
    });
    const truncated = limited.manifest.warnings.filter((w) => w.code === 'possibly_truncated');
    const full = limited.manifest.files.filter((f) => f.kind === 'trials' && f.records === 5);
    expect(full.length).toBeGreaterThan(0);
    expect(truncated.map((w) => w.assessment_id).sort()).toEqual(full.map((f) => f.assessment_id).sort());
    for (const file of limited.manifest.files.filter((f) => f.kind === 'trials')) {
      expect(file.request?.path).toMatch(/\?limit=5$/);
    }
  });

  it('asks only for jailbreak trials with --jailbreaks-only', async () => {
    const jailbreaks = await takeSnapshot({
      baseUrl: sim.url,
      org: sim.org,
      workspace: sim.workspace,
      token: TOKEN,
      out: path.join(out, 'jailbreaks'),
      jailbreaksOnly: true,
    });
    expect(jailbreaks.manifest.options.jailbreaks_only).toBe(true);
    const trialFiles = jailbreaks.manifest.files.filter((f) => f.kind === 'trials');
    expect(trialFiles.length).toBeGreaterThan(0);
    let kept = 0;
    for (const file of trialFiles) {
      expect(file.request?.path).toMatch(/\?limit=5000&jailbreaks_only=true$/);
      const body = (await readJson(path.join(jailbreaks.dir, file.path))) as { is_jailbreak: boolean }[];
      for (const trial of body) expect(trial.is_jailbreak).toBe(true);
      kept += body.length;
    }
    const all = snapshot.manifest.files
      .filter((f) => f.kind === 'trials')
      .reduce((n, f) => n + (f.records ?? 0), 0);
    expect(kept).toBeLessThan(all);
  });
});

describe('a service address the client cannot use', () => {
  it.each(['ftp://127.0.0.1:9', 'http://127.0.0.1:9/?page=1'])(
    'refuses %s before creating any directory',
    async (baseUrl) => {
      const target = path.join(out, 'bad-address');
      await expect(
        takeSnapshot({ baseUrl, org: 'o', workspace: 'w', token: TOKEN, out: target }),
      ).rejects.toThrow(/options\.baseUrl/);
      await expect(readdir(target)).rejects.toMatchObject({ code: 'ENOENT' });
    },
  );
});
