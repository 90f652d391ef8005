/**
 * A report rendered from a snapshot loaded although it failed verification (`load --force`) says so at
 * the top of every format, and its provenance marks the snapshot unverified; a report of a verified
 * load carries none of it. Real fixture snapshot, real DuckDB, the shipped templates.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAssessmentResults } from '../../src/oscal/assessment-results.js';
import { readOscalEvidence } from '../../src/oscal/read-evidence.js';
import { buildModel } from '../../src/report/build-model.js';
import { generateReport } from '../../src/report/generate.js';
import { renderReportJson } from '../../src/report/json-report.js';
import type { ReportModel } from '../../src/report/model.js';
import { renderHtml, renderMarkdown } from '../../src/report/render.js';
import { reportMarkedUnverified } from '../../src/report/unverified-banner.js';
import { escapeMarkdownText } from '../../src/text-safety.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { htmlErrors } from './a11y.js';
import {
  forcedLoadFixture,
  HOSTILE_EXTRA_FILE,
  TAMPERED_PROJECT,
  TAMPERED_SUMMARY,
  type ForcedLoad,
} from './unverified-snapshot-fixture.js';

let fixture: ForcedLoad;
let forced: Warehouse;
let verified: Warehouse;

beforeAll(async () => {
  fixture = await forcedLoadFixture(await makeTempDir('airt-unverified-'));
  forced = await openWarehouse(fixture.forcedDb, { readOnly: true });
  verified = await openWarehouse(fixture.verifiedDb, { readOnly: true });
});

afterAll(() => {
  forced?.close();
  verified?.close();
});

const model = (warehouse: Warehouse, kind: ReportModel['kind']): Promise<ReportModel> =>
  buildModel(warehouse.conn, { kind, project: kind === 'portfolio' ? undefined : TAMPERED_PROJECT });

const WARNING_TAIL =
  'failed verification and was loaded anyway (forced): 2 files did not match its manifest (';
const CONSEQUENCE = '; these figures are not those of the snapshot whose root hash is shown.';

describe('a report of a snapshot loaded unverified (forced)', () => {
  it('the model records it, with the files that did not match, from the warehouse', async () => {
    const executive = await model(forced, 'executive');
    expect(executive.provenance.snapshots).toEqual([
      expect.objectContaining({
        snapshotId: fixture.snapshotId,
        unverified: { files: [HOSTILE_EXTRA_FILE, TAMPERED_SUMMARY].sort() },
      }),
    ]);
    const genuine = await model(verified, 'executive');
    expect(genuine.provenance.snapshots[0]).not.toHaveProperty('unverified');
    // Same snapshot id and root hash: only the warning tells the two reports apart.
    expect(executive.provenance.snapshots[0]?.rootSha256).toBe(genuine.provenance.snapshots[0]?.rootSha256);
  });

  it.each(['executive', 'compliance', 'portfolio'] as const)(
    'Markdown (%s): a warning right under the title, escaped file names, provenance marked',
    async (kind) => {
      const { markdown } = await renderMarkdown(await model(forced, kind));
      const lines = markdown.split('\n');
      expect(lines[0]).toMatch(/^# /u);
      expect(lines[1]).toBe('');
      expect(lines[2]).toBe(
        `> **WARNING: UNVERIFIED DATA.** Snapshot \`${fixture.snapshotId}\` ${WARNING_TAIL}` +
          '`notes <img src=x onerror=alert(1)> *x* ¦cell¦.txt`, `projects/payments-bot/summary.json`)' +
          CONSEQUENCE,
      );
      // The provenance table and the header line mark the snapshot, whatever its manifest status says.
      expect(markdown).toContain(`| \`${fixture.snapshotId}\` (UNVERIFIED) |`);
      expect(markdown).toContain('| complete; UNVERIFIED: failed verification, loaded forced |');
      expect(markdown).toContain(`· snapshot \`${fixture.snapshotId}\` (UNVERIFIED)`);
      expect(reportMarkedUnverified(markdown, 'md')).toBe(true);
    },
  );

  it('HTML: a warning right after <body>, before the header, valid and escaped', async () => {
    const { html } = await renderHtml(await model(forced, 'executive'));
    const body = html.indexOf('<body class="kind-executive">');
    const banner = html.indexOf('<div class="callout unverified-snapshot">');
    expect(body).toBeGreaterThan(0);
    expect(banner).toBe(body + '<body class="kind-executive">\n'.length);
    expect(banner).toBeLessThan(html.indexOf('<header'));
    const paragraph = html.slice(banner, html.indexOf('</div>', banner));
    expect(paragraph).toContain('<strong>WARNING: UNVERIFIED DATA.</strong> Snapshot <code>');
    expect(paragraph).toContain('notes &lt;img src&#x3D;x onerror&#x3D;alert(1)&gt; *x* |cell|.txt');
    expect(paragraph).not.toContain('<img');
    expect(paragraph).toContain('these figures are not those of the snapshot whose root hash is shown.');
    expect(html).toContain('UNVERIFIED: failed verification, loaded forced');
    expect(await htmlErrors(html)).toEqual([]);
    expect(reportMarkedUnverified(html, 'html')).toBe(true);
  });

  it('JSON: unverified_snapshots names the snapshot, every file and the warning', async () => {
    const json = JSON.parse(renderReportJson(await model(forced, 'executive'))) as Record<string, unknown>;
    expect(json.unverified_snapshots).toEqual([
      {
        snapshot_id: fixture.snapshotId,
        files_not_matching_manifest: [HOSTILE_EXTRA_FILE, TAMPERED_SUMMARY].sort(),
        warning:
          `Snapshot ${fixture.snapshotId} ${WARNING_TAIL}${HOSTILE_EXTRA_FILE}, ${TAMPERED_SUMMARY})` +
          CONSEQUENCE,
      },
    ]);
    // The published schema knows the field: a forced load's JSON report validates like any other.
    const schema = JSON.parse(
      await readFile(path.join(import.meta.dirname, '../../schemas/report.schema.json'), 'utf8'),
    ) as object;
    const validate = new Ajv({ allErrors: true }).compile(schema);
    for (const kind of ['executive', 'compliance', 'portfolio'] as const)
      expect([
        kind,
        validate(JSON.parse(renderReportJson(await model(forced, kind)))),
        validate.errors,
      ]).toEqual([kind, true, null]);
  });

  it('OSCAL: the assessment results say it first (metadata and result remarks, a prop), a verified load not', async () => {
    const document = async (warehouse: Warehouse) =>
      buildAssessmentResults(await readOscalEvidence(warehouse.conn, { project: TAMPERED_PROJECT })) as {
        'assessment-results': {
          metadata: { remarks: string; props: { name: string; value: string }[] };
          results: { remarks?: string }[];
        };
      };
    const lead = `WARNING: UNVERIFIED DATA. Snapshot ${fixture.snapshotId} failed verification and was loaded anyway (forced)`;
    const { metadata, results } = (await document(forced))['assessment-results'];
    expect(metadata.remarks.startsWith(lead)).toBe(true);
    expect(results[0]?.remarks?.startsWith(lead)).toBe(true);
    expect(metadata.props).toContainEqual(
      expect.objectContaining({ name: 'snapshot-verified', value: 'false' }),
    );
    const clean = JSON.stringify(await document(verified));
    expect(clean).not.toContain('UNVERIFIED');
    expect(clean).not.toContain('snapshot-verified');
  });

  it('OSCAL: names the mismatched files as the Markdown does, and marks their back-matter hashes as not the bytes loaded', async () => {
    type Resource = {
      title?: string;
      description?: string;
      props?: { name: string; value: string }[];
      rlinks?: { href: string; hashes: { value: string }[] }[];
    };
    const doc = buildAssessmentResults(
      await readOscalEvidence(forced.conn, { project: TAMPERED_PROJECT }),
    ) as {
      'assessment-results': {
        metadata: { remarks: string };
        results: { remarks?: string }[];
        'back-matter': { resources: Resource[] };
      };
    };
    const ar = doc['assessment-results'];
    // The files that differ from the manifest, found here from the files on disk: the changed summary
    // and the stray file (named as data, escaped: its Markdown and HTML never reach the document raw).
    const manifest = JSON.parse(await readFile(path.join(fixture.tampered, 'manifest.json'), 'utf8')) as {
      files: { path: string; sha256: string }[];
    };
    const onDisk = async (file: string) =>
      createHash('sha256')
        .update(await readFile(path.join(fixture.tampered, file)))
        .digest('hex');
    const changed: string[] = [];
    for (const entry of manifest.files)
      if ((await onDisk(entry.path)) !== entry.sha256) changed.push(entry.path);
    expect(changed).toEqual([TAMPERED_SUMMARY]);
    const named = [...changed, HOSTILE_EXTRA_FILE].sort().map(escapeMarkdownText).join(', ');
    const clause = `2 files did not match its manifest (${named}); these results are not those`;
    expect(ar.metadata.remarks).toContain(clause);
    expect(ar.results[0]?.remarks).toContain(clause);
    expect(JSON.stringify(doc)).not.toContain(HOSTILE_EXTRA_FILE);
    // The Markdown report names the same files.
    const { markdown } = await renderMarkdown(await model(forced, 'compliance'));
    expect(markdown).toContain('2 files did not match its manifest (');
    // Back-matter: the changed file's resource says its hash is not what was loaded; the others not.
    const resources = ar['back-matter'].resources.filter((r) => r.rlinks !== undefined);
    expect(resources.length).toBeGreaterThan(1);
    for (const resource of resources) {
      const file = resource.rlinks?.[0]?.href ?? '';
      const mismatched = (await onDisk(file)) !== resource.rlinks?.[0]?.hashes[0]?.value;
      expect([file, mismatched]).toEqual([file, changed.includes(file)]);
      expect([file, resource.props ?? []]).toEqual([
        file,
        mismatched ? [expect.objectContaining({ name: 'loaded-bytes-verified', value: 'false' })] : [],
      ]);
      if (mismatched) expect(resource.description).toContain('did not match this SHA-256');
    }
  });

  it('a custom template cannot leave the warning out', async () => {
    // A --templates copy that shows no provenance at all still gets the warning under its title.
    const templates = await makeTempDir('airt-unverified-templates-');
    await mkdir(path.join(templates, 'md'));
    await writeFile(path.join(templates, 'md', 'executive.hbs'), '# {{reportTitle}}\n\nAll clear.\n');
    const out = path.join(await makeTempDir('airt-unverified-out-'), 'report.md');
    await generateReport({
      db: fixture.forcedDb,
      kind: 'executive',
      project: TAMPERED_PROJECT,
      format: 'md',
      out,
      templatesDir: templates,
    });
    const markdown = await readFile(out, 'utf8');
    expect(markdown.split('\n').slice(0, 3)).toEqual([
      '# Executive red-team report',
      '',
      expect.stringMatching(/^> \*\*WARNING: UNVERIFIED DATA\.\*\* Snapshot /u),
    ]);
    // Nor the line naming the snapshot the figures come from (figures-source.ts).
    expect(markdown).toMatch(
      /All clear\.\n\n<!-- airt-report figures from snapshot \S+, root sha256 [0-9a-f]{64} -->\n$/u,
    );
  });
});

describe('a report of a verified load', () => {
  it.each(['md', 'html', 'json'] as const)('carries no warning (%s)', async (format) => {
    const executive = await model(verified, 'executive');
    const text =
      format === 'md'
        ? (await renderMarkdown(executive)).markdown
        : format === 'html'
          ? (await renderHtml(executive)).html
          : renderReportJson(executive);
    expect(text).not.toContain('UNVERIFIED');
    expect(reportMarkedUnverified(text, format)).toBe(false);
  });
});
