/**
 * The diff reads a finding's severity and triage status as every figure does (metric_findings), so
 * its "new", "resolved" and "regressed" findings and the gates over them (regressed_critical) agree
 * with the reports' counts (open_critical_findings). Before, an untriaged finding took the severity
 * the service's assessment top finding gave it, unchecked, where the figures take its score's band.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWarehouse } from '../../src/warehouse/db.js';
import { readFindingRecords } from '../../src/diff/warehouse-source.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { editAssessments, FIXTURES, rows, snapshotVariant, tempDir } from '../warehouse/helpers.js';

const VARIANT = '20260302T060000Z-relabelled';
/** Scored 0.95 (critical); in no findings/ of the first fixture. */
const RUN = 'f0000000-0000-4000-8000-000000003001';

describe("the diff's findings", () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;

  beforeAll(async () => {
    work = await tempDir();
    db = path.join(work.dir, 'airt.duckdb');
    // The service labels the top finding of that run 'low' (its score says critical).
    const relabelled = await snapshotVariant(
      FIXTURES.first,
      work.dir,
      VARIANT,
      '2026-03-02T06:00:30.000Z',
      (dir) =>
        editAssessments(path.join(dir, 'projects/support-agent/summary.json'), (list) =>
          list.map((assessment) => ({
            ...assessment,
            top_findings: (assessment.top_findings as Record<string, unknown>[] | undefined)?.map(
              (finding) => (finding.rank === 1 ? { ...finding, severity: 'low' } : finding),
            ),
          })),
        ),
    );
    await loadSnapshots(db, [relabelled]);
  }, 60_000);
  afterAll(() => work.cleanup());

  it('have the severity and status metric_findings gives them', async () => {
    const figures = await rows(
      db,
      `SELECT attack_run_id, severity, finding_status FROM metric_findings
       WHERE snapshot_id = '${VARIANT}' AND project_key = 'support-agent' ORDER BY attack_run_id`,
    );
    expect(figures.find((f) => f.attack_run_id === RUN)).toMatchObject({ severity: 'critical' });
    const warehouse = await openWarehouse(db, { readOnly: true });
    try {
      const { findings } = await readFindingRecords(warehouse.conn, VARIANT, {
        key: 'support-agent',
        id: null,
        name: null,
      });
      expect(
        findings.map((f) => ({
          attack_run_id: f.attack_run_id,
          severity: f.severity,
          finding_status: f.finding_status,
        })),
      ).toEqual(figures);
    } finally {
      warehouse.close();
    }
  });
});
