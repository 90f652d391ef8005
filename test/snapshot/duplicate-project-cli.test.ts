/**
 * `snapshot --project KEY --project ID` where both name one project: the service is asked for it twice
 * and the snapshot lists it under both selectors. The snapshot says so in one warning (it said
 * `duplicate_id` once per assessment), and `load` loads the project once, so no figure counts it twice.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import type { Manifest } from '../../src/snapshot/manifest.js';
import { rows } from '../warehouse/helpers.js';
import { readManifestFile, SMALL, TOKEN } from './fixtures.js';

let tmp: string;
let sim: RunningSimulator;

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = recordingIO({ env: { AIRT_TOKEN: TOKEN } });
  const code = await main(args, io);
  return { code, out: io.out.join(''), err: io.err.join('') };
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'airt-dupproject-'));
  sim = await startSimulator(SMALL);
});

afterAll(async () => {
  await sim.close();
  await rm(tmp, { recursive: true, force: true });
});

describe('snapshot --project KEY --project ID naming one project', () => {
  let manifest: Manifest;
  let dir: string;
  let key: string;
  let id: string;

  beforeAll(async () => {
    key = sim.projectKeys[0]!;
    id = String(sim.truth.summary(key).project_id);
    const run = await cli([
      'snapshot',
      ...['--base-url', sim.url, '--org', sim.org, '--workspace', sim.workspace],
      ...['--out', path.join(tmp, 'snapshots'), '--project', key, '--project', id, '--quiet'],
    ]);
    expect(run.code, run.err).toBe(0);
    dir = run.out.trim().split('\n').at(-1)!;
    manifest = await readManifestFile(dir);
  }, 60_000);

  it('warns once that the two selectors are one project', () => {
    expect(manifest.projects.filter((p) => p.project_id === id).map((p) => p.key)).toEqual([key, id]);
    expect(manifest.warnings.filter((w) => w.code === 'duplicate_id')).toEqual([]);
    expect(manifest.warnings.filter((w) => w.code === 'duplicate_project')).toEqual([
      {
        code: 'duplicate_project',
        message: `Projects ${JSON.stringify(key)} and ${JSON.stringify(id)} are one project (id ${id}), asked for twice; its trials are stored once, and a load of this snapshot loads it once, as ${JSON.stringify(key)}.`,
        project: id,
      },
    ]);
  });

  it('loads the project once', async () => {
    const db = path.join(tmp, 'once.duckdb');
    const load = await cli(['load', dir, '--db', db]);
    expect(load.code, load.err).toBe(0);
    expect(await rows(db, `SELECT project_key FROM projects WHERE project_id = '${id}'`)).toEqual([
      { project_key: key },
    ]);
    const assessments = sim.truth.summary(key).assessments.length;
    expect(
      await rows(db, `SELECT count(*)::INTEGER AS n FROM assessments WHERE project_id = '${id}'`),
    ).toEqual([{ n: assessments }]);
  });
});
