import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordingIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { diffJson, diffMarkdown, type SnapshotDiff } from '../../src/diff/diff-report.js';
import {
  BundleCheckError,
  collectBundleFiles,
  writeBundle,
  type BundleFile,
} from '../../src/pipeline/bundle.js';
import { buildGateReport, gateReportJson, gateReportMarkdown } from '../../src/pipeline/gate-report.js';
import { verifyBundle } from '../../src/pipeline/verify-bundle.js';
import { computeRootHash, type Manifest } from '../../src/snapshot/manifest.js';
import { sha256, tamper } from './bundle-tamper.js';
import { writeFixtureSnapshot } from './snapshot-dir-fixture.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

let work: string;
let snapshotDir: string;
let manifest: Manifest;
let files: BundleFile[];

beforeAll(async () => {
  work = await makeTempDir('airt-bundle-');
  ({ dir: snapshotDir, manifest } = await writeFixtureSnapshot({
    root: path.join(work, 'snapshots'),
    snapshotId: '20260101T000000Z',
  }));
  const reports = path.join(work, 'reports');
  await mkdir(path.join(reports, 'charts'), { recursive: true });
  await writeFile(
    path.join(reports, 'executive-demo.md'),
    `# Report\n\nRoot hash: \`${manifest.root_sha256}\`\n`,
  );
  await writeFile(
    path.join(reports, 'executive-demo.html'),
    `<p>root <code>${manifest.root_sha256}</code></p>`,
  );
  await writeFile(path.join(reports, 'charts', 'asr.svg'), '<svg/>');
  await writeSnapshotFiles(work, manifest.snapshot_id, manifest.root_sha256);
  files = [
    ...(await collectBundleFiles(reports, 'reports/')),
    ...SNAPSHOT_NAMED.map((name) => ({ name, path: path.join(work, name) })),
  ];
});

/** Gate report and diff in both formats, as a run writes them, made from the given snapshot. */
const SNAPSHOT_NAMED = ['diff.json', 'diff.md', 'gate-report.json', 'gate-report.md'] as const;

async function writeSnapshotFiles(dir: string, snapshotId: string, rootSha256: string | null): Promise<void> {
  await mkdir(dir, { recursive: true });
  const gates = buildGateReport({ snapshotId, previousSnapshotId: null, rootSha256, results: [] });
  const diff: SnapshotDiff = {
    format: 'airt-diff/1',
    from: null,
    to: { snapshot_id: snapshotId, fetched_at: null, root_sha256: rootSha256 },
    projects: [],
    schema_drift: [],
  };
  await writeFile(path.join(dir, 'gate-report.json'), gateReportJson(gates));
  await writeFile(path.join(dir, 'gate-report.md'), gateReportMarkdown(gates));
  await writeFile(path.join(dir, 'diff.json'), diffJson(diff));
  await writeFile(path.join(dir, 'diff.md'), diffMarkdown(diff));
}

describe('audit bundle', () => {
  it('is deterministic, verifies, and lists every entry sorted', async () => {
    const a = await writeBundle({
      out: path.join(work, 'a.zip'),
      snapshotDir,
      includeSnapshot: false,
      files,
    });
    // The output helper creates no directories: a typo in --out must not grow a tree.
    await mkdir(path.join(work, 'b'));
    const b = await writeBundle({
      out: path.join(work, 'b', 'b.zip'),
      snapshotDir,
      includeSnapshot: false,
      files,
    });
    expect(a.sha256).toBe(b.sha256);
    expect(a.entries).toEqual([
      'README.txt',
      'SHA256SUMS',
      'diff.json',
      'diff.md',
      'gate-report.json',
      'gate-report.md',
      'manifest.json',
      'reports/charts/asr.svg',
      'reports/executive-demo.html',
      'reports/executive-demo.md',
    ]);
    const verification = await verifyBundle(a.path);
    expect(verification).toMatchObject({
      ok: true,
      problems: [],
      snapshot_id: manifest.snapshot_id,
      checked: 9,
    });
    expect(verification.provenance_checked).toEqual([
      'diff.json',
      'diff.md',
      'gate-report.json',
      'gate-report.md',
      'reports/executive-demo.html',
      'reports/executive-demo.md',
    ]);
  });

  it('can be checked with standard tools as its README says', async () => {
    const bundle = await writeBundle({
      out: path.join(work, 'std.zip'),
      snapshotDir,
      includeSnapshot: true,
      files,
    });
    const out = path.join(work, 'std');
    execFileSync('unzip', ['-q', bundle.path, '-d', out]);
    expect(execFileSync('sha256sum', ['-c', '--quiet', 'SHA256SUMS'], { cwd: out, encoding: 'utf8' })).toBe(
      '',
    );
    const root = execFileSync(
      'sh',
      ['-c', `jq -r '.files | sort_by(.path) | .[] | "\\(.sha256)  \\(.path)"' manifest.json | sha256sum`],
      { cwd: out, encoding: 'utf8' },
    );
    expect(root.split(' ')[0]).toBe(manifest.root_sha256);
    expect(await readFile(path.join(out, 'README.txt'), 'utf8')).toContain('airt-report verify');
    expect((await verifyBundle(bundle.path)).ok).toBe(true);
  });

  it('fails on a modified report, with or without re-computed checksums', async () => {
    const good = path.join(work, 'a.zip');
    const edited = await tamper(
      good,
      path.join(work, 't1.zip'),
      (e) => {
        e['reports/executive-demo.md'] = strToU8('# Report\n\nAll good!\n');
      },
      false,
    );
    const first = await verifyBundle(edited);
    expect(first.ok).toBe(false);
    expect(first.problems).toContainEqual(
      expect.stringMatching(
        /^reports\/executive-demo\.md: modified \(expected sha256 [0-9a-f]{64} from SHA256SUMS, actual [0-9a-f]{64}\)$/,
      ),
    );
    const resummed = await tamper(
      good,
      path.join(work, 't2.zip'),
      (e) => {
        e['reports/executive-demo.md'] = strToU8(`# Report\n\nRoot hash: \`${'0'.repeat(64)}\`\n`);
      },
      true,
    );
    const second = await verifyBundle(resummed);
    expect(second.ok).toBe(false);
    expect(second.problems.join('\n')).toMatch(
      /reports\/executive-demo\.md: its provenance does not name the manifest's root hash/,
    );
  });

  it('fails on a modified manifest, with or without re-computed checksums', async () => {
    const good = path.join(work, 'a.zip');
    const editManifest = (e: Record<string, Uint8Array>): void => {
      const m = JSON.parse(strFromU8(e['manifest.json'] as Uint8Array)) as Manifest;
      (m.files[0] as { sha256: string }).sha256 = 'a'.repeat(64);
      e['manifest.json'] = strToU8(JSON.stringify(m));
    };
    const first = await verifyBundle(await tamper(good, path.join(work, 'm1.zip'), editManifest, false));
    expect(first.problems.join('\n')).toContain('manifest.json: modified (expected sha256 ');
    const second = await verifyBundle(await tamper(good, path.join(work, 'm2.zip'), editManifest, true));
    expect(second.ok).toBe(false);
    expect(second.problems.join('\n')).toContain(
      `root_sha256 does not match the hash of its file list (manifest modified): expected ${manifest.root_sha256}, actual `,
    );
    // A consistent but different manifest (root re-computed) no longer matches the reports' provenance.
    const third = await verifyBundle(
      await tamper(
        good,
        path.join(work, 'm3.zip'),
        (e) => {
          const m = JSON.parse(strFromU8(e['manifest.json'] as Uint8Array)) as Manifest;
          (m.files[0] as { sha256: string }).sha256 = 'a'.repeat(64);
          m.root_sha256 = computeRootHash(m.files);
          e['manifest.json'] = strToU8(JSON.stringify(m));
        },
        true,
      ),
    );
    expect(third.ok).toBe(false);
    expect(third.problems.join('\n')).toMatch(/provenance does not name the manifest's root hash/);
  });

  it.each(SNAPSHOT_NAMED)('fails when %s comes from another snapshot', async (name) => {
    const other = path.join(work, 'other-snapshot', name);
    await writeSnapshotFiles(path.dirname(other), '20251231T000000Z', 'b'.repeat(64));
    // writeBundle refuses to write such a bundle (it runs these checks first); one assembled by hand
    // is found by verify.
    const out = path.join(work, `mixed-${name}.zip`);
    const refused = writeBundle({
      out,
      snapshotDir,
      includeSnapshot: false,
      files: files.map((file) => (file.name === name ? { name, path: other } : file)),
    });
    await expect(refused).rejects.toThrow(BundleCheckError);
    expect(existsSync(out)).toBe(false);
    const otherBytes = (await readFile(other)) as Uint8Array;
    const bundle = await tamper(path.join(work, 'a.zip'), out, (e) => (e[name] = otherBytes), true);
    const result = await verifyBundle(bundle);
    await expect(refused).rejects.toMatchObject({ problems: result.problems });
    expect(result.ok).toBe(false);
    expect(result.provenance_checked).not.toContain(name);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatch(
      new RegExp(
        `^${name.replace('.', '\\.')}: made from .*20251231T000000Z.*, not this bundle's snapshot ${manifest.snapshot_id} \\(root ${manifest.root_sha256}\\)`,
      ),
    );
  });

  it('fails when a gate report or diff names the right snapshot id but no or another root hash', async () => {
    const sameIdDir = path.join(work, 'same-id');
    await writeSnapshotFiles(sameIdDir, manifest.snapshot_id, null);
    const out = path.join(work, 'same-id.zip');
    const refused = writeBundle({
      out,
      snapshotDir,
      includeSnapshot: false,
      files: files.map((file) =>
        (SNAPSHOT_NAMED as readonly string[]).includes(file.name)
          ? { name: file.name, path: path.join(sameIdDir, file.name) }
          : file,
      ),
    });
    await expect(refused).rejects.toThrow(BundleCheckError);
    expect(existsSync(out)).toBe(false);
    const replaced: Record<string, Uint8Array> = {};
    for (const name of SNAPSHOT_NAMED) replaced[name] = await readFile(path.join(sameIdDir, name));
    const bundle = await tamper(path.join(work, 'a.zip'), out, (e) => Object.assign(e, replaced), true);
    const result = await verifyBundle(bundle);
    await expect(refused).rejects.toMatchObject({ problems: result.problems });
    expect(result.ok).toBe(false);
    expect(result.problems.map((p) => p.split(':')[0])).toEqual([...SNAPSHOT_NAMED]);
    expect(result.problems[0]).toContain(`made from snapshot ${manifest.snapshot_id} (root unknown)`);
  });

  it('fails when a gate report or diff names no snapshot at all', async () => {
    const bare = await tamper(
      path.join(work, 'a.zip'),
      path.join(work, 'bare.zip'),
      (e) => {
        e['gate-report.json'] = strToU8('{"results":[]}');
        e['diff.md'] = strToU8('# Changes between snapshots\n');
      },
      true,
    );
    const result = await verifyBundle(bare);
    expect(result.problems).toEqual([
      expect.stringMatching(
        /^diff\.md: has no provenance line naming its snapshot, not this bundle's snapshot/,
      ),
      expect.stringMatching(/^gate-report\.json: names no snapshot id and root hash/),
    ]);
  });

  it('fails on a modified bundled snapshot file and on extra or unlisted entries', async () => {
    const full = await writeBundle({
      out: path.join(work, 'full.zip'),
      snapshotDir,
      includeSnapshot: true,
      files,
    });
    expect(full.entries).toContain('snapshot/config.json');
    const result = await verifyBundle(
      await tamper(
        full.path,
        path.join(work, 's1.zip'),
        (e) => {
          e['snapshot/config.json'] = strToU8('{"api_version":"2"}');
          e['extra.txt'] = strToU8('hello');
        },
        true,
      ),
    );
    const original = (await readFile(path.join(snapshotDir, 'config.json'))) as Uint8Array;
    expect(result.problems).toContain(
      `snapshot/config.json: differs from the manifest (expected sha256 ${sha256(original)}, actual ${sha256(strToU8('{"api_version":"2"}'))})`,
    );
    const unlisted = await verifyBundle(
      await tamper(
        full.path,
        path.join(work, 's2.zip'),
        (e) => {
          e['notes.txt'] = strToU8('hello');
        },
        false,
      ),
    );
    expect(unlisted.problems).toContain('notes.txt: not listed in SHA256SUMS');
  });

  it('refuses unsafe entry names on write and reports them on read', async () => {
    await expect(
      writeBundle({
        out: path.join(work, 'bad.zip'),
        snapshotDir,
        includeSnapshot: false,
        files: [{ name: '../evil.md', path: files[0]!.path }],
      }),
    ).rejects.toThrow(/Refusing zip entry name "..\/evil.md"/);
    const evil = await tamper(
      path.join(work, 'a.zip'),
      path.join(work, 'evil.zip'),
      (e) => {
        e['../../evil.sh'] = strToU8('rm -rf /');
      },
      true,
    );
    const result = await verifyBundle(evil);
    expect(result.ok).toBe(false);
    expect(result.problems.join('\n')).toContain(
      'unsafe entry name "../../evil.sh": parent-directory segment (..)',
    );
  });

  it('reports a file that is not a zip instead of throwing', async () => {
    const junk = path.join(work, 'junk.zip');
    await writeFile(junk, 'not a zip at all');
    const result = await verifyBundle(junk);
    expect(result.ok).toBe(false);
    expect(result.problems.length).toBeGreaterThan(0);
    expect(existsSync(junk)).toBe(true);
  });
});

/**
 * Re-packs a bundle as `unzip b.zip -d d && cd d && zip -r ../c.zip .` does: every parent directory
 * gets its own entry (name ending in '/', no data) before the files under it.
 */
async function rezip(
  source: string,
  target: string,
  change: (entries: Record<string, Uint8Array>) => void = () => undefined,
): Promise<string> {
  const files = unzipSync(await readFile(source));
  change(files);
  const entries: Record<string, Uint8Array> = {};
  for (const name of Object.keys(files).sort()) {
    const parts = name.split('/');
    for (let i = 1; i < parts.length; i++) entries[`${parts.slice(0, i).join('/')}/`] = new Uint8Array(0);
    entries[name] = files[name]!;
  }
  await writeFile(target, zipSync(entries));
  return target;
}

describe('a bundle that was unzipped and re-zipped', () => {
  it('verifies unchanged: directory entries are ignored', async () => {
    const full = await writeBundle({
      out: path.join(work, 'rezip-full.zip'),
      snapshotDir,
      includeSnapshot: true,
      files,
    });
    const rezipped = await rezip(full.path, path.join(work, 'rezipped.zip'));
    expect(Object.keys(unzipSync(await readFile(rezipped)))).toContain('reports/charts/');
    const result = await verifyBundle(rezipped);
    expect(result.problems).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.checked).toBe(full.entries.length - 1);
  });

  it('reports exactly the one changed file, with its expected and actual sha256', async () => {
    const changed = strToU8(`# Report\n\nRoot hash: \`${manifest.root_sha256}\` (edited)\n`);
    const original = unzipSync(await readFile(path.join(work, 'a.zip')))['reports/executive-demo.md']!;
    const rezipped = await rezip(path.join(work, 'a.zip'), path.join(work, 'rezipped-edit.zip'), (e) => {
      e['reports/executive-demo.md'] = changed;
    });
    const result = await verifyBundle(rezipped);
    expect(result.ok).toBe(false);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toContain('reports/executive-demo.md: modified');
    expect(result.problems[0]).toContain(`expected sha256 ${sha256(original)}`);
    expect(result.problems[0]).toContain(`actual ${sha256(changed)}`);
  });

  it('still refuses directory entries that climb out or are absolute', async () => {
    for (const name of ['../', '../../etc/', '/', '/tmp/', 'reports/../../x/']) {
      const bundle = await tamper(
        path.join(work, 'a.zip'),
        path.join(work, 'dir-evil.zip'),
        (e) => {
          e[name] = new Uint8Array(0);
        },
        false,
      );
      const result = await verifyBundle(bundle);
      expect(result.ok, name).toBe(false);
      expect(result.problems.join('\n'), name).toContain(`unsafe entry name ${JSON.stringify(name)}`);
    }
  });

  it('refuses a directory entry that holds data', async () => {
    const bundle = await tamper(
      path.join(work, 'a.zip'),
      path.join(work, 'dir-data.zip'),
      (e) => {
        e['reports/'] = strToU8('hidden');
      },
      false,
    );
    const result = await verifyBundle(bundle);
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual(['directory entry "reports/" holds 6 bytes of data']);
  });
});

describe('airt-report bundle and verify BUNDLE.zip', () => {
  it('builds a bundle from the command line and verifies it, failing on a modified copy', async () => {
    const io = recordingIO({ cwd: work });
    const code = await main(
      [
        'bundle',
        '--snapshot',
        snapshotDir,
        '--out',
        'cli.zip',
        '--report',
        'reports',
        '--gate-report',
        'gate-report.json',
      ],
      io,
    );
    expect(code).toBe(0);
    expect(io.out.join('').trim()).toBe(path.join(work, 'cli.zip'));
    const verify = recordingIO({ cwd: work });
    expect(await main(['verify', 'cli.zip'], verify)).toBe(0);
    expect(verify.out.join('')).toMatch(
      /: OK\nroot hash [0-9a-f]{64} \(snapshot 20260101T000000Z\): compare it with the root hash recorded when the bundle was made/,
    );
    expect(io.err.join('')).toContain(`root hash ${manifest.root_sha256}`);
    await tamper(
      path.join(work, 'cli.zip'),
      path.join(work, 'cli-bad.zip'),
      (e) => {
        e['gate-report.json'] = strToU8('{}');
      },
      false,
    );
    const bad = recordingIO({ cwd: work });
    expect(await main(['verify', 'cli-bad.zip'], bad)).toBe(1);
    expect(bad.out.join('')).toContain(
      `problem   gate-report.json: modified (expected sha256 ${sha256(await readFile(path.join(work, 'gate-report.json')))} from SHA256SUMS, actual ${sha256(strToU8('{}'))})`,
    );
  });
});
