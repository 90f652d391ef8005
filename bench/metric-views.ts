/**
 * Query time of every metric view for one project of a small warehouse (2 projects, 3 snapshots),
 * median of 5 runs, beside a plain-table baseline in the same run. On data this small the time is
 * almost all DuckDB planning the view, which is what a report or a viewer page pays per query:
 * metric_consistency once bound metric_project_figures fourteen times (~0.6 s a query; schema 9
 * reads it once). Prints JSON lines.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startSimulator } from '../src/simulator/index.js';
import { takeSnapshot } from '../src/snapshot/take-snapshot.js';
import { openWarehouse, loadSnapshots } from '../src/warehouse/index.js';
import { METRIC_VIEW_NAMES } from '../src/warehouse/metric-views.js';

const RUNS = 5;
const work = mkdtempSync(path.join(tmpdir(), 'airt-bench-metric-views-'));
const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
try {
  const db = path.join(work, 'airt.duckdb');
  const sim = await startSimulator({
    seed: 21,
    projects: 2,
    scale: { assessmentsPerProject: 3, attacksPerAssessment: 5, trialsPerAttack: 6, evaluationJobs: 6 },
  });
  try {
    for (let day = 0; day < 3; day++) {
      const snapshot = await takeSnapshot({
        baseUrl: sim.url,
        org: sim.org,
        workspace: sim.workspace,
        token: sim.token,
        out: path.join(work, 'snapshots'),
        projects: sim.projectKeys,
        trialsLimit: 20,
      });
      await loadSnapshots(db, [snapshot.dir]);
    }
  } finally {
    await sim.close();
  }
  const warehouse = await openWarehouse(db, { readOnly: true });
  try {
    const scope = (
      await warehouse.conn.runAndReadAll(
        'SELECT snapshot_id, project_key FROM latest_project_snapshots ORDER BY ALL LIMIT 1',
      )
    ).getRows()[0] as [string, string];
    const time = async (relation: string): Promise<number> => {
      const runs: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const started = performance.now();
        await warehouse.conn.runAndReadAll(
          `SELECT * FROM ${relation} WHERE snapshot_id = $1 AND project_key = $2`,
          scope,
        );
        runs.push(performance.now() - started);
      }
      return median(runs);
    };
    const baseline = await time('projects');
    for (const view of METRIC_VIEW_NAMES) {
      const ms = await time(view);
      console.log(
        JSON.stringify({
          figure: 'metric_view_query_ms',
          view,
          median_ms: Math.round(ms * 10) / 10,
          baseline_ms: Math.round(baseline * 10) / 10,
          ratio_to_plain_table: Math.round((ms / baseline) * 10) / 10,
        }),
      );
    }
  } finally {
    warehouse.close();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
