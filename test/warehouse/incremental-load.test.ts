/**
 * Issue 14: a nightly load costs what changed, not what is there. Three snapshots of the simulator:
 * day 1, day 2 with nothing changed, day 3 one epoch later (each epoch adds assessments and moves
 * evaluation jobs on). The second load stores no trial row and grows the database by at most 5%; the
 * third stores only the trials of the files that changed; every figure reads as before.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import type { Manifest } from '../../src/snapshot/manifest.js';
import { takeSnapshot } from '../../src/snapshot/take-snapshot.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { rows } from './helpers.js';

let sim: RunningSimulator;
let work: string;
let db: string;
const snapshotDirs: string[] = [];

async function snapshot(): Promise<string> {
  const taken = await takeSnapshot({
    baseUrl: sim.url,
    org: sim.org,
    workspace: sim.workspace,
    token: sim.token,
    out: path.join(work, 'snapshots'),
    projects: sim.truth.projects().map((p) => p.key),
  });
  snapshotDirs.push(taken.dir);
  return taken.dir;
}

async function manifestOf(dir: string): Promise<Manifest> {
  return JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
}

/**
 * The bytes the database's data occupies (used blocks). The file itself grows once more on the second
 * load: DuckDB's checkpoint writes the tables it appended to into new blocks before it frees the old
 * ones, which later loads reuse (bench/nightly-load.ts reports both).
 */
async function usedBytes(): Promise<number> {
  const [size] = await rows(db, 'SELECT used_blocks, block_size FROM pragma_database_size()');
  return Number(size?.used_blocks) * Number(size?.block_size);
}

const contentRows = async (): Promise<number> =>
  Number((await rows(db, 'SELECT count(*) AS n FROM trial_content'))[0]?.n);

/** Rows of `relation` in one snapshot and not the other (either way), ids aside: 0 when they show the same. */
async function differingRows(relation: string, a: string, b: string): Promise<number> {
  const of = (id: string) => `SELECT * EXCLUDE (snapshot_id) FROM ${relation} WHERE snapshot_id = '${id}'`;
  const [diff] = await rows(
    db,
    `SELECT count(*) AS n FROM ((${of(a)} EXCEPT ALL ${of(b)}) UNION ALL (${of(b)} EXCEPT ALL ${of(a)}))`,
  );
  return Number(diff?.n);
}
/** The metrics layer's figures of a snapshot, without its id. */
const figuresOf = (id: string) =>
  rows(
    db,
    `SELECT * EXCLUDE (snapshot_id) FROM metric_project_figures WHERE snapshot_id = '${id}' ORDER BY ALL`,
  );

beforeAll(async () => {
  work = await makeTempDir('airt-incremental-');
  db = path.join(work, 'airt.duckdb');
  sim = await startSimulator({
    seed: 11,
    projects: 2,
    scale: {
      assessmentsPerProject: 3,
      attacksPerAssessment: 4,
      trialsPerAttack: 1000,
      evaluationJobs: 20,
      maxTrialsPerAssessment: 5000,
    },
  });
}, 30_000);

afterAll(async () => {
  await sim.close();
});

describe('loading night after night', () => {
  let dayOneUsed = 0;
  let dayOneRows = 0;

  it('day 1 stores every trial once', async () => {
    const dir = await snapshot();
    const [loaded] = (await loadSnapshots(db, [dir])).snapshots;
    dayOneRows = await contentRows();
    expect(loaded?.rows.trials).toBeGreaterThan(1500);
    expect(dayOneRows).toBe(loaded?.rows.trials);
    dayOneUsed = await usedBytes();
  });

  it('day 2, nothing changed: no trial row stored, the database grows by at most 5%', async () => {
    const dir = await snapshot();
    const [first, second] = snapshotDirs.map((d) => path.basename(d));
    const [loaded] = (await loadSnapshots(db, [dir])).snapshots;
    expect(loaded?.outcome).toBe('loaded');
    expect(await contentRows()).toBe(dayOneRows);
    // The view still shows every trial of the second snapshot, as it shows the first's.
    expect(loaded?.rows.trials).toBe(dayOneRows);
    expect((await usedBytes()) / dayOneUsed - 1).toBeLessThanOrEqual(0.05);
    for (const relation of ['trials', 'trial_tool_calls', 'message_parts'])
      expect(await differingRows(relation, String(first), String(second)), relation).toBe(0);
    expect(await figuresOf(String(second))).toEqual(await figuresOf(String(first)));
  });

  it('day 3, one epoch on: only the trials of the changed files are stored', async () => {
    sim.setEpoch(1);
    const before = await contentRows();
    const known = new Set<string>();
    for (const dir of snapshotDirs)
      for (const file of (await manifestOf(dir)).files) if (file.kind === 'trials') known.add(file.sha256);
    const dir = await snapshot();
    const manifest = await manifestOf(dir);
    const changed = manifest.files.filter((f) => f.kind === 'trials' && !known.has(f.sha256));
    const changedTrials = changed.reduce((sum, f) => sum + (f.records ?? 0), 0);
    const total = manifest.files
      .filter((f) => f.kind === 'trials')
      .reduce((sum, f) => sum + (f.records ?? 0), 0);
    expect(changed.length).toBeGreaterThan(0);
    expect(changedTrials).toBeLessThan(total);
    const [loaded] = (await loadSnapshots(db, [dir])).snapshots;
    expect(await contentRows()).toBe(before + changedTrials);
    expect(loaded?.rows.trials).toBe(total);
    // Each assessment's trials equal its file's records: the unchanged ones read through shared content.
    const perAssessment = await rows(
      db,
      `SELECT assessment_id, count(*) AS n FROM trials WHERE snapshot_id = '${manifest.snapshot_id}' GROUP BY ALL`,
    );
    const expected = new Map(
      manifest.files
        .filter((f) => f.kind === 'trials' && (f.records ?? 0) > 0)
        .map((f) => [String(f.assessment_id), f.records]),
    );
    expect(new Map(perAssessment.map((r) => [String(r.assessment_id), r.n]))).toEqual(expected);
  });
});
