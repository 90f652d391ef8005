/**
 * The executive brief's risk score is built on the severity each finding's score gives (TAXONOMY: the
 * base of the worst severity present × (0.6 + 0.4 × overall ASR)), before triage, and its "Basis"
 * sentence must say so: with every critical finding triaged a false positive the findings table reads
 * Critical 0, and a sentence claiming "the worst current severity" beside a critical risk contradicted
 * the table a reader had just read. The score is recomputed here from the raw summary, not the views.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateReport } from '../../src/report/generate.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { analyzedRuns, readRawSummary, severityBand, type RawJson } from '../helpers/raw-summary-findings.js';
import { runMain } from '../helpers/run-main.js';
import { snapshotSimulator } from '../helpers/simulator-snapshot.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

const BASE: Record<string, number> = { critical: 10, high: 8, medium: 5, low: 3, info: 1 };

let sim: RunningSimulator;
let markdown: string;
let summary: RawJson;

beforeAll(async () => {
  sim = await startSimulator({
    seed: 1,
    projects: 1,
    scale: { assessmentsPerProject: 3, attacksPerAssessment: 6, trialsPerAttack: 3, evaluationJobs: 1 },
  });
  const dir = await makeTempDir('airt-risk-basis-');
  const first = await snapshotSimulator(sim, { out: path.join(dir, 'first'), projects: sim.projectKeys });
  const [projectDir] = await readdir(path.join(first.dir, 'projects'));
  const critical = analyzedRuns(await readRawSummary(first.dir, projectDir!)).filter(
    (run) => typeof run.best_score === 'number' && severityBand(run.best_score) === 'critical',
  );
  expect(critical.length).toBeGreaterThan(0);
  // Every critical finding triaged a false positive, through the CLI into a journal the next snapshot carries.
  const decisions = path.join(dir, 'decisions.csv');
  await writeFile(
    decisions,
    ['finding_id,finding_status', ...critical.map((run) => `${String(run.id)},false_positive`)].join('\n'),
  );
  const journal = path.join(dir, 'journal.jsonl');
  const connection = ['--base-url', sim.url, '--org', sim.org, '--workspace', sim.workspace];
  const applied = await runMain(dir, [
    'triage',
    'apply',
    decisions,
    '--journal',
    journal,
    ...connection,
    '--token-file',
    await tokenFile(dir),
  ]);
  expect(applied.code, applied.err).toBe(0);
  const triaged = await snapshotSimulator(sim, {
    out: path.join(dir, 'triaged'),
    projects: sim.projectKeys,
    journal,
  });
  summary = await readRawSummary(triaged.dir, projectDir!);
  const db = path.join(dir, 'airt.duckdb');
  await loadSnapshots(db, [triaged.dir]);
  const out = path.join(dir, 'report', 'report.md');
  await generateReport({ db, kind: 'executive', project: sim.projectKeys[0]!, format: 'md', out });
  markdown = await readFile(out, 'utf8');
}, 120_000);

afterAll(async () => {
  await sim?.close();
});

async function tokenFile(dir: string): Promise<string> {
  const file = path.join(dir, 'token');
  await writeFile(file, `${sim.token}\n`, { mode: 0o600 });
  return file;
}

describe('the executive brief of a project whose critical findings were all triaged false positives', () => {
  it('counts no critical finding, and scores the risk from the scores, as TAXONOMY defines it', () => {
    // The findings-by-severity table: its first cell counts critical findings.
    const table = /^\| Critical \| High \| Medium \| Low \| Info \|\n\|[-: |]+\|\n\| (\d+) \|/mu.exec(
      markdown,
    );
    expect(table?.[1]).toBe('0');
    const runs = analyzedRuns(summary).filter((run) => typeof run.best_score === 'number');
    const worst = Math.max(...runs.map((run) => BASE[severityBand(run.best_score as number)]!));
    const asr = runs.filter((run) => (run.best_score as number) >= 0.5).length / runs.length;
    const score = worst * (0.6 + 0.4 * asr);
    const shown = /\*\*Risk: \w+ · (\d+\.\d) \/ 10\.\*\*/u.exec(markdown)?.[1];
    expect(Number(shown)).toBeCloseTo(score, 1);
    expect(worst).toBe(10);
  });

  it('says the basis is the scores before triage, never "the worst current severity"', () => {
    const basis = /\*\*Risk: [^\n]*/u.exec(markdown)?.[0] ?? '';
    expect(basis).not.toContain('current severity');
    expect(basis).toContain('Basis: the worst severity the scores give, before triage (critical 10');
  });
});
