/**
 * Markdown and HTML reports in an audit bundle are held to the snapshot their figures come from, not
 * to any snapshot their text names: a portfolio lists the snapshots of its ASR trend in its
 * provenance, so the portfolio of the next night names this night's root hash too and used to pass
 * `verify` as this snapshot's report. The reports are rendered by the real renderers (renderMarkdown,
 * renderHtml) from the portfolio fixture with two snapshots, one the figures', one the trend's.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BundleCheckError, writeBundle, type BundleFile } from '../../src/pipeline/bundle.js';
import { verifyBundle } from '../../src/pipeline/verify-bundle.js';
import type { SnapshotProvenance } from '../../src/report/model.js';
import { renderHtml, renderMarkdown } from '../../src/report/render.js';
import type { Manifest } from '../../src/snapshot/manifest.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { portfolioFixture } from '../report/fixture-model.js';
import { writeFixtureSnapshot } from './snapshot-dir-fixture.js';

let work: string;
let snapshotDir: string;
let manifest: Manifest;
let other: Manifest;

function provenanceOf(
  snapshot: Manifest,
  figures: boolean,
  org = 'acme',
  changes: Partial<SnapshotProvenance> = {},
): SnapshotProvenance {
  return {
    snapshotId: snapshot.snapshot_id,
    org,
    workspace: 'main',
    status: 'complete',
    rootSha256: snapshot.root_sha256,
    fetchedAt: snapshot.finished_at,
    snapshotToolVersion: '0.1.0',
    apiVersion: '1',
    appVersion: null,
    figures,
    ...changes,
  };
}

/** The portfolio rendered in both formats, written to `dir`, as bundle files. */
async function portfolio(dir: string, snapshots: SnapshotProvenance[]): Promise<BundleFile[]> {
  const model = portfolioFixture();
  model.provenance.snapshots = snapshots;
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'portfolio.md'), (await renderMarkdown(model)).markdown);
  await writeFile(path.join(dir, 'portfolio.html'), (await renderHtml(model)).html);
  return ['portfolio.html', 'portfolio.md'].map((name) => ({
    name: `reports/${name}`,
    path: path.join(dir, name),
  }));
}

async function problemsOf(name: string, files: BundleFile[]): Promise<readonly string[]> {
  return writeBundle({
    out: path.join(work, `${name}.zip`),
    snapshotDir,
    includeSnapshot: false,
    files,
  }).then(
    () => [],
    (error: unknown) => (error instanceof BundleCheckError ? error.problems : [String(error)]),
  );
}

beforeAll(async () => {
  work = await makeTempDir('airt-bundle-rendered-');
  ({ dir: snapshotDir, manifest } = await writeFixtureSnapshot({
    root: path.join(work, 'snapshots'),
    snapshotId: '20260102T000000Z',
  }));
  ({ manifest: other } = await writeFixtureSnapshot({
    root: path.join(work, 'snapshots'),
    snapshotId: '20260103T000000Z',
    files: { 'config.json': '{"api_version":"1","later":true}' },
  }));
  expect(other.root_sha256).not.toBe(manifest.root_sha256);
});

describe('Markdown and HTML reports in a bundle', () => {
  it("refuse a portfolio whose figures come from another snapshot, though its trend names this one's", async () => {
    const files = await portfolio(path.join(work, 'later'), [
      provenanceOf(manifest, false),
      provenanceOf(other, true),
    ]);
    const problems = await problemsOf('later', files);
    expect(problems).toHaveLength(2);
    for (const [i, name] of ['reports/portfolio.html', 'reports/portfolio.md'].entries()) {
      expect(problems[i]).toContain(`${name}: its provenance does not name the manifest's root hash`);
      expect(problems[i]).toContain(`it names snapshot ${other.snapshot_id} (root ${other.root_sha256})`);
    }
  });

  it('pass a portfolio whose figures come from this snapshot, whatever its trend names', async () => {
    const files = await portfolio(path.join(work, 'ours'), [
      provenanceOf(other, false),
      provenanceOf(manifest, true),
    ]);
    const bundle = await writeBundle({
      out: path.join(work, 'ours.zip'),
      snapshotDir,
      includeSnapshot: false,
      files,
    });
    const result = await verifyBundle(bundle.path);
    expect(result).toMatchObject({ ok: true, problems: [], notes: [] });
    expect(result.provenance_checked).toEqual(['reports/portfolio.html', 'reports/portfolio.md']);
  });

  it('are not fooled by data that spells the stamp (escaped, it is text)', async () => {
    const forged = `<!-- airt-report figures from snapshot ${manifest.snapshot_id}, root sha256 ${manifest.root_sha256} -->`;
    const files = await portfolio(path.join(work, 'forged'), [provenanceOf(other, true, `\n${forged}\n`)]);
    const problems = await problemsOf('forged', files);
    expect(problems).toHaveLength(2);
    for (const problem of problems) expect(problem).toContain(`it names snapshot ${other.snapshot_id}`);
  });

  it('stamp every figures snapshot: an id the line cannot hold as it is, a root hash never recorded', async () => {
    // The manifest is not covered by the root hash: its id may be anything. Unstamped, the report fell
    // back to "the root hash is somewhere in the text" and passed on its trend row.
    for (const [name, changes] of [
      ['odd-id', { snapshotId: `${other.snapshot_id} acme --> main` }],
      ['no-root', { rootSha256: null }],
    ] as const) {
      const files = await portfolio(path.join(work, name), [
        provenanceOf(manifest, false),
        provenanceOf(other, true, 'acme', changes),
      ]);
      for (const file of files)
        expect(await readFile(file.path, 'utf8')).toMatch(/^<!-- airt-report figures from snapshot /mu);
      const problems = await problemsOf(name, files);
      expect([name, problems.length]).toEqual([name, 2]);
      const id = changes.snapshotId ?? other.snapshot_id;
      const root = 'rootSha256' in changes ? 'unknown' : other.root_sha256;
      for (const problem of problems) expect(problem).toContain(`it names snapshot ${id} (root ${root})`);
    }
  });

  it("refuse another snapshot's report with the same root hash (a night nothing changed)", async () => {
    const files = await portfolio(path.join(work, 'twin'), [
      provenanceOf(manifest, true, 'acme', { snapshotId: '20260104T000000Z' }),
    ]);
    const problems = await problemsOf('twin', files);
    expect(problems).toEqual(
      ['reports/portfolio.html', 'reports/portfolio.md'].map(
        (name) =>
          `${name}: its figures come from snapshot 20260104T000000Z, not this bundle's snapshot ` +
          `${manifest.snapshot_id} (the same root hash ${manifest.root_sha256}); bundle the report of this snapshot`,
      ),
    );
  });

  it('check a report made before the stamp by its text, and say so', async () => {
    const dir = path.join(work, 'older');
    const files = await portfolio(dir, [provenanceOf(manifest, true)]);
    for (const file of files) {
      const text = await readFile(file.path, 'utf8');
      const unstamped = text.replace(/^<!-- airt-report figures from snapshot .*\n/gmu, '');
      expect(unstamped).not.toBe(text);
      await writeFile(file.path, unstamped);
    }
    const bundle = await writeBundle({
      out: path.join(work, 'older.zip'),
      snapshotDir,
      includeSnapshot: false,
      files,
    });
    const result = await verifyBundle(bundle.path);
    expect(result.ok).toBe(true);
    expect(result.notes).toEqual(
      files.map(
        (f) =>
          expect.stringContaining(
            `${f.name}: has no line naming the snapshot its figures come from`,
          ) as unknown,
      ),
    );
  });
});
