/**
 * The viewer on the large preset (>= 1,000,000 trials): loads the cached large snapshot
 * (bench/_large-snapshot.ts) into a warehouse once (kept in the cache beside it), starts the viewer,
 * fetches each page kind once (`first_fetch`: what the viewer keeps while it runs, such as the
 * overview's model, is computed then) and RUNS more times, and prints the median, best and worst
 * milliseconds per page kind as JSON lines. Target (issue 18): every page's median < 300 ms.
 *
 *   npx tsx bench/viewer.ts [--runs 5]
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startViewer } from '../src/viewer/server.js';
import { openWarehouse } from '../src/warehouse/db.js';
import { checkSchema } from '../src/warehouse/ddl.js';
import { loadSnapshots } from '../src/warehouse/index.js';
import { CACHE, figure, largeSnapshot } from './_large-snapshot.js';

const RUNS = Number(process.argv[process.argv.indexOf('--runs') + 1] ?? '') || 5;
const TARGET_MS = 300;
const DB = path.join(CACHE, 'viewer-bench.duckdb');

/** True when the cached warehouse is missing or of an older schema (a load upgrades it). */
async function needsLoad(): Promise<boolean> {
  if (!(await stat(DB).catch(() => null))) return true;
  const wh = await openWarehouse(DB, { readOnly: true });
  try {
    await checkSchema(wh.conn, DB);
    return false;
  } catch {
    return true;
  } finally {
    wh.close();
  }
}

if (await needsLoad()) {
  const snapshot = await largeSnapshot();
  console.error(`loading ${snapshot} into ${DB} (kept for later runs; a load also upgrades its schema) …`);
  const started = performance.now();
  await loadSnapshots(DB, [snapshot]);
  console.error(`load took ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** Ids the page URLs need: a snapshot, a project, a finding with trials. */
async function pageIds(): Promise<{ snapshot: string; project: string; run: string; trials: number }> {
  const wh = await openWarehouse(DB, { readOnly: true });
  try {
    const reader = await wh.conn.runAndReadAll(`
      SELECT f.snapshot_id, f.project_key, f.attack_run_id, (SELECT count(*) FROM trials) AS trials
      FROM latest_metric_findings f ORDER BY f.best_score DESC NULLS LAST, f.attack_run_id LIMIT 1`);
    const [snapshot, project, run, trials] = (reader.getRowsJS()[0] ?? []) as [
      string,
      string,
      string,
      bigint,
    ];
    return { snapshot, project, run, trials: Number(trials) };
  } finally {
    wh.close();
  }
}

const ids = await pageIds();
const q = encodeURIComponent;
const PAGES: Record<string, string> = {
  overview: '/',
  findings: '/findings',
  'findings, severity + framework state': '/findings?severity=critical&framework=owasp_llm&state=failing',
  'findings, text search': '/findings?q=password',
  'findings, page 20 sorted by score': '/findings?sort=score&order=asc&page=20',
  finding: `/finding?snapshot=${q(ids.snapshot)}&run=${q(ids.run)}`,
  framework: `/framework?project=${q(ids.project)}&framework=owasp_llm`,
  // The large preset is one snapshot: it is compared with itself (every finding persisting).
  compare: `/compare?from=${q(ids.snapshot)}&to=${q(ids.snapshot)}`,
  'query, @top_open_findings': '/query?name=top_open_findings',
  'findings CSV (severity critical)': '/findings?severity=critical&download=findings',
};

const viewer = await startViewer({ db: DB });
try {
  figure('trials in the warehouse', ids.trials, 'trials');
  for (const [name, target] of Object.entries(PAGES)) {
    const times: number[] = [];
    let bytes = 0;
    let first = NaN;
    for (let run = 0; run <= RUNS; run++) {
      const started = performance.now();
      const response = await fetch(new URL(target, viewer.url));
      const body = await response.text();
      const elapsed = performance.now() - started;
      if (response.status !== 200)
        throw new Error(`${target}: HTTP ${response.status}: ${body.slice(0, 400)}`);
      bytes = body.length;
      // The first fetch computes what the viewer keeps while it runs (models of the frozen database).
      if (run === 0) first = elapsed;
      else times.push(elapsed);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)] ?? NaN;
    figure(name, Math.round(median), 'ms median', {
      first_fetch: Math.round(first),
      best: Math.round(times[0] ?? NaN),
      worst: Math.round(times.at(-1) ?? NaN),
      runs: RUNS,
      bytes,
      target_ms: TARGET_MS,
      within_target: median < TARGET_MS,
    });
  }
} finally {
  await viewer.close();
}
