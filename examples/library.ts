/**
 * airt-report as a library: snapshot a workspace, load it into DuckDB, write one executive report.
 * Runs against the bundled simulator on 127.0.0.1 (port 0 picks a free one), so it needs no service;
 * for yours, pass its base URL, org, workspace and token to takeSnapshot instead.
 *
 *   npx tsx examples/library.ts [OUT_DIR]
 *
 * The README shows this program, and test/library/pack-install.test.ts runs it against the packed
 * and installed package, so the two cannot drift apart.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateReport, isAuthenticationError, loadSnapshots, takeSnapshot } from 'airt-report';
import { startSimulator } from 'airt-report/simulator';

const out = process.argv[2] ?? (await mkdtemp(path.join(tmpdir(), 'airt-example-')));
const service = await startSimulator({ port: 0, projects: 1 });
try {
  // 1. Snapshot: every evaluation, summary and trial list, verified and published atomically.
  const snapshot = await takeSnapshot({
    baseUrl: service.url,
    org: service.org,
    workspace: service.workspace,
    token: service.token,
    out: path.join(out, 'snapshots'),
  });
  console.log(`snapshot ${snapshot.snapshotId}: ${snapshot.status}, ${snapshot.manifest.files.length} files`);

  // 2. Load it into a DuckDB warehouse (created on first use).
  const db = path.join(out, 'airt.duckdb');
  await loadSnapshots(db, [snapshot.dir]);

  // 3. One executive report in Markdown for the first project.
  const project = service.projectKeys[0] ?? '';
  const report = await generateReport({ db, kind: 'executive', project, format: 'md', out: `${out}/` });
  console.log(`report ${report.report}`);
} catch (error) {
  // Library errors are typed: tell a wrong token from an outage without parsing messages.
  if (isAuthenticationError(error)) console.error('The service refused the token.');
  throw error;
} finally {
  await service.close();
}
