/**
 * metric_consistency's assessments_by_status checks: the service's count of each status against the
 * assessments loaded. An assessment the service lists twice in a project's summary must show as a
 * disagreement: it is loaded twice, while the service states its count once. (A project listed twice
 * in one snapshot, by `snapshot --project KEY --project UUID`, is loaded once:
 * test/warehouse/duplicate-project.test.ts.)
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { copyFixture, editAssessments, FIXTURES, reseal, rows, tempDir } from '../warehouse/helpers.js';

const SNAPSHOT = '20260315T060000Z-second';

describe('assessments_by_status checks', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;

  beforeAll(async () => {
    work = await tempDir();
    const dir = await copyFixture(FIXTURES.second, work.dir);
    await editAssessments(path.join(dir, 'projects/support-agent/summary.json'), (list) => [
      ...list,
      list[0]!,
    ]);
    await reseal(dir, (manifest) => {
      const file = manifest.files.find((f) => f.path === 'projects/support-agent/summary.json');
      if (!file) throw new Error('fixture changed: support-agent not found');
      file.records = (file.records ?? 0) + 1;
    });
    db = path.join(work.dir, 'twice.duckdb');
    await loadSnapshots(db, [dir]);
  }, 60_000);

  afterAll(async () => {
    await work.cleanup();
  });

  it('disagree for an assessment listed twice, its count stated once', async () => {
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
