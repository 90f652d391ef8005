/**
 * The manifest of a snapshot (`manifest.json`, format `airt-snapshot/1`): the contract between the
 * snapshot writer, `verify`, the warehouse loader and audit bundles.
 *
 * It is written last, so a directory without one is never a finished snapshot. Every data file is
 * listed with its sha256, size, the request that produced it and what validation found. The root hash
 * is the sha256 of the lines `<sha256>  <path>\n` over all files sorted by path — the same text
 * `sha256sum` prints — so an auditor can recompute it with standard tools.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';

/** The manifest's file name in a snapshot directory, written last. */
export const MANIFEST_FILE = 'manifest.json';

export const FileKindSchema = z.enum([
  'config',
  'evaluations_page',
  'project_summary',
  'trials',
  'finding',
  'risk_acceptances',
]);
export type FileKind = z.infer<typeof FileKindSchema>;

/** How a file's bytes got into the snapshot directory (see ManifestFile.stored). */
export const FileStorageSchema = z.enum(['fetched', 'copied', 'linked']);
export type FileStorage = z.infer<typeof FileStorageSchema>;

export const SchemaIssueSchema = z.object({ path: z.string(), message: z.string(), code: z.string() });

export const RequestRecordSchema = z.object({
  method: z.enum(['GET', 'PATCH', 'PUT']),
  /** Path and query as sent, relative to the base URL (never with credentials). */
  path: z.string(),
});

export const ManifestFileSchema = z.object({
  /** Relative POSIX path inside the snapshot directory. */
  path: z.string(),
  kind: FileKindSchema,
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.int().nonnegative(),
  request: RequestRecordSchema.nullable(),
  /** HTTP status of the response the body came from. */
  status: z.int(),
  fetched_at: z.string(),
  /** Items in the body: evaluation jobs in a page, trials in a list, assessments in a summary, 1 otherwise. */
  records: z.int().nonnegative().nullable(),
  /** What tolerant validation found; empty when the body fits the schema. */
  issues: z.array(SchemaIssueSchema),
  /** How many issues there were in all, when `issues` was cut to keep the manifest small. */
  issues_total: z.int().nonnegative(),
  /** Keys the API spec does not know (schema drift), as JSON paths with `[*]` for array items. */
  unknown_keys: z.array(z.string()),
  /** Identity of what the file holds, for loaders. */
  project: z.string().optional(),
  project_id: z.string().nullable().optional(),
  assessment_id: z.string().optional(),
  finding_id: z.string().optional(),
  page: z.int().optional(),
  /** Set when the file was taken from an earlier snapshot instead of fetched (`--since`). */
  reused_from: z.object({ snapshot_id: z.string(), sha256: z.string() }).optional(),
  /**
   * How the bytes are on disk (absent in manifests written before sharing existed): `fetched` — written
   * by this run (from its response, or a finding from the triage journal); `copied` — an own copy of an earlier snapshot's file (linking was
   * impossible, e.g. another filesystem); `linked` — a hard link to the same bytes in `linked_from`
   * (taken with `--since`, or fetched and found identical). A link shares the inode, not a dependency:
   * deleting the earlier snapshot leaves this one whole.
   */
  stored: FileStorageSchema.optional(),
  /** With `stored: "linked"`: the snapshot whose file this one shares. */
  linked_from: z.string().optional(),
  /**
   * Trial files: the assessment's `updated_at` and `status` in the summary the list was fetched for.
   * `--since` reuses the file in a later snapshot only when both are unchanged and the status is final.
   */
  assessment_updated_at: z.string().nullable().optional(),
  assessment_status: z.string().nullable().optional(),
});
/** One file of a snapshot as its manifest lists it: path, kind, size, sha256 and record count. */
export type ManifestFile = z.infer<typeof ManifestFileSchema>;

export const ManifestWarningSchema = z.object({
  /** Stable code: possibly_truncated, total_changed, duplicate_id, project_not_found, … */
  code: z.string(),
  message: z.string(),
  path: z.string().optional(),
  project: z.string().optional(),
  assessment_id: z.string().optional(),
});
/** A warning the snapshot recorded (e.g. a possibly truncated trial list). */
export type ManifestWarning = z.infer<typeof ManifestWarningSchema>;

export const FailedRequestSchema = z.object({
  method: z.string(),
  path: z.string(),
  kind: FileKindSchema,
  /** Target file the request would have written. */
  file: z.string(),
  status: z.int().nullable(),
  error: z.string(),
  attempts: z.int(),
  project: z.string().optional(),
  assessment_id: z.string().optional(),
});
/** A request that still failed after retries; the snapshot is partial and `resume` fetches it again. */
export type FailedRequest = z.infer<typeof FailedRequestSchema>;

export const ManifestProjectSchema = z.object({
  /** The key as requested or as found in evaluation jobs (slug or UUID). */
  key: z.string(),
  /** Filesystem-safe directory name under projects/. */
  dir: z.string(),
  project_id: z.string().nullable(),
  status: z.enum(['ok', 'not_found', 'failed']),
  assessments: z.int().nonnegative(),
});

/** The schema of a snapshot's manifest.json (format airt-snapshot/1). */
export const ManifestSchema = z.object({
  format: z.literal('airt-snapshot/1'),
  snapshot_id: z.string(),
  org: z.string(),
  workspace: z.string(),
  status: z.enum(['complete', 'partial']),
  started_at: z.string(),
  finished_at: z.string(),
  base_url: z.string(),
  tool_version: z.string(),
  api_version: z.string().nullable(),
  app_version: z.string().nullable(),
  options: z.object({
    projects: z.array(z.string()),
    trials_limit: z.int(),
    jailbreaks_only: z.boolean(),
    since: z.string().nullable(),
  }),
  projects: z.array(ManifestProjectSchema),
  files: z.array(ManifestFileSchema),
  warnings: z.array(ManifestWarningSchema),
  failed_requests: z.array(FailedRequestSchema),
  /** Unknown keys across the snapshot, by file kind: the schema drift at a glance. */
  schema_drift: z.record(z.string(), z.array(z.string())),
  root_sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
/**
 * A snapshot's manifest: identity, options, service versions, every file with its hash, warnings and failed
 * requests.
 */
export type Manifest = z.infer<typeof ManifestSchema>;

/** sha256sum-style root hash over the files, sorted by path. */
export function computeRootHash(files: readonly Pick<ManifestFile, 'path' | 'sha256'>[]): string {
  const lines = [...files]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((f) => `${f.sha256}  ${f.path}\n`)
    .join('');
  return createHash('sha256').update(lines).digest('hex');
}
