/**
 * The viewer's /compare page when the later snapshot no longer lists a project the earlier one holds
 * (test/helpers/removed-project-pair.ts: the simulator's hostile project `../../etc` left the
 * service): the project is named as removed with its count of findings no longer reported, and those
 * findings are a table of their own (and a CSV), never missing and never "resolved". The count is the
 * earlier snapshot's raw summary JSON's open runs of severity low or worse. Served by the real viewer on
 * 127.0.0.1 port 0; the page keeps the CSP, has no script and passes html-validate.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWER_CSP } from '../../src/viewer/layout.js';
import { startViewer, type RunningViewer } from '../../src/viewer/server.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { comparePage } from '../helpers/compare-page.js';
import { pythonCsv } from '../helpers/python-csv.js';
import { analyzedRuns, readRawSummaryOf, severityBand } from '../helpers/raw-summary-findings.js';
import { takeRemovedProjectPair, type RemovedProjectPair } from '../helpers/removed-project-pair.js';
import { htmlErrors } from '../report/a11y.js';
import { tempDir } from '../warehouse/helpers.js';

let work: { dir: string; cleanup: () => Promise<void> };
let pair: RemovedProjectPair;
let viewer: RunningViewer;
/** The removed project's tracked findings in the earlier snapshot, from its raw summary JSON. */
let expected: number;

beforeAll(async () => {
  work = await tempDir('airt-viewer-removed-');
  pair = await takeRemovedProjectPair(path.join(work.dir, 'snapshots'));
  const db = path.join(work.dir, 'w.duckdb');
  await loadSnapshots(db, [pair.before.dir, pair.after.dir]);
  const summary = await readRawSummaryOf(pair.before.dir, pair.removed);
  expected = analyzedRuns(summary).filter(
    (run) => severityBand(run.best_score as number | null) !== 'info',
  ).length;
  viewer = await startViewer({ db });
}, 120_000);

afterAll(async () => {
  await viewer?.close();
  await work?.cleanup();
});

/** This pair's compare page (or, with `download`, one of its tables as CSV). */
const pairPage = (download?: string) => comparePage(viewer, pair.before.id, pair.after.id, download);

/** Text with its runs of whitespace as one space, and the viewer's break hints (`<wbr>`) left out. */
const flat = (text: string): string => text.replace(/\s+/gu, ' ').replace(/<wbr>/gu, '');

describe('/compare when the later snapshot no longer lists a project', () => {
  it('names it removed, with its findings no longer reported in their own table', async () => {
    expect(expected).toBeGreaterThan(0);
    const page = await pairPage();
    expect(page.status).toBe(200);
    expect(page.csp).toBe(VIEWER_CSP);
    expect(page.body).not.toMatch(/<script/iu);
    expect(await htmlErrors(page.body)).toEqual([]);
    const text = flat(page.body);
    const line = text.slice(text.indexOf('<li class="removed">'));
    expect(line.slice(0, line.indexOf('</li>'))).toBe(
      `<li class="removed"> ${pair.removed}: removed, not in the later snapshot (the service no longer lists ` +
        `it, or the snapshot was not asked for it). ${expected} open findings of it (severity low or worse) no ` +
        'longer reported, not counted as resolved: nothing says they were fixed. ',
    );
    // Not shown as compared with zero changes.
    expect(text).not.toContain(`${pair.removed}: 0 new`);
    const table = flat(page.body.slice(page.body.indexOf('id="table-no_longer_reported"')));
    expect(table).toContain('<caption> No longer reported (project not in the later snapshot) </caption>');
    const rows = table.slice(0, table.indexOf('</tbody>')).match(/<tr>/gu) ?? [];
    expect(rows.length - 1).toBe(expected); // the header row and one per finding
    // Each finding links to its page in the earlier snapshot, the one that holds it.
    const links = table.slice(0, table.indexOf('</tbody>')).match(/href="\/finding\?[^"]*"/gu) ?? [];
    expect(links).toHaveLength(expected);
    // (The attribute is HTML-escaped: `=` is `&#x3D;`.)
    for (const link of links) expect(link).toContain(`snapshot&#x3D;${pair.before.id}&amp;run`);
    const first = links[0]!.slice('href="/'.length, -1).replaceAll('&#x3D;', '=').replaceAll('&amp;', '&');
    expect((await fetch(`${viewer.url}${first}`)).status).toBe(200);
    // None of them is called resolved.
    const resolved = flat(page.body.slice(page.body.indexOf('id="table-resolved"')));
    expect(resolved.slice(0, resolved.indexOf('</table>'))).not.toContain(pair.removed);
  }, 60_000);

  it('gives the same findings as CSV', async () => {
    const csv = await pairPage('no_longer_reported');
    expect(csv.status).toBe(200);
    const [header, ...rows] = pythonCsv(csv.body);
    expect(header).toEqual(['project', 'severity', 'score', 'goal', 'attack_name']);
    expect(rows).toHaveLength(expected);
    for (const row of rows) {
      expect(row[0]).toBe(pair.removed);
      expect(['critical', 'high', 'medium', 'low']).toContain(row[1]);
    }
  }, 60_000);
});
