/**
 * `bundle` writes only bundles its own `verify BUNDLE.zip` accepts: a snapshot directory that does not
 * match its manifest, a report of a forced (unverified) load, a report of another snapshot are refused
 * with exit 1, the problems listed, and nothing written (no zip, no temp file, an old bundle kept).
 * The tester's reproduction, with the committed fixture snapshot and a real DuckDB.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordingIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { BundleCheckError, writeBundle } from '../../src/pipeline/bundle.js';
import { verifyBundle } from '../../src/pipeline/verify-bundle.js';
import { generateReport } from '../../src/report/generate.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import {
  forcedLoadFixture,
  HOSTILE_EXTRA_FILE,
  TAMPERED_PROJECT,
  TAMPERED_SUMMARY,
  type ForcedLoad,
} from '../report/unverified-snapshot-fixture.js';

let work: string;
let fixture: ForcedLoad;
/** Reports of the forced load and of the verified one, per format, in their own directories. */
let forcedReports: string;
let verifiedReports: string;

beforeAll(async () => {
  work = await makeTempDir('airt-bundle-unverified-');
  fixture = await forcedLoadFixture(work);
  forcedReports = path.join(work, 'rep-forced');
  verifiedReports = path.join(work, 'rep-verified');
  for (const [db, dir] of [
    [fixture.forcedDb, forcedReports],
    [fixture.verifiedDb, verifiedReports],
  ] as const) {
    await mkdir(dir);
    for (const format of ['md', 'html', 'json'] as const) {
      await mkdir(path.join(dir, format));
      await generateReport({
        db,
        kind: 'executive',
        project: TAMPERED_PROJECT,
        format,
        out: path.join(dir, format, '/'),
      });
    }
  }
});

/** Files in `dir` other than the inputs: what a refused bundle must not have left. */
async function leftovers(dir: string, before: readonly string[]): Promise<string[]> {
  return (await readdir(dir)).filter((name) => !before.includes(name)).sort();
}

describe('bundle --snapshot DIR that does not match its manifest', () => {
  it.each([false, true])('is refused, naming what differs (include snapshot: %s)', async (include) => {
    const before = await readdir(work);
    const out = path.join(work, `tampered-${include}.zip`);
    await expect(
      writeBundle({ out, snapshotDir: fixture.tampered, includeSnapshot: include, files: [] }),
    ).rejects.toThrow(
      `Cannot bundle ${fixture.tampered}: the snapshot does not match its manifest ` +
        `(${TAMPERED_SUMMARY} modified, ${HOSTILE_EXTRA_FILE} not in the manifest); ` +
        'verifySnapshot lists every difference.',
    );
    expect(existsSync(out)).toBe(false);
    expect(await leftovers(work, before)).toEqual([]);
  });

  it('from the command line: one line, exit 1, no stack trace, nothing written', async () => {
    const out = path.join(work, 'cli-tampered.zip');
    const run = await runCli(['bundle', '--snapshot', fixture.tampered, '--out', out], { cwd: work });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `airt-report: Cannot bundle ${fixture.tampered}: the snapshot does not match its manifest ` +
        `(${TAMPERED_SUMMARY} modified, ${HOSTILE_EXTRA_FILE} not in the manifest); ` +
        `airt-report verify ${fixture.tampered} lists every difference.\n`,
    );
    expect(existsSync(out)).toBe(false);
  });
});

describe('bundle with a report of a forced (unverified) load', () => {
  it('is refused even with the genuine snapshot, each report format named, nothing written', async () => {
    const before = await readdir(work);
    const out = path.join(work, 'forced.zip');
    const io = recordingIO({ cwd: work });
    const args = ['bundle', '--snapshot', fixture.genuine, '--out', out];
    const reports = ['md', 'html', 'json'].flatMap((format) => [
      '--report',
      path.join(forcedReports, format),
    ]);
    expect(await main([...args, ...reports], io)).toBe(1);
    expect(io.out.join('')).toBe('');
    const problem = (file: string): string =>
      `  reports/${file}: made from a snapshot that failed verification and was loaded forced ` +
      '(it carries the "WARNING: UNVERIFIED DATA." warning); bundle reports of a verified load';
    expect(io.err.join('')).toBe(
      `airt-report: Cannot bundle: ${out} would fail its own verification, so it was not written (3 problem(s)):\n` +
        `${problem('html/report.html')}\n${problem('json/report.json')}\n${problem('md/report.md')}\n`,
    );
    expect(existsSync(out)).toBe(false);
    expect(await leftovers(work, before)).toEqual([]);
  });

  it('the same reports of the verified load bundle and verify', async () => {
    const io = recordingIO({ cwd: work });
    const out = path.join(work, 'verified.zip');
    const reports = ['md', 'html', 'json'].flatMap((format) => [
      '--report',
      path.join(verifiedReports, format),
    ]);
    expect(await main(['bundle', '--snapshot', fixture.genuine, '--out', out, ...reports], io)).toBe(0);
    expect(await verifyBundle(out)).toMatchObject({ ok: true, problems: [] });
  });

  it('verify BUNDLE.zip fails a bundle holding one, assembled by other means', async () => {
    const good = await writeBundle({
      out: path.join(work, 'good.zip'),
      snapshotDir: fixture.genuine,
      includeSnapshot: false,
      files: [{ name: 'reports/report.md', path: path.join(verifiedReports, 'md', 'report.md') }],
    });
    expect((await verifyBundle(good.path)).ok).toBe(true);
    // The forced load's report swapped in, SHA256SUMS recomputed: every checksum matches, the root
    // hash it prints is the manifest's, and yet the figures are the tampered file's.
    const entries = unzipSync(await readFile(good.path));
    const forcedMarkdown = await readFile(path.join(forcedReports, 'md', 'report.md'), 'utf8');
    expect(forcedMarkdown).toContain(good.root_sha256);
    entries['reports/report.md'] = strToU8(forcedMarkdown);
    const { createHash } = await import('node:crypto');
    entries.SHA256SUMS = strToU8(
      Object.keys(entries)
        .filter((name) => name !== 'SHA256SUMS')
        .sort()
        .map((name) => `${createHash('sha256').update(entries[name]!).digest('hex')}  ${name}\n`)
        .join(''),
    );
    const swapped = path.join(work, 'swapped.zip');
    await writeFile(swapped, zipSync(entries));
    const result = await verifyBundle(swapped);
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([
      expect.stringMatching(/^reports\/report\.md: made from a snapshot that failed verification/u),
    ]);
  });
});

describe('bundle whose files verify would reject', () => {
  it('a report of another snapshot: refused with its problem, an existing bundle left as it was', async () => {
    const out = path.join(work, 'kept.zip');
    await writeFile(out, 'the previous bundle');
    const other = path.join(work, 'other.md');
    await writeFile(other, `# Report\n\nRoot hash: \`${'b'.repeat(64)}\`\n`);
    const attempt = writeBundle({
      out,
      snapshotDir: fixture.genuine,
      includeSnapshot: false,
      files: [{ name: 'reports/other.md', path: other }],
    });
    await expect(attempt).rejects.toBeInstanceOf(BundleCheckError);
    await expect(attempt).rejects.toMatchObject({
      problems: [
        expect.stringMatching(/^reports\/other\.md: its provenance does not name the manifest's root hash /u),
      ],
    });
    expect(await readFile(out, 'utf8')).toBe('the previous bundle');
  });
});
