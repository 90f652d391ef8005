/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return -- the diff's JSON and the raw snapshot are read untyped, as another tool would */
/**
 * A project the earlier snapshot holds and the later one does not list at all (the service no longer
 * lists it, or the snapshot was not asked for it): the diff names it (JSON `in_current: false`,
 * `counts.no_longer_reported` and the findings; Markdown "Removed projects" with a table of them), never
 * counts its findings as resolved and never drops it; `--project` of it works. The removed project
 * is the simulator's hostile one (key `../../etc`, name with markup), so every rendering of it is
 * checked for escaping; the snapshots are test/helpers/removed-project-pair.ts. The expected findings
 * are read from the first snapshot's raw summary JSON (test/helpers/raw-summary-findings.ts), not from
 * the warehouse.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import { diffJson, diffMarkdown } from '../../src/diff/diff-report.js';
import { diffSnapshots } from '../../src/diff/snapshot-diff.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import {
  analyzedRuns,
  readRawSummaryOf,
  severityBand,
  type RawJson,
} from '../helpers/raw-summary-findings.js';
import { takeRemovedProjectPair } from '../helpers/removed-project-pair.js';
import { tempDir } from '../warehouse/helpers.js';

let work: { dir: string; cleanup: () => Promise<void> };
let db: string;
let warehouse: Warehouse;
let both: { dir: string; id: string };
let kept: { dir: string; id: string };
/** The project only the first snapshot holds (`../../etc`), and the one both hold. */
let removed: string;
let remaining: string;
/** The attack run ids of the removed project's tracked findings (open, at least low), from the raw JSON. */
let expectedRuns: string[];

beforeAll(async () => {
  work = await tempDir('airt-removed-project-');
  ({
    before: both,
    after: kept,
    removed,
    remaining,
  } = await takeRemovedProjectPair(path.join(work.dir, 'snapshots')));
  db = path.join(work.dir, 'w.duckdb');
  await loadSnapshots(db, [both.dir, kept.dir]);
  warehouse = await openWarehouse(db, { readOnly: true });
  // Independently: the runs of analyzed assessments whose score band is at least low. The simulator
  // triages nothing here (no FindingDetail files), so every one is open.
  const summary = await readRawSummaryOf(both.dir, removed);
  expectedRuns = analyzedRuns(summary)
    .filter((run) => severityBand(run.best_score as number | null) !== 'info')
    .map((run) => String(run.id))
    .sort();
}, 120_000);

afterAll(async () => {
  warehouse?.close();
  await work?.cleanup();
});

describe('a diff whose later snapshot no longer lists a project', () => {
  it('has the repro: the project is in the earlier snapshot only, with findings', async () => {
    const manifest = JSON.parse(await readFile(path.join(kept.dir, 'manifest.json'), 'utf8')) as RawJson;
    expect((manifest.projects as RawJson[]).map((p) => p.key)).toEqual([remaining]);
    expect(manifest.status).toBe('complete');
    expect(expectedRuns.length).toBeGreaterThan(0);
    // No triaged finding (FindingDetail) in the earlier snapshot: every run's severity is its band.
    expect(existsSync(path.join(both.dir, 'findings'))).toBe(false);
  });

  it('lists it in JSON as not in the later snapshot, its findings no longer reported, none resolved', async () => {
    const diff = await diffSnapshots(warehouse.conn, { from: both.id, to: kept.id });
    const json = JSON.parse(diffJson(diff)) as RawJson;
    const entry = (json.projects as RawJson[]).find((p) => p.project === removed)!;
    expect(entry).toBeDefined();
    expect(entry).toMatchObject({ in_previous: true, in_current: false, compared: false });
    expect(entry.counts).toEqual({
      new: 0,
      resolved: 0,
      regressed: 0,
      persisting: 0,
      not_comparable: 0,
      no_longer_reported: expectedRuns.length,
    });
    const runs = (entry.findings.no_longer_reported as RawJson[]).map((f) => String(f.attack_run_id));
    expect([...runs].sort()).toEqual(expectedRuns);
    expect(entry.findings.resolved).toEqual([]);
    expect(entry.findings.new).toEqual([]);
    // The project both snapshots hold is compared as always, and is in the later snapshot.
    const other = (json.projects as RawJson[]).find((p) => p.project === remaining)!;
    expect(other).toMatchObject({ in_previous: true, in_current: true, compared: true });
    expect(other.counts.no_longer_reported).toBe(0);
    expect(other.counts.persisting).toBeGreaterThan(0);
  });

  it('says so in Markdown: a "Removed projects" section with a table of what it had, escaped', async () => {
    const markdown = diffMarkdown(await diffSnapshots(warehouse.conn, { from: both.id, to: kept.id }));
    const section = markdown.slice(markdown.indexOf('## Removed projects'));
    expect(markdown).toContain('## Removed projects');
    expect(section).toContain(
      `${expectedRuns.length} open findings of it (severity low or worse) are no longer reported: ` +
        'not counted as resolved',
    );
    // The key `../../etc` as inert text; the table has a row per finding (all fit under the limit).
    expect(section).toContain('### Project ../../etc');
    const table = section.slice(section.indexOf('#### No longer reported'));
    expect(table).toMatch(new RegExp(`^#### No longer reported \\(${expectedRuns.length}\\)`, 'u'));
    // Its lines up to the first blank line after the table: a header, a rule and a row per finding.
    const rows = table.split('\n\n')[1]!.split('\n');
    expect(rows[0]).toMatch(/^\| Severity \| Score \| Attack /u);
    expect(rows.slice(2)).toHaveLength(expectedRuns.length);
    for (const row of rows.slice(2))
      expect(row).toMatch(/^\| (critical|high|medium|low) \| .* \| project not listed \|$/u);
    // No raw markup of the data anywhere in the diff.
    expect(markdown).not.toMatch(/<(script|img|b)\b/iu);
    // The removed project is not in the per-project sections above: it is listed once.
    expect(markdown.split('### Project ../../etc')).toHaveLength(2);
  });

  it('answers `diff --project` of the removed project with its entry, not an error', async () => {
    const io = recordingIO();
    const code = await main(
      ['diff', '--db', db, '--from', both.id, '--to', kept.id, '--project', removed, '--format', 'json'],
      io,
    );
    expect(code, io.err.join('')).toBe(0);
    const json = JSON.parse(io.out.join('')) as RawJson;
    expect((json.projects as RawJson[]).map((p) => p.project)).toEqual([removed]);
    expect(json.projects[0]).toMatchObject({
      in_current: false,
      counts: { no_longer_reported: expectedRuns.length, resolved: 0 },
    });
  });

  it('names the removed project among those `--project` takes when given an unknown one', async () => {
    const io = recordingIO();
    const code = await main(
      ['diff', '--db', db, '--from', both.id, '--to', kept.id, '--project', 'nosuch'],
      io,
    );
    expect(code).not.toBe(0);
    expect(io.err.join('')).toContain(
      `Project nosuch is not in snapshot ${kept.id}; it has: ${remaining}; no longer listed: ${removed}.`,
    );
  });
});
