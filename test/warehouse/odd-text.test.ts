import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROKEN_TEXT } from '../../src/simulator/hostile.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { takeSnapshot } from '../../src/snapshot/take-snapshot.js';
import { verifySnapshot } from '../../src/snapshot/verify.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { copyFixture, FIXTURES, reseal, rows, tempDir } from './helpers.js';

describe('valid JSON that DuckDB cannot store as it is', () => {
  let sim: RunningSimulator;
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;
  let snapshotDir: string;

  beforeAll(async () => {
    work = await tempDir('airt-wh-odd-');
    db = path.join(work.dir, 'airt.duckdb');
    sim = await startSimulator({
      seed: 3,
      projects: 1,
      brokenText: true,
      scale: { assessmentsPerProject: 2, attacksPerAssessment: 2, trialsPerAttack: 4, evaluationJobs: 3 },
    });
    const snapshot = await takeSnapshot({
      baseUrl: sim.url,
      org: sim.org,
      workspace: sim.workspace,
      token: sim.token,
      out: path.join(work.dir, 'snapshots'),
      projects: sim.truth.projects().map((p) => p.key),
    });
    snapshotDir = snapshot.dir;
  });

  afterAll(async () => {
    await sim.close();
    await work.cleanup();
  });

  it('loads a lone-surrogate trial served over HTTP with its row, flagged, the original recoverable', async () => {
    expect((await verifySnapshot(snapshotDir)).ok).toBe(true);
    const result = await loadSnapshots(db, [snapshotDir]);
    expect(result.snapshots[0]?.outcome).toBe('loaded');

    const expected = Object.fromEntries(
      sim.truth
        .projects()
        .flatMap((p) => sim.truth.assessmentIds(p.key))
        .map((id) => [id, sim.truth.trialCount(id)] as const)
        .filter(([, n]) => n > 0),
    );
    const counts = await rows(db, 'SELECT assessment_id, count(*) AS n FROM trials GROUP BY ALL');
    expect(Object.fromEntries(counts.map((r) => [r.assessment_id, r.n]))).toEqual(expected);

    // Every assessment's first trial held the lone surrogate: stored with U+FFFD, flagged, original kept.
    const altered = await rows(
      db,
      `SELECT a.table_name, a.json_path, a.original_json, t.response
       FROM altered_values a JOIN trials t ON t.snapshot_id = a.snapshot_id
         AND t.assessment_id = (a.row_key->>'assessment_id') AND t.trial_ordinal = CAST((a.row_key->>'trial_ordinal') AS BIGINT)
       ORDER BY t.assessment_id`,
    );
    expect(altered).toHaveLength(Object.keys(expected).length);
    for (const row of altered) {
      expect(row).toMatchObject({ table_name: 'trials', json_path: '$[0].response' });
      expect(row.original_json).toBe('"Sure, here is the plan \\ud83e"');
      expect(JSON.parse(String(row.original_json))).toBe(BROKEN_TEXT.loneSurrogate);
      expect(row.response).toBe('Sure, here is the plan \ufffd');
    }
    const warnings = await rows(db, `SELECT message FROM load_warnings WHERE code = 'altered_values'`);
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]?.message)).toMatch(
      new RegExp(`^${altered.length} value\\(s\\) held lone surrogates.*originals kept in altered_values`),
    );
  });

  it('stores NUL characters, 1 MB strings and unknown keys as they are (nothing altered)', async () => {
    const nul = await rows(
      db,
      `SELECT candidate, extra->>'unknown_key_x' AS unknown FROM trials WHERE trial_ordinal = 1`,
    );
    expect(nul.length).toBeGreaterThan(0);
    for (const row of nul) expect(row).toEqual({ candidate: BROKEN_TEXT.nul, unknown: '{"nested":[1]}' });
    const long = await rows(db, 'SELECT length(response) AS n FROM trials WHERE trial_ordinal = 2');
    expect(long.length).toBeGreaterThan(0);
    for (const row of long) expect(row.n).toBe(BROKEN_TEXT.megabyte.length);
    expect(
      await rows(db, `SELECT count(*) AS n FROM altered_values WHERE json_path NOT LIKE '%.response'`),
    ).toEqual([{ n: 0 }]);
  });

  it('keeps the original of a lone surrogate in a summary (not silently U+FFFD)', async () => {
    const dir = await copyFixture(FIXTURES.first, work.dir);
    const file = path.join(dir, 'projects/payments-bot/summary.json');
    const text = await readFile(file, 'utf8');
    const body = JSON.parse(text) as { assessments: { name: string }[] };
    const name = body.assessments[0]?.name ?? '';
    await writeFile(file, text.replace(JSON.stringify(name), JSON.stringify(`${name} \ud83e`)));
    await reseal(dir);
    const summaryDb = path.join(work.dir, 'summary.duckdb');
    await loadSnapshots(summaryDb, [dir]);
    expect(
      await rows(summaryDb, 'SELECT file, json_path, table_name, original_json FROM altered_values'),
    ).toEqual([
      {
        file: 'projects/payments-bot/summary.json',
        json_path: '$.assessments[0].name',
        table_name: null,
        original_json: JSON.stringify(`${name} \ud83e`),
      },
    ]);
    expect(
      await rows(
        summaryDb,
        `SELECT count(*) AS n FROM assessments WHERE name = '${name.replace(/'/g, "''")} \ufffd'`,
      ),
    ).toEqual([{ n: 1 }]);
  });
});
