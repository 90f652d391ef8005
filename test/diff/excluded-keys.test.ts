/**
 * A category missing on the earlier side is "unknown (excluded)" only when an assessment excluded
 * there could have held it: one whose attack runs carry that goal category. A category newly tested
 * in the later snapshot, which no excluded assessment ran, is added, as it is in a project without
 * exclusions. Two snapshots of the simulator (127.0.0.1, port 0), seed 1, epoch 0 then epoch 1: the
 * planted assessment with an erroneous asr_by_category slice is excluded in both, and epoch 1 brings
 * categories it never ran alongside one only it had run. Which categories it could have held is read
 * here from the raw snapshot JSON, without the warehouse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffJson, diffMarkdown, type SnapshotDiff } from '../../src/diff/diff-report.js';
import type { MetricDelta } from '../../src/diff/metric-deltas.js';
import { diffSnapshots } from '../../src/diff/snapshot-diff.js';
import { startSimulator } from '../../src/simulator/index.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { readRawSummary, type RawJson } from '../helpers/raw-summary-findings.js';
import type { TakenSnapshot } from '../helpers/partial-snapshot-pair.js';
import { snapshotSimulator } from '../helpers/simulator-snapshot.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

// The smallest world of seed 1 whose epoch 1 brings both kinds of category to the first project.
const SCALE = { assessmentsPerProject: 6, attacksPerAssessment: 8, trialsPerAttack: 5, evaluationJobs: 20 };

let warehouse: Warehouse;
let before: TakenSnapshot;
let after: TakenSnapshot;
let project: string;
let diff: SnapshotDiff;

beforeAll(async () => {
  const work = await makeTempDir('airt-excluded-keys-');
  const sim = await startSimulator({ seed: 1, projects: 1, scale: SCALE });
  try {
    project = sim.projectKeys[0]!;
    const take = async (): Promise<TakenSnapshot> => {
      // Named by key, the snapshot keeps the project's summary under projects/<key>/.
      const result = await snapshotSimulator(sim, {
        out: `${work}/snapshots`,
        projects: [project],
        trialsLimit: 5,
      });
      return { dir: result.dir, id: result.snapshotId };
    };
    before = await take();
    sim.setEpoch(1);
    after = await take();
  } finally {
    await sim.close();
  }
  const db = `${work}/airt.duckdb`;
  await loadSnapshots(db, [before.dir, after.dir]);
  warehouse = await openWarehouse(db, { readOnly: true });
  diff = await diffSnapshots(warehouse.conn, { from: before.id, to: after.id, projects: [project] });
}, 120_000);

afterAll(() => {
  warehouse?.close();
});

/** From the raw JSON: the goal categories the attack runs of the flagged assessments carry. */
function categoriesOfFlagged(summary: RawJson): { flagged: string[]; categories: Set<string> } {
  const flagged = (summary.assessments as RawJson[]).filter((a) =>
    ((a.analytics_warnings ?? []) as RawJson[]).some((w) => String(w.field).startsWith('asr_by_category')),
  );
  const runs = flagged.flatMap((a) => (a.attack_runs ?? []) as RawJson[]);
  return {
    flagged: flagged.map((a) => String(a.id)),
    categories: new Set(runs.map((run) => String(run.goal_category))),
  };
}

/** The categories the earlier snapshot has no figure for, split by whether the flagged could hold them. */
async function missingBefore(): Promise<{ couldHold: MetricDelta[]; couldNot: MetricDelta[] }> {
  const { flagged, categories } = categoriesOfFlagged(await readRawSummary(before.dir, project));
  expect(flagged).toHaveLength(1);
  const missing = diff.projects[0]!.metrics.filter((m) => m.group === 'category_asr' && m.from === null);
  return {
    couldHold: missing.filter((m) => categories.has(m.key)),
    couldNot: missing.filter((m) => !categories.has(m.key)),
  };
}

describe('categories missing where an analytics warning excluded an assessment', () => {
  it('has both kinds in this world: one the flagged assessment ran, and ones it never ran', async () => {
    const { couldHold, couldNot } = await missingBefore();
    expect(couldHold.map((m) => m.key)).toEqual(['content_policy']);
    expect(couldNot.map((m) => m.key)).toEqual(['bias_fairness', 'credential_leak', 'harmful_content']);
  });

  it('stays unknown (excluded) for a category the excluded assessment ran', async () => {
    const { couldHold } = await missingBefore();
    for (const metric of couldHold) {
      expect(metric, metric.key).toMatchObject({
        from: null,
        delta: null,
        presence: 'both',
        excluded: 'from',
      });
    }
    expect(diffMarkdown(diff)).toMatch(
      /\| category ASR: `content_policy` \| excluded \| [\d.]+% \| unknown \(excluded\) \|/u,
    );
  });

  it('calls a category the excluded assessment never ran added, not excluded', async () => {
    const { couldNot } = await missingBefore();
    for (const metric of couldNot) {
      expect(metric, metric.key).toMatchObject({
        from: null,
        delta: null,
        presence: 'added',
        excluded: null,
      });
    }
    const markdown = diffMarkdown(diff);
    for (const key of ['bias_fairness', 'credential_leak', 'harmful_content']) {
      expect(markdown).toMatch(
        new RegExp(`\\| category ASR: \`${key}\` \\| — \\| [\\d.]+% \\| added \\|`, 'u'),
      );
      expect(markdown).not.toMatch(new RegExp(`${key}.*unknown \\(excluded\\)`, 'u'));
    }
    const json = JSON.parse(diffJson(diff)) as SnapshotDiff;
    const credential = json.projects[0]!.metrics.find((m) => m.key === 'credential_leak');
    expect(credential).toMatchObject({ presence: 'added', excluded: null });
  });

  it('still names the exclusion under data quality', () => {
    expect(diff.projects[0]!.data_quality).toContainEqual(
      expect.objectContaining({ snapshot_id: before.id, field: 'asr_by_category' }),
    );
  });
});
