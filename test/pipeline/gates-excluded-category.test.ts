/**
 * A category ASR gate on a category with no figure says "all data excluded" only when an assessment an
 * analytics warning excluded from asr_by_category could have held that category (its attack runs carry
 * it), as the diff decides (excludedSliceKeys). A category no excluded assessment ran, and no other
 * analyzed assessment either, has no data: "unknown (no data)". Before, every category without a figure read
 * "all data excluded" as soon as the project had one exclusion. One snapshot of the simulator
 * (127.0.0.1, port 0), seed 1, epoch 0: the planted assessment with an erroneous asr_by_category is
 * the only analyzed one that ran content_policy, and no analyzed assessment ran bias_fairness. Both facts are read here
 * from the raw snapshot JSON, without the warehouse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkGates } from '../../src/pipeline/check-gates.js';
import { parseGateExpression } from '../../src/pipeline/gate-expression.js';
import { gateReportMarkdown, type GateReport } from '../../src/pipeline/gate-report.js';
import type { GateResult } from '../../src/pipeline/gates.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { readRawSummary, type RawJson } from '../helpers/raw-summary-findings.js';
import { loadedSimulatorWorld, type LoadedWorld } from '../helpers/simulator-snapshot.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

// The world of test/diff/excluded-keys.test.ts: its epoch 0 has both kinds of missing category.
const SCALE = { assessmentsPerProject: 6, attacksPerAssessment: 8, trialsPerAttack: 5, evaluationJobs: 20 };
const ONLY_EXCLUDED_RAN = 'content_policy';
const NOBODY_RAN = 'bias_fairness';
const [ORG, WORKSPACE] = ['acme', 'main'];

let world: LoadedWorld;
let warehouse: Warehouse;
let report: GateReport;

beforeAll(async () => {
  world = await loadedSimulatorWorld(
    { seed: 1, projects: 1, scale: SCALE, org: ORG, workspace: WORKSPACE },
    await makeTempDir('airt-gates-excl-'),
  );
  warehouse = await openWarehouse(world.db, { readOnly: true });
  ({ report } = await checkGates(warehouse.conn, {
    gates: [ONLY_EXCLUDED_RAN, NOBODY_RAN].map((category) => ({
      expression: parseGateExpression(`category.${category}.asr <= 0.5`),
      project: null,
    })),
    onUnknown: 'trip',
    projects: [],
    org: ORG,
    workspace: WORKSPACE,
    previousSnapshotId: null,
    database: world.db,
  }));
}, 120_000);

afterAll(() => {
  warehouse?.close();
});

/** From the raw JSON: the goal categories of the flagged assessment's runs and of the other analyzed ones'. */
async function rawCategories(): Promise<{ flagged: Set<string>; others: Set<string> }> {
  const summary = await readRawSummary(world.snapshotDir, world.projects[0]!);
  const isFlagged = (a: RawJson): boolean =>
    ((a.analytics_warnings ?? []) as RawJson[]).some((w) => String(w.field).startsWith('asr_by_category'));
  const categoriesOf = (assessments: RawJson[]): Set<string> =>
    new Set(
      assessments.flatMap((a) => ((a.attack_runs ?? []) as RawJson[]).map((r) => String(r.goal_category))),
    );
  const assessments = summary.assessments as RawJson[];
  expect(assessments.filter(isFlagged)).toHaveLength(1);
  return {
    flagged: categoriesOf(assessments.filter(isFlagged)),
    // A category ASR pools analyzed assessments only: a running one's runs count once it finishes.
    others: categoriesOf(
      assessments.filter((a) => !isFlagged(a) && (a.status === 'completed' || a.status === 'failed')),
    ),
  };
}

function resultOf(category: string): GateResult {
  const result = report.results.find((r) => r.gate === `category.${category}.asr <= 0.5`);
  if (result === undefined) throw new Error(`no result for ${category}`);
  return result;
}

describe('a category ASR gate where an analytics warning excluded an assessment', () => {
  it('has both kinds of category in this world (the repro)', async () => {
    const { flagged, others } = await rawCategories();
    expect(flagged.has(ONLY_EXCLUDED_RAN) && !others.has(ONLY_EXCLUDED_RAN)).toBe(true);
    expect(flagged.has(NOBODY_RAN) || others.has(NOBODY_RAN)).toBe(false);
  });

  it('is "all data excluded" for a category only the excluded assessment ran', () => {
    expect(resultOf(ONLY_EXCLUDED_RAN)).toMatchObject({
      status: 'unknown',
      status_text: 'unknown (all data excluded: 1 assessment with erroneous asr_by_category)',
      trips: true,
      value: null,
    });
    expect(resultOf(ONLY_EXCLUDED_RAN).excluded).toHaveLength(1);
  });

  it('is "unknown (no data)" for a category no assessment ran, and lists no exclusion for it', () => {
    const result = resultOf(NOBODY_RAN);
    expect(result).toMatchObject({
      status: 'unknown',
      status_text: 'unknown (no data)',
      trips: true,
      value: null,
      excluded: [],
    });
    // The note still says why the exclusion does not count here.
    expect(result.note).toBe(
      `no ASR for ${NOBODY_RAN}: no analyzed assessment tested it, and the 1 assessment excluded for an ` +
        'erroneous asr_by_category has no attack run of that category',
    );
    const markdown = gateReportMarkdown(report).replaceAll('\\', '');
    expect(markdown).toContain(
      `| \`category.${NOBODY_RAN}.asr <= 0.5\` | ${world.projects[0]} | — | **unknown (no data)** |`,
    );
  });
});
