/**
 * The viewer's /compare page when the diff cannot compare everything, over the diff tests' snapshots
 * (test/helpers/): findings whose attack runs lack their required best_score are listed as not
 * comparable (with why, and as CSV), never hidden behind "0 new, 0 resolved"; a partial snapshot is
 * named, and the project it holds no summary of is shown not compared, with the failed requests. Each
 * warehouse is served by the real viewer on 127.0.0.1 port 0; the page keeps the CSP, has no script
 * and passes html-validate.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWER_CSP } from '../../src/viewer/layout.js';
import { startViewer, type RunningViewer } from '../../src/viewer/server.js';
import { diffSnapshots } from '../../src/diff/snapshot-diff.js';
import { openWarehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { comparePage } from '../helpers/compare-page.js';
import { pythonCsv } from '../helpers/python-csv.js';
import { takePartialSnapshotPair, type PartialSnapshotPair } from '../helpers/partial-snapshot-pair.js';
import { takeUnscoredSnapshotPair, type UnscoredSnapshotPair } from '../helpers/unscored-snapshot-pair.js';
import { htmlErrors } from '../report/a11y.js';
import { tempDir } from '../warehouse/helpers.js';

let work: { dir: string; cleanup: () => Promise<void> };
let unscored: UnscoredSnapshotPair;
let partial: PartialSnapshotPair;
/** The not-comparable count the diff gives the tampered project (checked against the raw JSON in test/diff/). */
let notComparable: number;
let unscoredViewer: RunningViewer;
let partialViewer: RunningViewer;

beforeAll(async () => {
  work = await tempDir('airt-viewer-compare-');
  unscored = await takeUnscoredSnapshotPair(path.join(work.dir, 'unscored'));
  const unscoredDb = path.join(work.dir, 'unscored.duckdb');
  await loadSnapshots(unscoredDb, [unscored.clean.dir, unscored.renamed.dir]);
  const wh = await openWarehouse(unscoredDb, { readOnly: true });
  try {
    const diff = await diffSnapshots(wh.conn, { from: unscored.clean.id, to: unscored.renamed.id });
    notComparable = diff.projects.find((p) => p.project === unscored.tampered)?.counts.not_comparable ?? 0;
  } finally {
    wh.close();
  }
  partial = await takePartialSnapshotPair(path.join(work.dir, 'partial'));
  const partialDb = path.join(work.dir, 'partial.duckdb');
  await loadSnapshots(partialDb, [partial.complete.dir, partial.partial.dir]);
  unscoredViewer = await startViewer({ db: unscoredDb });
  partialViewer = await startViewer({ db: partialDb });
}, 180_000);

afterAll(async () => {
  await unscoredViewer?.close();
  await partialViewer?.close();
  await work?.cleanup();
});

/** Text with its runs of whitespace as one space (the page's markup wraps its lines). */
const flat = (text: string): string => text.replace(/\s+/gu, ' ');

describe('/compare with findings of unknown severity (best_score missing in the later snapshot)', () => {
  it('counts them not comparable beside the zero counts, and lists them with why', async () => {
    const expected = notComparable;
    expect(expected).toBeGreaterThan(0);

    const page = await comparePage(unscoredViewer, unscored.clean.id, unscored.renamed.id);
    expect(page.status).toBe(200);
    expect(page.csp).toBe(VIEWER_CSP);
    expect(page.body).not.toMatch(/<script/iu);
    expect(await htmlErrors(page.body)).toEqual([]);
    const text = flat(page.body);
    expect(text).toContain(
      `${unscored.tampered}: 0 new, 0 regressed, 0 resolved, 0 persisting; ${expected} findings not comparable ` +
        '(severity unknown: the attack run lacks its required best_score), in none of these counts',
    );
    const table = flat(page.body.slice(page.body.indexOf('id="table-not_comparable"')));
    expect(table).toContain('<caption> Findings not comparable (severity unknown) </caption>');
    const rows = table.slice(0, table.indexOf('</tbody>')).match(/<tr>/gu) ?? [];
    expect(rows.length - 1).toBe(expected); // the header row and one per finding
    expect(
      table.match(/: unknown in the later snapshot \(the attack run lacks its required best_<wbr>score/gu),
    ).toHaveLength(expected);
    expect(table).toMatch(/severity (critical|high|medium|low|info) → unknown/u);

    const csv = await comparePage(unscoredViewer, unscored.clean.id, unscored.renamed.id, 'not_comparable');
    expect(csv.status).toBe(200);
    const [header, ...csvRows] = pythonCsv(csv.body);
    expect(header).toEqual(['project', 'severity', 'score', 'goal', 'attack_name', 'why']);
    expect(csvRows).toHaveLength(expected);
    for (const row of csvRows) expect(row[5]).toMatch(/→ unknown: unknown in the later snapshot/u);
  }, 60_000);
});

describe('/compare with a partial later snapshot that holds no summary of a project', () => {
  it('names the partial snapshot and shows the project not compared, with the failed requests', async () => {
    const manifest = JSON.parse(await readFile(path.join(partial.partial.dir, 'manifest.json'), 'utf8')) as {
      failed_requests: unknown[];
    };
    const failed = manifest.failed_requests.length;
    expect(failed).toBeGreaterThan(0);

    const page = await comparePage(partialViewer, partial.complete.id, partial.partial.id);
    expect(page.status).toBe(200);
    expect(page.csp).toBe(VIEWER_CSP);
    expect(page.body).not.toMatch(/<script/iu);
    expect(await htmlErrors(page.body)).toEqual([]);
    const text = flat(page.body);
    expect(text).toContain(
      `<strong>Partial snapshot:</strong> ${partial.partial.id} (the later snapshot) is partial: ${failed} ` +
        `${failed === 1 ? 'request' : 'requests'} failed for good, so what it lacks is not compared (never counted as ` +
        `resolved or new). It holds no summary of project ${partial.failing}.`,
    );
    const line = text.slice(text.indexOf('<li class="not-compared">'));
    expect(line.slice(0, line.indexOf('</li>'))).toMatch(
      new RegExp(
        `^<li class="not-compared"> ${partial.failing}: not compared\\. ${partial.partial.id} \\(the later snapshot\\) ` +
          'is partial and holds no summary of this project \\(GET [^ ]*/summary \\(HTTP 500\\), GET [^ ]*/summary \\(HTTP 500\\) failed\\)\\. ' +
          'No finding of it is counted as new, resolved, regressed or persisting: what changed is unknown\\. $',
        'u',
      ),
    );
    expect(text).not.toContain(`${partial.failing}: 0 new`);
    // The project fetched in both is compared as always.
    expect(text).toMatch(
      new RegExp(`${partial.fetched}: \\d+ new, \\d+ regressed, \\d+ resolved, \\d+ persisting`, 'u'),
    );
  }, 60_000);
});
