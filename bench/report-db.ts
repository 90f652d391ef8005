/**
 * Executive HTML for a project with 500 assessments, end to end from the warehouse: the simulator
 * serves one project with 500 assessments, it is snapshotted and loaded once (not timed), then the
 * report (model SQL + charts + HTML) is generated three times and timed. Targets (issue 5): < 3 s,
 * HTML < 3 MB. Prints JSON lines.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { generateReport } from '../src/report/generate.js';
import { startSimulator } from '../src/simulator/index.js';
import { takeSnapshot } from '../src/snapshot/take-snapshot.js';
import { loadSnapshots } from '../src/warehouse/index.js';

const ASSESSMENTS = 500;
const work = mkdtempSync(path.join(tmpdir(), 'airt-bench-report-db-'));
try {
  const sim = await startSimulator({
    seed: 7,
    projects: 1,
    scale: {
      assessmentsPerProject: ASSESSMENTS,
      attacksPerAssessment: 8,
      trialsPerAttack: 5,
      evaluationJobs: 120,
    },
  });
  let project: string;
  try {
    project = sim.projectKeys[0] ?? '';
    const snapshot = await takeSnapshot({
      baseUrl: sim.url,
      org: sim.org,
      workspace: sim.workspace,
      token: sim.token,
      out: path.join(work, 'snapshots'),
      projects: [project],
    });
    const db = path.join(work, 'airt.duckdb');
    await loadSnapshots(db, [snapshot.dir]);
  } finally {
    await sim.close();
  }

  const db = path.join(work, 'airt.duckdb');
  const timings: number[] = [];
  let out = '';
  for (let run = 0; run < 3; run++) {
    out = path.join(work, `executive-${run}.html`);
    const started = performance.now();
    await generateReport({ db, kind: 'executive', project, format: 'html', out });
    timings.push(Math.round(performance.now() - started));
  }
  const identical = readFileSync(out, 'utf8') === readFileSync(path.join(work, 'executive-0.html'), 'utf8');
  console.log(
    JSON.stringify({
      figure: 'executive_html_from_db_ms',
      assessments: ASSESSMENTS,
      first_ms: timings[0],
      median_ms: [...timings].sort((a, b) => a - b)[1],
      target_ms: 3000,
    }),
  );
  console.log(
    JSON.stringify({
      figure: 'executive_html_from_db_bytes',
      bytes: statSync(out).size,
      target_bytes: 3 * 1024 * 1024,
      identical_on_rerender: identical,
    }),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
