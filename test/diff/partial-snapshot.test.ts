/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- the diff's JSON is read untyped, as another tool would */
/**
 * A partial snapshot whose summary of one project failed (the service answered 500): the diff against
 * a complete snapshot names the partial snapshot and the project whose data is missing, in Markdown
 * and in JSON (`partial_snapshots`, the project's `data_quality`), and counts none of its findings as
 * resolved (partial `to`) or new (partial `from`). Both snapshots are taken of the simulator on
 * 127.0.0.1 port 0; the failing answer comes from the fetch the snapshot is given
 * (test/helpers/partial-snapshot-pair.ts).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffJson, diffMarkdown, type SnapshotDiff } from '../../src/diff/diff-report.js';
import { diffSnapshots } from '../../src/diff/snapshot-diff.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { takePartialSnapshotPair } from '../helpers/partial-snapshot-pair.js';
import { tempDir } from '../warehouse/helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let work: { dir: string; cleanup: () => Promise<void> };
let warehouse: Warehouse;
let complete: { dir: string; id: string };
let partial: { dir: string; id: string; status: string };
/** The project whose summary failed in the partial snapshot (its key and UUID), and the one fetched in both. */
let failing: string;
let failingId: string;
let fetched: string;

beforeAll(async () => {
  work = await tempDir('airt-partial-diff-');
  ({ complete, partial, failing, failingId, fetched } = await takePartialSnapshotPair(
    path.join(work.dir, 'snapshots'),
  ));
  const db = path.join(work.dir, 'w.duckdb');
  await loadSnapshots(db, [complete.dir, partial.dir]);
  warehouse = await openWarehouse(db, { readOnly: true });
}, 120_000);

afterAll(async () => {
  warehouse?.close();
  await work?.cleanup();
});

/** The failing project's entry and the diff's JSON, read back as another tool would. */
function parts(diff: SnapshotDiff) {
  const json = JSON.parse(diffJson(diff)) as Json;
  const project = (json.projects as Json[]).find((p) => p.project === failing);
  if (project === undefined) throw new Error(`the diff does not list project ${failing}`);
  return { json, project };
}

describe('a diff with a partial snapshot that lacks a project summary', () => {
  it('is partial because that summary failed (the repro)', () => {
    expect(partial.status).toBe('partial');
  });

  it('names the partial later snapshot and the project, and resolves none of its findings', async () => {
    const diff = await diffSnapshots(warehouse.conn, { from: complete.id, to: partial.id });
    const { json, project } = parts(diff);
    expect(project.compared).toBe(false);
    expect(project.counts).toEqual({
      new: 0,
      resolved: 0,
      regressed: 0,
      persisting: 0,
      not_comparable: 0,
      no_longer_reported: 0,
    });
    expect(project.findings.resolved).toEqual([]);
    // One entry for the project, with both requests the snapshot made for it (by key and by UUID).
    expect(project.data_quality).toEqual([
      { snapshot_id: partial.id, side: 'to', kind: 'summary_missing', failed_requests: expect.any(Array) },
    ]);
    const requests = project.data_quality[0].failed_requests as Json[];
    expect(requests.map((r) => String(r.path).replace(/^.*\/projects\//u, '')).sort()).toEqual(
      [failing, failingId].map((key) => `${key}/summary`).sort(),
    );
    for (const request of requests) expect(request).toMatchObject({ method: 'GET', status: 500 });
    expect(json.partial_snapshots).toEqual([
      expect.objectContaining({ snapshot_id: partial.id, side: 'to', projects_without_summary: [failing] }),
    ]);
    // The other project is compared as always.
    const other = (json.projects as Json[]).find((p) => p.project === fetched);
    expect(other?.compared).toBe(true);
    expect(other?.counts.persisting).toBeGreaterThan(0);

    const markdown = diffMarkdown(diff);
    expect(markdown).toContain(`**Partial snapshot:** \`${partial.id}\` (the later snapshot) is partial`);
    expect(markdown).toContain(`It holds no summary of project \`${failing}\``);
    expect(markdown).toContain(`## Project ${failing}`);
    expect(markdown).toMatch(
      new RegExp(
        `Not compared: \`${partial.id}\` \\(the later snapshot\\) is partial and holds no summary of this project \\(\`GET [^\`]*/summary\` \\(HTTP 500\\)[^)]*\\) failed\\)\\. None of its findings is counted as resolved`,
        'u',
      ),
    );
  });

  it('counts none of its findings as new when the earlier snapshot is the partial one', async () => {
    const diff = await diffSnapshots(warehouse.conn, { from: partial.id, to: complete.id });
    const { json, project } = parts(diff);
    expect(project.compared).toBe(false);
    expect(project.in_previous).toBe(false);
    expect(project.counts.new).toBe(0);
    expect(project.data_quality).toEqual([
      expect.objectContaining({ side: 'from', kind: 'summary_missing' }),
    ]);
    expect(json.partial_snapshots).toEqual([
      expect.objectContaining({ snapshot_id: partial.id, side: 'from' }),
    ]);
    const markdown = diffMarkdown(diff);
    expect(markdown).toContain('(the earlier snapshot) is partial');
    expect(markdown).not.toContain('every open finding counts as new');
    expect(markdown).toContain('None of its findings is counted as new');
  });

  it('takes the project by name even though the later snapshot lacks it', async () => {
    const diff = await diffSnapshots(warehouse.conn, {
      from: complete.id,
      to: partial.id,
      projects: [failing],
    });
    expect(diff.projects.map((p) => [p.project, p.compared])).toEqual([[failing, false]]);
  });
});
