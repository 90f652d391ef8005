/**
 * The golden comparison of the deduplicated trial storage (issue 14): a fixed set of snapshots is
 * loaded and every named query, every relation of the table contract and the executive reports are
 * rendered to text. The expected files in test/golden/warehouse-dedupe/ were written by the code
 * before trial rows were stored once per distinct content (the old way), so the test proves the new
 * storage changes no output. Shared by the test (compares) and update-dedupe-golden.ts (writes).
 *
 * The set: the two acme/main fixtures (which share three trial files), a third snapshot holding the
 * second's trial files unchanged (fully deduplicated), a fourth whose first trial file the manifest
 * does not vouch for (read by the strict path: stored apart from the vouched copy of the same bytes),
 * and the partial acme/staging fixture.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { listNamedQueries } from '../../src/warehouse/named-queries.js';
import { formatResult } from '../../src/warehouse/output-format.js';
import { runQuery } from '../../src/warehouse/query.js';
import { FIXTURES, snapshotVariant } from './helpers.js';

export const DEDUPE_GOLDEN_DIR = fileURLToPath(new URL('../golden/warehouse-dedupe/', import.meta.url));

/** The relations of the table contract before issue 14 (what the old way stored and queried). */
export const GOLDEN_RELATIONS = [
  'snapshots',
  'projects',
  'assessments',
  'attack_runs',
  'reports',
  'asr_breakdown',
  'compliance_matrix',
  'compliance_posture',
  'attack_effectiveness',
  'transform_effectiveness',
  'goals',
  'vulnerabilities',
  'risk_trend',
  'executive_summary',
  'risk_by_domain',
  'findings',
  'review_events',
  'trials',
  'trial_tool_calls',
  'message_parts',
  'evaluation_jobs',
  'evaluation_skipped_members',
  'analytics_warnings',
  'schema_drift',
  'load_warnings',
  'altered_values',
  'latest_trials',
  'latest_trial_tool_calls',
  'latest_message_parts',
  'latest_findings',
];

/** Builds the golden database in `dir`; returns its path. */
export async function buildGoldenDatabase(dir: string): Promise<string> {
  const third = await snapshotVariant(
    FIXTURES.second,
    dir,
    '20260316T060000Z-third',
    '2026-03-16T06:00:30.000Z',
  );
  const fourth = await snapshotVariant(
    FIXTURES.first,
    dir,
    '20260317T060000Z-fourth',
    '2026-03-17T06:00:30.000Z',
    (_dir, manifest) => {
      const file = manifest.files.find((f) => f.kind === 'trials');
      if (file) file.unknown_keys = ['$[*].not_in_the_spec'];
    },
  );
  const db = path.join(dir, 'golden.duckdb');
  const now = () => new Date('2026-04-01T00:00:00Z');
  await loadSnapshots(db, [FIXTURES.first, FIXTURES.second, third, fourth, FIXTURES.partial], { now });
  return db;
}

async function report(db: string, dir: string, project: string): Promise<string> {
  const out = path.join(dir, `report-${project}`);
  const io = recordingIO({ cwd: dir });
  const code = await main(
    ['report', '--db', db, '--kind', 'executive', '--project', project, '--format', 'md', '--out', `${out}/`],
    io,
  );
  if (code !== 0) throw new Error(`report exited ${code}: ${io.err.join('')}`);
  return readFile(path.join(out, 'report.md'), 'utf8');
}

/** Golden file name → content, from the database buildGoldenDatabase() made in `dir`. */
export async function renderDedupeGoldenSet(db: string, dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  // Temp paths and the repository's fixture directory differ between machines.
  const neutral = (text: string): string =>
    text
      .split(dir)
      .join('<TMP>')
      .split(path.dirname(path.dirname(FIXTURES.first)))
      .join('<FIXTURES>');
  for (const query of await listNamedQueries()) {
    files.set(`query-${query.name}.json`, neutral(formatResult(await runQuery(db, query.sql), 'json')));
  }
  for (const relation of GOLDEN_RELATIONS) {
    const result = await runQuery(db, `SELECT * FROM ${relation} ORDER BY ALL`);
    files.set(`relation-${relation}.json`, neutral(formatResult(result, 'json')));
  }
  for (const project of ['payments-bot', 'support-agent'])
    files.set(`executive-${project}.md`, neutral(await report(db, dir, project)));
  return files;
}
