/**
 * JSON and OSCAL reports in an audit bundle: each names the snapshot it was made from (the JSON
 * report's `snapshots`, the OSCAL document's `snapshot-id` / `root-sha256` props), and `bundle` and
 * `verify BUNDLE.zip` hold them to the manifest's root hash as they hold Markdown and HTML reports: a
 * report of another snapshot is refused, a matching one counts as provenance matched. The reports are
 * rendered by the real renderers (renderReportJson, buildAssessmentResults), so a renamed field fails
 * here.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { strToU8 } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordingIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { assessmentResultsJson, buildAssessmentResults } from '../../src/oscal/assessment-results.js';
import { BundleCheckError, writeBundle, type BundleFile } from '../../src/pipeline/bundle.js';
import { verifyBundle } from '../../src/pipeline/verify-bundle.js';
import { renderReportJson } from '../../src/report/json-report.js';
import type { Manifest } from '../../src/snapshot/manifest.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { complianceFixture } from '../report/fixture-model.js';
import { tamper } from './bundle-tamper.js';
import { writeFixtureSnapshot } from './snapshot-dir-fixture.js';

let work: string;
let snapshotDir: string;
let manifest: Manifest;
let other: Manifest;
/** The same reports made from this bundle's snapshot and from another one. */
let ours: string;
let theirs: string;

/** `report --format json` of a compliance report made from the snapshot. */
function jsonReport(snapshotId: string, rootSha256: string | null): string {
  const model = complianceFixture();
  const [base] = model.provenance.snapshots;
  model.provenance.snapshots = [{ ...base!, snapshotId, rootSha256 }];
  return renderReportJson(model);
}

/** `report --format oscal` of one project of the snapshot. */
function oscalReport(snapshotId: string, rootSha256: string | null, verified = true): string {
  return assessmentResultsJson(
    buildAssessmentResults({
      snapshot: {
        snapshot_id: snapshotId,
        org: 'acme',
        workspace: 'main',
        started_at: '2026-01-01T00:00:00.000Z',
        fetched_at: '2026-01-01T00:00:00.000Z',
        root_sha256: rootSha256,
        tool_version: '0.1.0',
        verified,
        project_key: 'demo',
        project_id: null,
        project_name: 'Demo',
        unverified_files: [],
      },
      findings: [],
      categories: [],
      files: new Map(),
      framework: null,
    }),
  );
}

/** The reports of each kind, by entry name: the JSON report and OSCAL as `report --out` names them. */
const REPORTS = {
  'reports/compliance.json': jsonReport,
  'reports/assessment-results.json': oscalReport,
  'reports/assessment-results.oscal': oscalReport,
} as const;
type ReportName = keyof typeof REPORTS;
const REPORT_NAMES = Object.keys(REPORTS) as ReportName[];

async function writeReports(dir: string, snapshot: Manifest): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const name of REPORT_NAMES) {
    await writeFile(
      path.join(dir, path.basename(name)),
      REPORTS[name](snapshot.snapshot_id, snapshot.root_sha256),
    );
  }
}

function filesOf(dir: string, names: readonly ReportName[] = REPORT_NAMES): BundleFile[] {
  return names.map((name) => ({ name, path: path.join(dir, path.basename(name)) }));
}

/** The problem of a report that does not name this bundle's snapshot (as for Markdown and HTML). */
function notOurs(name: string): RegExp {
  return new RegExp(
    `^${name.replace(/\./gu, '\\.')}: its provenance does not name the manifest's root hash ${manifest.root_sha256}`,
  );
}

beforeAll(async () => {
  work = await makeTempDir('airt-bundle-json-');
  ({ dir: snapshotDir, manifest } = await writeFixtureSnapshot({
    root: path.join(work, 'snapshots'),
    snapshotId: '20260102T000000Z',
  }));
  ({ manifest: other } = await writeFixtureSnapshot({
    root: path.join(work, 'snapshots'),
    snapshotId: '20260101T000000Z',
    files: { 'config.json': '{"api_version":"1","older":true}' },
  }));
  expect(other.root_sha256).not.toBe(manifest.root_sha256);
  ours = path.join(work, 'ours');
  theirs = path.join(work, 'theirs');
  await writeReports(ours, manifest);
  await writeReports(theirs, other);
});

describe('JSON and OSCAL reports in a bundle', () => {
  it('count as provenance matched when they name the manifest root hash', async () => {
    const bundle = await writeBundle({
      out: path.join(work, 'ours.zip'),
      snapshotDir,
      includeSnapshot: false,
      files: filesOf(ours),
    });
    const result = await verifyBundle(bundle.path);
    expect(result).toMatchObject({ ok: true, problems: [] });
    expect(result.provenance_checked).toEqual([...REPORT_NAMES].sort());
    const io = recordingIO({ cwd: work });
    expect(await main(['verify', bundle.path], io)).toBe(0);
    expect(io.out.join('')).toContain('provenance matched in 3 files: OK');
  });

  it('says "1 file" for one matching report', async () => {
    const bundle = await writeBundle({
      out: path.join(work, 'one.zip'),
      snapshotDir,
      includeSnapshot: false,
      files: filesOf(ours).filter((file) => file.name.endsWith('.oscal')),
    });
    const io = recordingIO({ cwd: work });
    expect(await main(['verify', bundle.path], io)).toBe(0);
    expect(io.out.join('')).toContain('provenance matched in 1 file: OK');
  });

  it.each(REPORT_NAMES)(
    'bundle refuses %s of another snapshot, and verify fails one put in by hand',
    async (name) => {
      const out = path.join(work, `theirs-${path.basename(name)}.zip`);
      const refused = writeBundle({
        out,
        snapshotDir,
        includeSnapshot: false,
        files: filesOf(theirs, [name]),
      });
      await expect(refused).rejects.toThrow(BundleCheckError);
      expect(existsSync(out)).toBe(false);

      // The same file swapped into a good bundle, SHA256SUMS re-computed: every checksum matches.
      const good = await writeBundle({
        out: path.join(work, `good-${path.basename(name)}.zip`),
        snapshotDir,
        includeSnapshot: false,
        files: filesOf(ours, [name]),
      });
      const theirBytes = await readFile(path.join(theirs, path.basename(name)));
      const swapped = await tamper(good.path, out, (e) => (e[name] = theirBytes), true);
      const result = await verifyBundle(swapped);
      expect(result.ok).toBe(false);
      expect(result.provenance_checked).toEqual([]);
      expect(result.problems).toHaveLength(1);
      expect(result.problems[0]).toMatch(notOurs(name));
      // It says which snapshot the report is of.
      expect(result.problems[0]).toContain(`snapshot ${other.snapshot_id} (root ${other.root_sha256})`);
      await expect(refused).rejects.toMatchObject({ problems: result.problems });
    },
  );

  it('the bundle command exits 1 on an OSCAL report of another snapshot and writes nothing', async () => {
    const io = recordingIO({ cwd: work });
    const out = path.join(work, 'cli-theirs.zip');
    const args = ['bundle', '--snapshot', snapshotDir, '--out', out];
    expect(await main([...args, '--report', path.join(theirs, 'assessment-results.oscal')], io)).toBe(1);
    expect(io.out.join('')).toBe('');
    expect(io.err.join('')).toMatch(
      new RegExp(
        `^airt-report: Cannot bundle: .* would fail its own verification, so it was not written \\(1 problem\\(s\\)\\):\n` +
          `  reports/assessment-results\\.oscal: its provenance does not name the manifest's root hash ${manifest.root_sha256}`,
      ),
    );
    expect(existsSync(out)).toBe(false);
  });

  it('refuses a report that names no root hash, or its snapshot id with no root hash', async () => {
    const dir = path.join(work, 'rootless');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'compliance.json'), jsonReport(manifest.snapshot_id, null));
    await writeFile(path.join(dir, 'assessment-results.json'), oscalReport(manifest.snapshot_id, null));
    await writeFile(
      path.join(dir, 'bare.json'),
      `${JSON.stringify({ format: 'airt-report/report-1', kind: 'compliance' })}\n`,
    );
    const names: ReportName[] = ['reports/assessment-results.json', 'reports/compliance.json'];
    const refused = writeBundle({
      out: path.join(work, 'rootless.zip'),
      snapshotDir,
      includeSnapshot: false,
      files: [...filesOf(dir, names), { name: 'reports/bare.json', path: path.join(dir, 'bare.json') }],
    });
    const problems = await refused.then(
      () => [],
      (error: unknown) => (error instanceof BundleCheckError ? error.problems : [String(error)]),
    );
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(notOurs('reports/assessment-results.json'));
    expect(problems[0]).toContain(`snapshot ${manifest.snapshot_id} (root unknown)`);
    expect(problems[1]).toMatch(notOurs('reports/bare.json'));
    expect(problems[1]).toContain('it names no snapshot');
    expect(problems[2]).toMatch(notOurs('reports/compliance.json'));
  });

  it("refuses a portfolio whose figures come from another snapshot, though its trend names this one's", async () => {
    const report = JSON.parse(jsonReport(other.snapshot_id, other.root_sha256)) as Record<string, unknown>;
    report.kind = 'portfolio';
    report.snapshots = [
      { snapshot_id: manifest.snapshot_id, root_sha256: manifest.root_sha256 },
      { snapshot_id: other.snapshot_id, root_sha256: other.root_sha256 },
    ];
    report.projects = [{ project: { key: 'demo' }, snapshot_id: other.snapshot_id }];
    const file = path.join(work, 'portfolio.json');
    await writeFile(file, JSON.stringify(report));
    const refused = writeBundle({
      out: path.join(work, 'portfolio.zip'),
      snapshotDir,
      includeSnapshot: false,
      files: [{ name: 'reports/portfolio.json', path: file }],
    });
    await expect(refused).rejects.toMatchObject({
      problems: [expect.stringMatching(notOurs('reports/portfolio.json'))],
    });
  });

  it('fails an OSCAL document of a forced load, which names the genuine root hash', async () => {
    const file = path.join(work, 'forced.oscal');
    await writeFile(file, oscalReport(manifest.snapshot_id, manifest.root_sha256, false));
    const refused = writeBundle({
      out: path.join(work, 'forced.zip'),
      snapshotDir,
      includeSnapshot: false,
      files: [{ name: 'reports/forced.oscal', path: file }],
    });
    await expect(refused).rejects.toMatchObject({
      problems: [
        'reports/forced.oscal: made from a snapshot that failed verification and was loaded forced ' +
          '(it carries the "WARNING: UNVERIFIED DATA." warning); bundle reports of a verified load',
      ],
    });
  });

  it('a malformed JSON report fails with one line naming it, not a stack trace', async () => {
    const file = path.join(work, 'broken.json');
    // Cut short, with a newline inside the part the parser quotes.
    await writeFile(file, jsonReport(manifest.snapshot_id, manifest.root_sha256).slice(0, 200));
    const io = recordingIO({ cwd: work });
    const out = path.join(work, 'broken.zip');
    expect(await main(['bundle', '--snapshot', snapshotDir, '--out', out, '--report', file], io)).toBe(1);
    const lines = io.err.join('').trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      /^ {2}reports\/broken\.json: is not valid JSON \(.+\), so which snapshot it was made from is unknown; bundle reports as airt-report wrote them$/,
    );
    expect(io.err.join('')).not.toMatch(/\n\s+at /u);
    expect(existsSync(out)).toBe(false);

    // verify says the same of one put in by hand.
    const good = await writeBundle({
      out: path.join(work, 'good-broken.zip'),
      snapshotDir,
      includeSnapshot: false,
      files: filesOf(ours, ['reports/compliance.json']),
    });
    const swapped = await tamper(
      good.path,
      path.join(work, 'broken-by-hand.zip'),
      (e) => (e['reports/compliance.json'] = strToU8('{"format": "airt-report/report-1",\n')),
      true,
    );
    const result = await verifyBundle(swapped);
    expect(result.problems).toEqual([
      expect.stringMatching(/^reports\/compliance\.json: is not valid JSON \([^\n]+\), so which snapshot/),
    ]);
  });

  it('JSON that is not a report (a chart spec) still needs no provenance and is not counted', async () => {
    const dir = path.join(work, 'charts');
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, 'asr.vl.json'),
      JSON.stringify({ $schema: 'https://vega.github.io/schema/vega-lite/v5.json', mark: 'bar' }),
    );
    const bundle = await writeBundle({
      out: path.join(work, 'charts.zip'),
      snapshotDir,
      includeSnapshot: false,
      files: [{ name: 'reports/charts/asr.vl.json', path: path.join(dir, 'asr.vl.json') }],
    });
    expect(await verifyBundle(bundle.path)).toMatchObject({ ok: true, provenance_checked: [] });
  });
});
