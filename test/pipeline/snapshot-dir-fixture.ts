/**
 * Writes a small snapshot directory that follows the airt-snapshot/1 contract (files + manifest with
 * real hashes), for the bundle and retention tests that need one without a network run.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { computeRootHash, type Manifest, type ManifestFile } from '../../src/snapshot/manifest.js';

export interface FixtureSnapshotOptions {
  root: string;
  org?: string;
  workspace?: string;
  snapshotId: string;
  finishedAt?: string;
  files?: Record<string, string>;
}

/** Creates `<root>/<org>/<workspace>/<id>/` with the files and a valid manifest; returns the dir and manifest. */
export async function writeFixtureSnapshot(
  options: FixtureSnapshotOptions,
): Promise<{ dir: string; manifest: Manifest }> {
  const org = options.org ?? 'acme';
  const workspace = options.workspace ?? 'main';
  const dir = path.join(options.root, org, workspace, options.snapshotId);
  const files = options.files ?? {
    'config.json': '{"api_version":"1"}',
    'projects/demo/summary.json': '{"assessments":[]}',
  };
  const entries: ManifestFile[] = [];
  for (const [relative, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, relative)), { recursive: true });
    await writeFile(path.join(dir, relative), text);
    entries.push({
      path: relative,
      kind: relative === 'config.json' ? 'config' : 'project_summary',
      sha256: createHash('sha256').update(text).digest('hex'),
      bytes: Buffer.byteLength(text),
      request: { method: 'GET', path: `/${relative}` },
      status: 200,
      fetched_at: '2026-01-01T00:00:00.000Z',
      records: 1,
      issues: [],
      issues_total: 0,
      unknown_keys: [],
    });
  }
  const finishedAt = options.finishedAt ?? '2026-01-01T00:00:00.000Z';
  const manifest: Manifest = {
    format: 'airt-snapshot/1',
    snapshot_id: options.snapshotId,
    org,
    workspace,
    status: 'complete',
    started_at: finishedAt,
    finished_at: finishedAt,
    base_url: 'http://127.0.0.1:1',
    tool_version: '0.1.0',
    api_version: '1',
    app_version: null,
    options: { projects: [], trials_limit: 5000, jailbreaks_only: false, since: null },
    projects: [],
    files: entries,
    warnings: [],
    failed_requests: [],
    schema_drift: {},
    root_sha256: computeRootHash(entries),
  };
  await writeFile(path.join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return { dir, manifest };
}
