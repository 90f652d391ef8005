/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call -- raw snapshot JSON and the JSON report are read untyped on purpose (the independent recomputation) */
/**
 * A project summary whose attack runs lack the required `best_score` (a newer API renamed it
 * `best_score_v2`): their score, and so their severity, is unknown, never info. Two snapshots of the
 * simulator (127.0.0.1, port 0): the second's summary of one project has every `"best_score":` renamed
 * and its manifest resealed. Against the clean first snapshot, the diff calls none of its findings
 * resolved or triaged below the threshold (they are not comparable), the risk score and the counts by
 * severity are unknown (NULL, "—", "unknown") in the warehouse, the diff, the executive JSON and the
 * gates, and which findings can be scored is recomputed here from the raw JSON, without the warehouse.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffJson, diffMarkdown, type SnapshotDiff } from '../../src/diff/diff-report.js';
import { diffSnapshots } from '../../src/diff/snapshot-diff.js';
import { parseGateExpression } from '../../src/pipeline/gate-expression.js';
import { evaluateGates } from '../../src/pipeline/gates.js';
import { warehouseMetricProvider } from '../../src/pipeline/warehouse-metrics.js';
import { buildModel } from '../../src/report/build-model.js';
import { renderReportJson } from '../../src/report/json-report.js';
import { renderMarkdown } from '../../src/report/render.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { analyzedRuns, readRawSummary, severityBand } from '../helpers/raw-summary-findings.js';
import { takeUnscoredSnapshotPair } from '../helpers/unscored-snapshot-pair.js';
import { recomputeFromRaw } from '../metrics/raw-recompute.js';
import { tempDir } from '../warehouse/helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

let work: { dir: string; cleanup: () => Promise<void> };
let warehouse: Warehouse;
let clean: { dir: string; id: string };
let renamed: { dir: string; id: string };
/** The project whose summary lost best_score in the second snapshot, and one left alone. */
let tampered: string;
let control: string;
let diff: SnapshotDiff;

async function rows(sql: string, params: string[]): Promise<Json[]> {
  const reader = await warehouse.conn.runAndReadAll(sql, params);
  return reader.getRowObjectsJS();
}

beforeAll(async () => {
  work = await tempDir('airt-unknown-score-');
  // What the user's proxy did: every "best_score": of one project's summary renamed, nothing else.
  ({ clean, renamed, tampered, control } = await takeUnscoredSnapshotPair(path.join(work.dir, 'snapshots')));
  const db = path.join(work.dir, 'w.duckdb');
  await loadSnapshots(db, [clean.dir, renamed.dir]);
  warehouse = await openWarehouse(db, { readOnly: true });
  diff = await diffSnapshots(warehouse.conn, { from: clean.id, to: renamed.id });
}, 120_000);

afterAll(async () => {
  warehouse?.close();
  await work?.cleanup();
});

describe('attack runs without their required best_score', () => {
  it('are recomputed from the raw JSON: every finding of the renamed summary lacks a score, the other none', async () => {
    const runs = analyzedRuns(await readRawSummary(renamed.dir, tampered));
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.filter((run) => Object.hasOwn(run, 'best_score'))).toEqual([]);
    const others = analyzedRuns(await readRawSummary(renamed.dir, control));
    expect(others.filter((run) => !Object.hasOwn(run, 'best_score'))).toEqual([]);
  });

  it('have an unknown severity in latest_findings (NULL, never info), exactly the runs the raw JSON cannot score', async () => {
    const summary = await readRawSummary(renamed.dir, tampered);
    const unscorable = analyzedRuns(summary)
      .filter((run) => typeof run.best_score !== 'number' && run.best_score !== null)
      .map((run) => String(run.id))
      .sort();
    const found = await rows(
      `SELECT attack_run_id, severity, scored_severity, best_score FROM latest_findings
       WHERE snapshot_id = $1 AND project_key = $2 ORDER BY attack_run_id`,
      [renamed.id, String(summary.project_key ?? tampered)],
    );
    expect(found.map((row) => String(row.attack_run_id))).toEqual(unscorable);
    for (const row of found) {
      expect(row.severity, String(row.attack_run_id)).toBeNull();
      expect(row.scored_severity, String(row.attack_run_id)).toBeNull();
    }
    const flagged = await rows(
      `SELECT count(*) FILTER (WHERE best_score_unknown) AS unknown, count(*) AS runs FROM attack_runs
       WHERE snapshot_id = $1`,
      [renamed.id],
    );
    expect(Number(flagged[0]?.unknown)).toBe(
      ((await readRawSummary(renamed.dir, tampered)).assessments as Json[]).flatMap(
        (a) => (a.attack_runs ?? []) as Json[],
      ).length,
    );
  });

  it('leave the clean project and snapshot as they were: the same figures as the raw recomputation', async () => {
    for (const [snapshot, project] of [
      [clean, tampered],
      [clean, control],
      [renamed, control],
    ] as const) {
      const raw = await recomputeFromRaw(snapshot.dir, project);
      const key = String((await readRawSummary(snapshot.dir, project)).project_key ?? project);
      const figures = await rows(
        `SELECT figure, value FROM metric_project_figures WHERE snapshot_id = $1 AND project_key = $2`,
        [snapshot.id, key],
      );
      const value = (name: string) => figures.find((f) => f.figure === name)?.value as number | null;
      expect(value('risk_score')).toBe(raw.riskScore);
      for (const level of SEVERITIES)
        expect([level, value(`findings_${level}`)]).toEqual([level, raw.severities[level]]);
    }
  });

  it('make the risk score and the counts by severity unknown, the total still counted', async () => {
    const summary = await readRawSummary(renamed.dir, tampered);
    const key = String(summary.project_key ?? tampered);
    const figures = await rows(
      `SELECT figure, value, numerator, denominator FROM metric_project_figures WHERE snapshot_id = $1 AND project_key = $2`,
      [renamed.id, key],
    );
    const byName = new Map(figures.map((f) => [String(f.figure), f]));
    for (const name of [
      'overall_asr',
      'risk_score',
      'avg_risk_score',
      ...SEVERITIES.map((l) => `findings_${l}`),
    ])
      expect([name, byName.get(name)?.value]).toEqual([name, null]);
    expect(byName.get('overall_asr')?.numerator).toBeNull();
    // Recomputed from the raw JSON: the findings are still there, only their severity is unknown.
    expect(Number(byName.get('findings_total')?.value)).toBe(analyzedRuns(summary).length);
    expect(Number(byName.get('findings_open')?.value)).toBe(analyzedRuns(summary).length);
    const checks = await rows(
      `SELECT check_name, status, detail FROM metric_consistency
       WHERE snapshot_id = $1 AND project_key = $2 AND check_name IN ('critical_findings', 'overall_risk_score')`,
      [renamed.id, key],
    );
    expect(checks).toHaveLength(2);
    for (const check of checks) {
      expect(check.status).toBe('not_compared');
      expect(String(check.detail)).toMatch(/attack runs lack their required best_score/u);
    }
  });

  it('are not resolved or triaged in the diff: they are not comparable, and the risk score is unknown', async () => {
    const summary = await readRawSummary(clean.dir, tampered);
    const key = String(summary.project_key ?? tampered);
    const project = diff.projects.find((p) => p.project === key)!;
    expect(project).toBeDefined();
    // Independently: the findings the clean snapshot tracks (open, at least low) from its raw scores.
    const tracked = analyzedRuns(summary).filter(
      (run) => severityBand(run.best_score as number | null) !== 'info',
    );
    expect(tracked.length).toBeGreaterThan(0);
    expect(project.counts).toEqual({
      new: 0,
      resolved: 0,
      regressed: 0,
      persisting: 0,
      not_comparable: analyzedRuns(summary).length,
      no_longer_reported: 0,
    });
    expect(project.findings.resolved).toEqual([]);
    for (const pair of project.findings.not_comparable) {
      expect(pair.unknown_in).toBe('to');
      expect(pair.to?.severity).toBe('unknown');
      expect(pair.to?.score).toBeNull();
      expect(pair.from?.severity).toBe(severityBand(pair.from?.score ?? null));
    }
    const risk = project.metrics.find((m) => m.group === 'overall' && m.key === 'risk_score')!;
    expect(risk.from).not.toBeNull();
    expect(risk.to).toBeNull();
    expect(risk.delta).toBeNull();
    expect(project.data_quality).toContainEqual({
      snapshot_id: renamed.id,
      field: 'best_score',
      assessment_ids: expect.any(Array),
    });
    // The other project is compared as always.
    const other = diff.projects.find((p) => p.project !== key)!;
    expect(other.counts.not_comparable).toBe(0);
    expect(other.counts.resolved).toBe(0);

    const markdown = diffMarkdown(diff);
    expect(markdown).not.toMatch(/below_threshold|Resolved findings \(/u);
    expect(markdown).toContain('0 new, 0 resolved, 0 regressed, 0 persisting findings.');
    expect(markdown).toContain(`${analyzedRuns(summary).length} findings are not comparable`);
    expect(markdown).toMatch(/\| risk score \| \d+\.\d+ \| unknown \| unknown \|/u);
    expect(markdown).toContain('### Findings not comparable');
    expect(markdown).toMatch(/severity critical → unknown/u);
    expect(JSON.parse(diffJson(diff)).projects.find((p: Json) => p.project === key).counts.resolved).toBe(0);
  });

  it('make the executive report say unknown: JSON null, Markdown "—", never risk 0 or zero criticals', async () => {
    const key = String((await readRawSummary(renamed.dir, tampered)).project_key ?? tampered);
    const model = await buildModel(warehouse.conn, { kind: 'executive', project: key, snapshot: renamed.id });
    const json = JSON.parse(renderReportJson(model)) as Json;
    const schema = JSON.parse(
      await readFile(path.join(import.meta.dirname, '../../schemas/report.schema.json'), 'utf8'),
    ) as object;
    const validate = new Ajv({ allErrors: true }).compile(schema);
    expect([validate(json), validate.errors ?? null]).toEqual([true, null]);
    expect(json.figures.risk_score.value).toBeNull();
    expect(json.figures.overall_asr.value).toBeNull();
    for (const level of SEVERITIES)
      expect([level, json.figures[`findings_${level}`].value]).toEqual([level, null]);
    const { markdown } = await renderMarkdown(model);
    // The figures table (risk score, level, ASR, …) and the counts by severity show "—", never 0.
    expect(markdown).toMatch(/\n\| — \/ 10 \| — \| — \| \d+ \| \d+ \| \d+ \| \d+ \|\n/u);
    expect(markdown).toContain('\n| — | — | — | — | — |\n');
    expect(markdown).not.toMatch(/\*\*Risk: [^\n]*\b0(\.0)? \/ 10/u);
    // Risk by domain: counts by level unknown, the domains still drawn (their findings, severity unknown).
    expect(model.kind === 'executive' && model.riskByDomain.length).toBeGreaterThan(0);
    expect(markdown).not.toContain('No risk domains are recorded.');
  });

  it('keep the gates that rest on them from passing silently', async () => {
    const key = String((await readRawSummary(renamed.dir, tampered)).project_key ?? tampered);
    const gates = ['risk_score < 8', 'new_critical_findings == 0', 'open_critical_findings == 0'].map(
      (text) => ({
        expression: parseGateExpression(text),
        project: key,
      }),
    );
    const results = await evaluateGates(gates, warehouseMetricProvider(warehouse.conn), {
      snapshotId: renamed.id,
      previousSnapshotId: clean.id,
      projects: [key],
      onUnknown: 'trip',
    });
    const [risk, newCritical, openCritical] = results;
    expect(risk).toMatchObject({ status: 'unknown', trips: true });
    expect(newCritical?.status_text).toMatch(/erroneous best_score/u);
    expect(openCritical?.status_text).toMatch(/erroneous best_score/u);
  });
});
