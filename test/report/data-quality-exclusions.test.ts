/**
 * The data-quality section says, for each analytics warning, which figures actually left the flagged
 * assessment out: read back from the metric views' exclusion lists for the whole project at once, so
 * it can never claim an exclusion that did not happen. Warnings on every kind of slice are put into a
 * fixture (overall ASR, attack runs, compliance matrix, top findings, the ASR breakdowns), each on an
 * assessment whose figures it can take it out of.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildModel } from '../../src/report/build-model.js';
import type { ExecutiveModel } from '../../src/report/model.js';
import { openWarehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { copyFixture, FIXTURES, reseal, tempDir } from '../warehouse/helpers.js';

type Assessment = Record<string, unknown> & { analytics_warnings?: Record<string, unknown>[] };

let dir: string;
let cleanup: () => Promise<void>;
let db: string;

/** Adds analytics warnings (field per assessment id suffix) to a project's summary in the copy. */
async function flag(snapshotDir: string, project: string, fields: Record<string, string[]>): Promise<void> {
  const file = path.join(snapshotDir, 'projects', project, 'summary.json');
  const summary = JSON.parse(await readFile(file, 'utf8')) as { assessments: Assessment[] };
  for (const assessment of summary.assessments) {
    for (const field of fields[String(assessment.id).slice(-4)] ?? [])
      (assessment.analytics_warnings ??= []).push({ field, reason: `test: erroneous ${field}` });
  }
  await writeFile(file, JSON.stringify(summary, null, 2));
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('airt-dq-exclusions-'));
  const snapshotDir = await copyFixture(FIXTURES.second, dir);
  await flag(snapshotDir, 'payments-bot', {
    '0001': ['overall_asr', 'compliance_matrix'],
    '0002': ['top_findings', 'asr_by_attack'],
  });
  await flag(snapshotDir, 'support-agent', { '0003': ['attack_runs', 'asr_by_transform'] });
  await reseal(snapshotDir);
  db = path.join(dir, 'flagged.duckdb');
  await loadSnapshots(db, [snapshotDir]);
}, 60_000);

afterAll(async () => {
  await cleanup();
});

async function exclusionsOf(project: string): Promise<Record<string, string>> {
  const warehouse = await openWarehouse(db, { readOnly: true });
  try {
    const model = (await buildModel(warehouse.conn, { kind: 'executive', project })) as ExecutiveModel;
    return Object.fromEntries(
      model.dataQuality.analyticsWarnings.map((w) => [`${w.assessmentId.slice(-4)} ${w.field}`, w.excluded]),
    );
  } finally {
    warehouse.close();
  }
}

it('names, per warning, the figures that left the assessment out', async () => {
  expect(await exclusionsOf('payments-bot')).toEqual({
    '0001 overall_asr': 'this assessment, left out of: overall ASR; risk score; the risk trend',
    '0001 compliance_matrix': 'this assessment, left out of: compliance coverage and category states',
    '0002 top_findings': 'this assessment, left out of: the top findings list',
    '0002 asr_by_attack': 'this assessment, left out of: attack effectiveness',
    '0004 asr_by_category': 'this assessment, left out of: ASR by goal category',
  });
  expect(await exclusionsOf('support-agent')).toEqual({
    '0003 attack_runs':
      'this assessment, left out of: overall ASR; risk score; finding counts by severity and open findings; the risk trend',
    '0003 asr_by_transform': 'this assessment, left out of: transform lift',
  });
});
