/**
 * A running viewer never keeps a `load` out: DuckDB locks a file for any process that has it open,
 * read-only included, so the viewer holds the warehouse only while it answers pages (closed after
 * IDLE_CLOSE_MS idle). A load that waits for its lock gets in; the next page shows the new snapshot
 * (kept models dropped when the file changed). A page asked for while a load holds the file is
 * answered 503 with Retry-After, not an error page or a hang. A user clicking faster than the idle
 * time does not keep a waiting load out either: the viewer sees its waiter note and lets go.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { startViewer, type RunningViewer } from '../../src/viewer/server.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { snapshotSimulator } from '../helpers/simulator-snapshot.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let dir: string;
let db: string;
const snapshots: { dir: string; id: string }[] = [];
let viewer: RunningViewer;

beforeAll(async () => {
  dir = await makeTempDir('airt-viewer-lock-');
  for (const epoch of [0, 1, 2]) {
    const sim = await startSimulator({
      seed: 2,
      projects: 1,
      epoch,
      scale: { assessmentsPerProject: 1, attacksPerAssessment: 2, trialsPerAttack: 2, evaluationJobs: 1 },
    });
    try {
      const snapshot = await snapshotSimulator(sim, {
        out: path.join(dir, 'snapshots'),
        projects: sim.truth.projects().map((p) => p.key),
      });
      snapshots.push({ dir: snapshot.dir, id: snapshot.snapshotId });
    } finally {
      await sim.close();
    }
  }
  db = path.join(dir, 'airt.duckdb');
  await loadSnapshots(db, [snapshots[0]!.dir]);
  viewer = await startViewer({ db });
}, 60_000);

afterAll(async () => {
  await viewer?.close();
});

describe('serve beside a load', () => {
  it('lets a load into the same file in, and shows the new snapshot afterwards', async () => {
    const before = await (await fetch(viewer.url)).text();
    expect(before).toContain(snapshots[0]!.id);
    expect(before).not.toContain(snapshots[1]!.id);
    // The viewer stays up, its tab just read a page: the load waits for the file, then gets it.
    const load = await runCli(['load', snapshots[1]!.dir, '--db', db, '--lock-timeout', '20']);
    expect(load.code, load.stderr).toBe(0);
    const after = await (await fetch(viewer.url)).text();
    expect(after).toContain(snapshots[1]!.id);
  });

  it('lets a waiting load in while pages are asked for faster than the idle time', async () => {
    const statuses: number[] = [];
    let clicking = true;
    // A user clicking through pages every 150 ms (bounded: the load's wait is 8 s).
    const clicks = (async () => {
      for (let i = 0; clicking && i < 200; i++) {
        const response = await fetch(`${viewer.url}findings`);
        statuses.push(response.status);
        await response.arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const load = await runCli(['load', snapshots[2]!.dir, '--db', db, '--lock-timeout', '8']);
    clicking = false;
    await clicks;
    expect(load.code, load.stderr).toBe(0);
    expect(statuses.length).toBeGreaterThan(3);
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(await (await fetch(viewer.url)).text()).toContain(snapshots[2]!.id);
  });

  it('answers 503 with Retry-After while a load holds the file', async () => {
    // A writer that holds the file for a while, as a long load would.
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        // It waits for the viewer to let go (a bounded retry, as a load's lock wait).
        `import { DuckDBInstance } from '@duckdb/node-api';
         let instance;
         for (let tries = 0; !instance; tries++) {
           try { instance = await DuckDBInstance.create(${JSON.stringify(db)}); }
           catch (error) { if (tries > 100) throw error; await new Promise((r) => setTimeout(r, 100)); }
         }
         const connection = await instance.connect();
         await connection.run('SELECT 1');
         process.stdout.write('held\\n');
         // The timer keeps the instance reachable: a DuckDB instance nothing refers to is closed when
         // it is garbage collected, letting go of the file before the page is asked for.
         setTimeout(() => {
           connection.closeSync();
           instance.closeSync();
           process.exit(0);
         }, 8000);`,
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      // Wait for the writer to take the file (after the viewer let go of it).
      await new Promise<void>((resolve, reject) => {
        holder.stdout.on('data', () => resolve());
        holder.once('exit', (code) => reject(new Error(`the holder exited with ${code}`)));
      });
      const response = await fetch(`${viewer.url}findings`);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(await response.text()).toContain('being loaded');
    } finally {
      if (holder.exitCode === null && holder.signalCode === null) {
        const closed = new Promise((resolve) => holder.once('close', resolve));
        holder.kill('SIGKILL');
        await closed;
      }
    }
    // The writer gone, pages are back.
    expect((await fetch(`${viewer.url}findings`)).status).toBe(200);
  });
});
