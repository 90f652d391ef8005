/**
 * A PDF of a forced (unverified) load cannot pass for evidence: a bundle holding only that PDF verified
 * OK, since `verify` searched Markdown, HTML and JSON for the warning and a PDF's text is compressed.
 * The printed PDF now carries the warning as its /Subject (whatever the template), `verify BUNDLE.zip`
 * fails a bundle holding it, naming the entry, and `bundle` refuses to write one; a PDF of the verified
 * load still bundles and verifies. Real fixture snapshot, real DuckDB, real headless Chromium: without
 * Chromium this skips, unless AIRT_REQUIRE_BROWSER=1 (CI), where it fails.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordingIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { writeBundle } from '../../src/pipeline/bundle.js';
import { verifyBundle } from '../../src/pipeline/verify-bundle.js';
import { generateReport } from '../../src/report/generate.js';
import { resolveChromiumPath } from '../../src/report/pdf.js';
import { pdfMarkedUnverified, UNVERIFIED_PDF_SUBJECT } from '../../src/report/unverified-banner.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import {
  forcedLoadFixture,
  TAMPERED_PROJECT,
  type ForcedLoad,
} from '../report/unverified-snapshot-fixture.js';

const chromiumPath = resolveChromiumPath(process.env);
const available = existsSync(chromiumPath) || process.env.AIRT_REQUIRE_BROWSER === '1';

let work: string;
let fixture: ForcedLoad;
/** The PDFs (report and appendix) of the executive report, per load, each in its own directory. */
let forcedPdfs: string;
let verifiedPdfs: string;

/** Prints the executive report of `db` as PDF into `dir` (report.pdf and report-appendix.pdf). */
async function printReport(db: string, dir: string): Promise<void> {
  await mkdir(dir);
  await generateReport({
    db,
    kind: 'executive',
    project: TAMPERED_PROJECT,
    format: 'pdf',
    out: path.join(dir, '/'),
    chromiumPath,
  });
}

const latin1 = async (file: string): Promise<string> => (await readFile(file)).toString('latin1');

/** The problem `verify` names for an entry made from the forced load. */
const forcedProblem = (entry: string): string =>
  `${entry}: made from a snapshot that failed verification and was loaded forced (it carries the ` +
  '"WARNING: UNVERIFIED DATA." warning); bundle reports of a verified load';

describe.runIf(available)('a PDF report of a forced (unverified) load', () => {
  beforeAll(async () => {
    work = await makeTempDir('airt-bundle-unverified-pdf-');
    fixture = await forcedLoadFixture(work);
    forcedPdfs = path.join(work, 'pdf-forced');
    verifiedPdfs = path.join(work, 'pdf-verified');
    await printReport(fixture.forcedDb, forcedPdfs);
    await printReport(fixture.verifiedDb, verifiedPdfs);
  }, 120_000);

  it('carries the warning as its /Subject, in both files, and prints to the same bytes again', async () => {
    for (const name of ['report.pdf', 'report-appendix.pdf']) {
      const forced = await latin1(path.join(forcedPdfs, name));
      expect(pdfMarkedUnverified(forced)).toBe(true);
      // Plain ASCII in the file: findable without any PDF tool.
      expect(forced).toContain(`/Subject (${UNVERIFIED_PDF_SUBJECT.replace(/[()]/gu, '\\$&')})`);
      const verified = await latin1(path.join(verifiedPdfs, name));
      expect(pdfMarkedUnverified(verified)).toBe(false);
      expect(verified).not.toContain('/Subject');
    }
    const again = path.join(work, 'pdf-forced-again');
    await printReport(fixture.forcedDb, again);
    for (const name of ['report.pdf', 'report-appendix.pdf']) {
      expect(await readFile(path.join(again, name))).toEqual(await readFile(path.join(forcedPdfs, name)));
    }
  }, 60_000);

  it('is marked whatever the template: a custom one that shows nothing of it still is', async () => {
    const templates = await makeTempDir('airt-unverified-pdf-templates-');
    await mkdir(path.join(templates, 'html'));
    await writeFile(
      path.join(templates, 'html', 'executive.hbs'),
      '<!doctype html><html><head><title>{{reportTitle}}</title></head><body><p>All clear.</p></body></html>\n',
    );
    const out = path.join(work, 'custom-template.pdf');
    await generateReport({
      db: fixture.forcedDb,
      kind: 'executive',
      project: TAMPERED_PROJECT,
      format: 'pdf',
      out,
      chromiumPath,
      templatesDir: templates,
    });
    expect(pdfMarkedUnverified(await latin1(out))).toBe(true);
  }, 60_000);

  it('fails verify BUNDLE.zip, naming each PDF entry, in a bundle holding only the PDFs', async () => {
    // A bundle assembled by other means (bundle itself refuses, below): every checksum matches.
    const entries: Record<string, Uint8Array> = {
      'manifest.json': await readFile(path.join(fixture.genuine, 'manifest.json')),
      'reports/report.pdf': await readFile(path.join(forcedPdfs, 'report.pdf')),
      'reports/report-appendix.pdf': await readFile(path.join(forcedPdfs, 'report-appendix.pdf')),
    };
    entries.SHA256SUMS = strToU8(
      Object.keys(entries)
        .sort()
        .map((name) => `${createHash('sha256').update(entries[name]!).digest('hex')}  ${name}\n`)
        .join(''),
    );
    const zip = path.join(work, 'only-pdf.zip');
    await writeFile(zip, zipSync(entries));

    const result = await verifyBundle(zip);
    expect(result.ok).toBe(false);
    expect(result.checked).toBe(3);
    expect(result.problems).toEqual([
      forcedProblem('reports/report-appendix.pdf'),
      forcedProblem('reports/report.pdf'),
    ]);

    const io = recordingIO({ cwd: work });
    expect(await main(['verify', zip], io)).toBe(1);
    const printed = io.out.join('') + io.err.join('');
    expect(printed).toContain(`problem   ${forcedProblem('reports/report.pdf')}\n`);
    expect(printed).toContain('FAILED (2 problem(s))');
  });

  it('is refused by bundle, both entries named, nothing written', async () => {
    const before = await readdir(work);
    const out = path.join(work, 'forced-pdf.zip');
    const io = recordingIO({ cwd: work });
    const args = ['bundle', '--snapshot', fixture.genuine, '--out', out, '--report', forcedPdfs];
    expect(await main(args, io)).toBe(1);
    expect(io.out.join('')).toBe('');
    expect(io.err.join('')).toBe(
      `airt-report: Cannot bundle: ${out} would fail its own verification, so it was not written (2 problem(s)):\n` +
        `  ${forcedProblem('reports/report-appendix.pdf')}\n  ${forcedProblem('reports/report.pdf')}\n`,
    );
    expect(existsSync(out)).toBe(false);
    expect((await readdir(work)).filter((name) => !before.includes(name))).toEqual([]);
  });

  it('the PDFs of the verified load bundle and verify, with the root-hash note', async () => {
    const bundle = await writeBundle({
      out: path.join(work, 'verified-pdf.zip'),
      snapshotDir: fixture.genuine,
      includeSnapshot: false,
      files: [
        { name: 'reports/report.pdf', path: path.join(verifiedPdfs, 'report.pdf') },
        { name: 'reports/report-appendix.pdf', path: path.join(verifiedPdfs, 'report-appendix.pdf') },
      ],
    });
    const result = await verifyBundle(bundle.path);
    expect(result).toMatchObject({ ok: true, problems: [] });
    expect(result.notes).toEqual([
      'reports/report-appendix.pdf: PDF provenance (root hash) is covered by its checksum only',
      'reports/report.pdf: PDF provenance (root hash) is covered by its checksum only',
    ]);
  });
});
