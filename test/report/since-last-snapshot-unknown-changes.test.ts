/* eslint-disable @typescript-eslint/no-unsafe-assignment -- the raw snapshot JSON is read untyped on purpose (the independent count) */
/**
 * The executive report's "Since last snapshot" section and its brief when the diff cannot say what
 * changed, over the diff tests' snapshots (test/helpers/): findings whose attack runs lack their
 * required best_score are not comparable, and a previous snapshot that is partial and holds no summary
 * of the project leaves the project not compared. Neither may read as "0 new, 0 resolved": the
 * Markdown and HTML say how many findings could not be compared and why, or that the project was not
 * compared because the snapshot is partial, and the HTML stays valid (html-validate).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildModel } from '../../src/report/build-model.js';
import type { ReportModel } from '../../src/report/model.js';
import { renderHtml, renderMarkdown } from '../../src/report/render.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { takePartialSnapshotPair, type PartialSnapshotPair } from '../helpers/partial-snapshot-pair.js';
import { takeUnscoredSnapshotPair, type UnscoredSnapshotPair } from '../helpers/unscored-snapshot-pair.js';
import { tempDir } from '../warehouse/helpers.js';
import { htmlErrors } from './a11y.js';
import { briefOf } from './golden-set.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let work: { dir: string; cleanup: () => Promise<void> };
let unscored: UnscoredSnapshotPair;
let unscoredWarehouse: Warehouse;
let partial: PartialSnapshotPair;
let partialWarehouse: Warehouse;

beforeAll(async () => {
  work = await tempDir('airt-since-unknown-');
  unscored = await takeUnscoredSnapshotPair(path.join(work.dir, 'unscored'));
  const unscoredDb = path.join(work.dir, 'unscored.duckdb');
  await loadSnapshots(unscoredDb, [unscored.clean.dir, unscored.renamed.dir]);
  unscoredWarehouse = await openWarehouse(unscoredDb, { readOnly: true });
  // The run before this one was partial: its summary of `failing` failed; this run's snapshot is complete.
  partial = await takePartialSnapshotPair(path.join(work.dir, 'partial'), { partialFirst: true });
  const partialDb = path.join(work.dir, 'partial.duckdb');
  await loadSnapshots(partialDb, [partial.partial.dir, partial.complete.dir]);
  partialWarehouse = await openWarehouse(partialDb, { readOnly: true });
}, 180_000);

afterAll(async () => {
  unscoredWarehouse?.close();
  partialWarehouse?.close();
  await work?.cleanup();
});

/** The section of a rendered report from its heading to the next one of its level. */
function section(text: string, start: string, next: string): string {
  const from = text.indexOf(start);
  if (from < 0) throw new Error(`no "${start}" in the report`);
  const to = text.indexOf(next, from + start.length);
  return text.slice(from, to < 0 ? undefined : to);
}

async function rendered(model: ReportModel) {
  const { markdown } = await renderMarkdown(model);
  const { html } = await renderHtml(model);
  return {
    markdown,
    html,
    mdSection: section(markdown, '## Since last snapshot', '\n## '),
    mdBrief: briefOf(markdown, '## At a glance', '\n## '),
    htmlSection: section(html, '<section class="report-section" id="since-last-snapshot">', '</section>'),
    htmlBrief: briefOf(html, '<section class="report-section first brief"', '</section>'),
  };
}

describe('findings whose severity is unknown in this snapshot (best_score missing)', () => {
  /** From the raw JSON: the renamed summary's findings (runs of analyzed assessments) and their assessments. */
  async function rawFindings() {
    const summary = JSON.parse(
      await readFile(path.join(unscored.renamed.dir, 'projects', unscored.tampered, 'summary.json'), 'utf8'),
    ) as Json;
    const analyzed = (summary.assessments as Json[]).filter(
      (a) => a.status === 'completed' || a.status === 'failed',
    );
    const withRuns = analyzed.filter((a) => ((a.attack_runs ?? []) as Json[]).length > 0);
    return {
      runs: analyzed.flatMap((a) => (a.attack_runs ?? []) as Json[]).length,
      assessments: withRuns.map((a) => String(a.id)).sort(),
    };
  }

  it('says how many could not be compared and why, in the section and the brief, never just 0 changes', async () => {
    const raw = await rawFindings();
    expect(raw.runs).toBeGreaterThan(0);
    const model = await buildModel(unscoredWarehouse.conn, {
      kind: 'executive',
      project: unscored.tampered,
      snapshot: unscored.renamed.id,
    });
    const since = model.kind === 'executive' ? model.sinceLastSnapshot : null;
    expect(since?.previous.snapshotId).toBe(unscored.clean.id);
    expect(since?.counts).toEqual({ new: 0, resolved: 0, regressed: 0, persisting: 0 });
    expect(since?.notComparable).toEqual({
      total: raw.runs,
      unknownIn: { previous: 0, current: raw.runs, both: 0 },
      assessments: raw.assessments,
    });
    expect(since?.notCompared).toBeNull();

    const { html, mdSection, mdBrief, htmlSection, htmlBrief } = await rendered(model);
    expect(mdSection).toContain('| 0 | 0 | 0 | 0 |');
    expect(mdSection).toContain(
      `> **${raw.runs} findings could not be compared:** their severity is unknown in this report's snapshot ` +
        '(the attack run lacks its required `best_score` and no triage set one), so they are in none of these ' +
        'counts, neither new, resolved, regressed nor persisting; assessments with such runs: ' +
        `${raw.assessments.map((id) => `\`${id}\``).join(', ')}. \`airt-report diff\` lists them.`,
    );
    expect(mdSection).toContain(
      '*No finding is new or regressed since the previous snapshot, of those that could be compared.*',
    );
    expect(mdBrief).toContain(
      `**Since the last snapshot:** 0 new, 0 regressed, 0 resolved (findings of severity low or worse, compared with snapshot \`${unscored.clean.id}\`). ` +
        `${raw.runs} findings could not be compared (severity unknown in this report's snapshot: the attack run lacks its required \`best_score\`) and are in none of these counts.`,
    );

    expect(await htmlErrors(html)).toEqual([]);
    expect(htmlSection).toContain(
      `<p class="callout not-comparable"><strong>${raw.runs} findings could not be compared:</strong> their severity is unknown in this report&#x27;s snapshot (the attack run lacks its required <code>best_score</code> and no triage set one)`,
    );
    expect(htmlBrief).toContain(
      `<p class="callout not-comparable"><strong>${raw.runs} findings could not be compared</strong> (severity unknown in this report&#x27;s snapshot: the attack run lacks its required <code>best_score</code>) and are in none of these counts.</p>`,
    );
  });
});

describe('a previous snapshot that is partial and holds no summary of the project', () => {
  /** The report a run makes: this run's (complete) snapshot, compared with the run's baseline, the partial one. */
  const report = (project: string) =>
    buildModel(partialWarehouse.conn, {
      kind: 'executive',
      project,
      snapshot: partial.complete.id,
      since: partial.partial.id,
    });

  it('says the project was not compared because that snapshot is partial, with no counts and no metric changes', async () => {
    expect(partial.partial.status).toBe('partial');
    const model = await report(partial.failing);
    const since = model.kind === 'executive' ? model.sinceLastSnapshot : null;
    expect(since?.notCompared).toEqual({
      snapshotId: partial.partial.id,
      side: 'previous',
      failedRequests: expect.any(Array),
    });
    const requests = since?.notCompared?.failedRequests ?? [];
    expect(requests.map((r) => r.path.replace(/^.*\/projects\//u, '')).sort()).toEqual(
      [partial.failing, partial.failingId].map((key) => `${key}/summary`).sort(),
    );
    for (const request of requests) expect(request).toMatchObject({ method: 'GET', status: 500 });

    const { html, mdSection, mdBrief, htmlSection, htmlBrief } = await rendered(model);
    const requestList = (code: (text: string) => string) =>
      requests.map((r) => `${code(`${r.method} ${r.path}`)} (HTTP 500)`).join(', ');
    expect(mdSection).toContain(
      `> **Not compared:** the previous snapshot \`${partial.partial.id}\` is partial and holds no summary of this project ` +
        `(${requestList((t) => `\`${t}\``)} failed), so what changed between the snapshots is unknown, not nothing: ` +
        'no finding is counted as new, resolved, regressed or persisting, and no metric change is shown.',
    );
    // No zero counts, no "nothing new", no metric table of dashes: none of it was compared.
    expect(mdSection).not.toContain('| New | Resolved | Regressed | Persisting |');
    expect(mdSection).not.toContain('No finding is new or regressed');
    expect(mdSection).not.toContain('### Metric changes');
    expect(mdSection).not.toContain('Compared with the previous snapshot');
    expect(mdBrief).toContain(
      `**Since the last snapshot:** not compared: the previous snapshot \`${partial.partial.id}\` is partial and holds no summary of this project, so what changed is unknown, not nothing (see Since last snapshot).`,
    );
    expect(mdBrief).not.toMatch(/\b0 new, 0 regressed, 0 resolved\b/u);

    expect(await htmlErrors(html)).toEqual([]);
    expect(htmlSection).toContain(
      '<p class="callout not-compared"><strong>Not compared:</strong> the previous snapshot <code>',
    );
    expect(htmlSection).toContain('is partial and holds no summary of this project (<code>GET ');
    expect(htmlSection).not.toContain('class="kpis lifecycle"');
    expect(htmlSection).not.toContain('<h3>Metric changes</h3>');
    expect(htmlBrief).toContain(
      '<p class="callout not-compared"><strong>Not compared:</strong> the previous snapshot <code>',
    );
    expect(htmlBrief).not.toContain('class="change-counts"');

    // The project fetched in both snapshots is compared as always.
    const other = await report(partial.fetched);
    const compared = other.kind === 'executive' ? other.sinceLastSnapshot : null;
    expect(compared?.notCompared).toBeNull();
    expect((await renderMarkdown(other)).markdown).toContain('| New | Resolved | Regressed | Persisting |');
  });
});
