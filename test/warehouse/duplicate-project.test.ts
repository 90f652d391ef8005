/**
 * `airt-report snapshot --project payments-bot --project <its id>` fetches one project twice and lists
 * it under both selectors (each with its own summary file; its trial files once, under the first). The
 * loader stored both, so one snapshot held the project twice: every figure over the snapshot's projects
 * (the portfolio's totals, its project list, ASR by category) counted its assessments and findings
 * twice. It is loaded once now, under the key listed first, with a load warning saying so.
 */
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { FIXTURES, rows, snapshotVariant, tempDir } from './helpers.js';

const KEY = 'payments-bot';
const ID = '5f1c2a9e-8b3d-4c7a-9e21-0a6b7c8d9e01';
const SNAPSHOT = '20260302T060000Z-twice';

describe('a snapshot that lists one project twice (by key and by id)', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;
  /** The summary's assessments and its findings, read from the file itself. */
  let summary: { assessments: unknown[] };

  beforeAll(async () => {
    work = await tempDir();
    const dir = await snapshotVariant(
      FIXTURES.first,
      work.dir,
      SNAPSHOT,
      '2026-03-02T06:00:30.000Z',
      async (snapshot, manifest) => {
        // As the snapshot writes it: the same summary again under projects/<id>/, listed under the id.
        await mkdir(path.join(snapshot, 'projects', ID));
        await copyFile(
          path.join(snapshot, 'projects', KEY, 'summary.json'),
          path.join(snapshot, 'projects', ID, 'summary.json'),
        );
        const first = manifest.projects.find((p) => p.key === KEY)!;
        manifest.projects.push({ ...first, key: ID, dir: ID });
        const file = manifest.files.find((f) => f.path === `projects/${KEY}/summary.json`)!;
        manifest.files.push({
          ...file,
          path: `projects/${ID}/summary.json`,
          project: ID,
          request: file.request && { ...file.request, path: file.request.path.replace(KEY, ID) },
        });
        // Written here; snapshotVariant re-seals it (hashes and root hash) after this edit.
        await writeFile(path.join(snapshot, 'manifest.json'), JSON.stringify(manifest, null, 2));
      },
    );
    summary = JSON.parse(await readFile(path.join(dir, 'projects', KEY, 'summary.json'), 'utf8')) as {
      assessments: unknown[];
    };
    db = path.join(work.dir, 'twice.duckdb');
    await loadSnapshots(db, [dir]);
  }, 60_000);

  afterAll(async () => {
    await work.cleanup();
  });

  it('loads the project once, under the key listed first', async () => {
    expect(await rows(db, `SELECT project_key FROM projects WHERE project_id = '${ID}'`)).toEqual([
      { project_key: KEY },
    ]);
    const assessments = await rows(
      db,
      `SELECT count(*)::INTEGER AS n FROM assessments WHERE project_id = '${ID}'`,
    );
    expect(assessments).toEqual([{ n: summary.assessments.length }]);
  });

  it("counts the project's assessments once in its figures", async () => {
    const figures = await rows(
      db,
      `SELECT project_key, value FROM metric_project_figures WHERE figure = 'assessments' ORDER BY 1`,
    );
    expect(figures).toEqual([
      { project_key: KEY, value: summary.assessments.length },
      { project_key: 'support-agent', value: 1 },
    ]);
  });

  it('says so in a load warning', async () => {
    const warnings = await rows(
      db,
      `SELECT code, message FROM load_warnings WHERE code = 'duplicate_project'`,
    );
    expect(warnings).toEqual([
      {
        code: 'duplicate_project',
        message: `Project "${ID}" is "${KEY}" (id ${ID}) listed again; loaded once, as "${KEY}"`,
      },
    ]);
  });
});
