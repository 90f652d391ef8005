/**
 * metric_consistency's assessments_by_status checks: the service's count of each status against the
 * assessments loaded. A project loaded twice into one snapshot (`snapshot --project KEY --project
 * UUID` names it twice) must show as a disagreement: its assessments are counted twice, while the
 * service states its count once in each copy of the summary.
 */
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { copyFixture, FIXTURES, reseal, rows, tempDir } from '../warehouse/helpers.js';

const SNAPSHOT = '20260315T060000Z-second';
/** support-agent's project id in the fixture: the second name it is fetched under. */
const SUPPORT_AGENT_ID = '5f1c2a9e-8b3d-4c7a-9e21-0a6b7c8d9e02';

describe('assessments_by_status checks', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;

  beforeAll(async () => {
    work = await tempDir();
    const dir = await copyFixture(FIXTURES.second, work.dir);
    await mkdir(path.join(dir, 'projects', SUPPORT_AGENT_ID));
    await copyFile(
      path.join(dir, 'projects/support-agent/summary.json'),
      path.join(dir, 'projects', SUPPORT_AGENT_ID, 'summary.json'),
    );
    await reseal(dir, (manifest) => {
      const project = manifest.projects.find((p) => p.key === 'support-agent');
      const file = manifest.files.find((f) => f.path === 'projects/support-agent/summary.json');
      if (!project || !file) throw new Error('fixture changed: support-agent not found');
      manifest.projects.push({ ...project, key: SUPPORT_AGENT_ID, dir: SUPPORT_AGENT_ID });
      manifest.files.push({
        ...file,
        path: `projects/${SUPPORT_AGENT_ID}/summary.json`,
        project: SUPPORT_AGENT_ID,
      });
    });
    db = path.join(work.dir, 'twice.duckdb');
    await loadSnapshots(db, [dir]);
  }, 60_000);

  afterAll(async () => {
    await work.cleanup();
  });

  it('disagree for a project loaded twice into one snapshot, its count stated once', async () => {
    const checks = await rows(
      db,
      `SELECT DISTINCT check_name, service_value, recomputed_value, status FROM metric_consistency
       WHERE snapshot_id = '${SNAPSHOT}' AND project_key = 'support-agent'
         AND check_name LIKE 'assessments_by_status.%' ORDER BY ALL`,
    );
    expect(checks).toEqual([
      {
        check_name: 'assessments_by_status.completed',
        service_value: 1,
        recomputed_value: 2,
        status: 'disagrees',
      },
    ]);
  });
});
