/**
 * Assembles manifest.json from what a run stored, in a canonical form: files sorted by path with keys
 * in schema order, warnings and failures sorted, schema drift aggregated per file kind. Two runs that
 * stored the same bodies therefore produce manifests that differ only in times and ids.
 */
import { VERSION, SNAPSHOT_FORMAT } from '../version.js';
import {
  computeRootHash,
  ManifestFileSchema,
  type FailedRequest,
  type Manifest,
  type ManifestFile,
  type ManifestWarning,
} from './manifest.js';

export interface ManifestInput {
  snapshotId: string;
  org: string;
  workspace: string;
  startedAt: string;
  finishedAt: string;
  baseUrl: string;
  apiVersion: string | null;
  appVersion: string | null;
  options: Manifest['options'];
  projects: Manifest['projects'];
  files: Iterable<ManifestFile>;
  warnings: readonly ManifestWarning[];
  failures: readonly FailedRequest[];
}

const FILE_KEYS = Object.keys(ManifestFileSchema.shape) as (keyof ManifestFile)[];

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function canonicalFile(file: ManifestFile): ManifestFile {
  const out: Record<string, unknown> = {};
  for (const key of FILE_KEYS) if (file[key] !== undefined) out[key] = file[key];
  return out as ManifestFile;
}

function warningKey(w: ManifestWarning): string {
  return [w.code, w.project ?? '', w.assessment_id ?? '', w.path ?? '', w.message].join('\u0000');
}

export function buildManifest(input: ManifestInput): Manifest {
  const files = [...input.files].map(canonicalFile).sort((a, b) => byText(a.path, b.path));
  const drift = new Map<string, Set<string>>();
  for (const file of files) {
    if (file.unknown_keys.length === 0) continue;
    const keys = drift.get(file.kind) ?? new Set<string>();
    for (const key of file.unknown_keys) keys.add(key);
    drift.set(file.kind, keys);
  }
  const schemaDrift = Object.fromEntries(
    [...drift.entries()].sort(([a], [b]) => byText(a, b)).map(([kind, keys]) => [kind, [...keys].sort()]),
  );
  const failures = [...input.failures].sort((a, b) => byText(a.file, b.file));
  return {
    format: SNAPSHOT_FORMAT,
    snapshot_id: input.snapshotId,
    org: input.org,
    workspace: input.workspace,
    status: failures.length > 0 ? 'partial' : 'complete',
    started_at: input.startedAt,
    finished_at: input.finishedAt,
    base_url: input.baseUrl,
    tool_version: VERSION,
    api_version: input.apiVersion,
    app_version: input.appVersion,
    options: input.options,
    projects: input.projects,
    files,
    warnings: [...input.warnings].sort((a, b) => byText(warningKey(a), warningKey(b))),
    failed_requests: failures,
    schema_drift: schemaDrift,
    root_sha256: computeRootHash(files),
  };
}
