/**
 * Which trial files of a snapshot must be read, and which are already stored (issue 14: a night that
 * changed nothing must not parse a million trials again).
 *
 * A trial file's rows are a function of its bytes and of how the loader reads it (the fast path for a
 * file the verified manifest vouches for, the strict path otherwise), so stored content is keyed by
 * both: the file's sha256 for a vouched file, `<sha256>:strict` for a verified file read strictly. A
 * file that failed verification (a forced load) has no trustworthy hash: its key names the snapshot
 * and path, so it is stored for that snapshot alone and never shared.
 *
 *   manifest trial files ─▶ content key each ─▶ known in trial_content_files? ─▶ reuse (no read)
 *                                                        └ no ─▶ first file of that key ─▶ read
 */
import { existsSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { openWarehouse, type Warehouse } from './db.js';
import type { ManifestFile } from '../snapshot/manifest.js';

export type ReadPathKind = 'vouched' | 'strict' | 'unverified';

export interface ContentIdentity {
  contentKey: string;
  /** The manifest's sha256 (null for an unverified file: its bytes are not the listed ones). */
  sha256: string | null;
  readPath: ReadPathKind;
}

/** A stored value a trial file held altered (a lone surrogate), as trial_content_files.altered keeps it. */
export interface StoredAlteredValue {
  record: number;
  jsonPath: string;
  originalJson: string;
}

/**
 * Whether the manifest vouches for a trial file's content (nothing for the strict path to catch), so
 * that, once its bytes are verified, the fast path may read it.
 */
export function manifestVouches(file: ManifestFile): boolean {
  return file.issues_total === 0 && file.unknown_keys.length === 0 && file.records !== null;
}

/**
 * The trial files of `manifest` whose content, once verified, is already stored: the load never reads
 * their bytes, so verification need not hash them (VerifyOptions.held). Should one fail verification
 * after all (a forced load), its key becomes the snapshot's own and it is read like any other file.
 */
export async function heldTrialFiles(
  conn: DuckDBConnection,
  manifest: { snapshot_id: string; files: readonly ManifestFile[] },
): Promise<Set<string>> {
  const trials = manifest.files.filter((f) => f.kind === 'trials');
  const keyOf = (f: ManifestFile) =>
    contentIdentity(f, manifest.snapshot_id, true, manifestVouches(f)).contentKey;
  const stored = await storedContents(conn, trials.map(keyOf));
  return new Set(trials.filter((f) => stored.has(keyOf(f))).map((f) => f.path));
}

/**
 * heldTrialFiles() for a caller without a connection (a scheduled run's verify step, before its load):
 * opens the database read-only for the lookup. Empty when there is no database yet, or it cannot be
 * read now (a writer holds it, an older schema): then every file is hashed, as without it.
 */
export async function heldTrialFilesIn(
  dbPath: string,
  manifest: { snapshot_id: string; files: readonly ManifestFile[] },
): Promise<Set<string>> {
  if (!existsSync(dbPath)) return new Set();
  let warehouse: Warehouse | undefined;
  try {
    warehouse = await openWarehouse(dbPath, { readOnly: true });
    return await heldTrialFiles(warehouse.conn, manifest);
  } catch {
    return new Set();
  } finally {
    warehouse?.close();
  }
}

/** The content identity of a manifest trial file (see the module comment). */
export function contentIdentity(
  file: ManifestFile,
  snapshotId: string,
  verified: boolean,
  vouched: boolean,
): ContentIdentity {
  if (!verified)
    return { contentKey: `unverified:${snapshotId}:${file.path}`, sha256: null, readPath: 'unverified' };
  if (vouched) return { contentKey: file.sha256, sha256: file.sha256, readPath: 'vouched' };
  return { contentKey: `${file.sha256}:strict`, sha256: file.sha256, readPath: 'strict' };
}

/**
 * The stored contents among `keys`, each with the values it holds altered (empty when none). The whole
 * key list is read: one row per distinct trial file ever stored, small beside the trials themselves.
 */
export async function storedContents(
  conn: DuckDBConnection,
  keys: readonly string[],
): Promise<Map<string, StoredAlteredValue[]>> {
  const found = new Map<string, StoredAlteredValue[]>();
  if (keys.length === 0) return found;
  const wanted = new Set(keys);
  const reader = await conn.runAndReadAll(
    'SELECT content_key, CAST(altered AS VARCHAR) FROM trial_content_files',
  );
  for (const [key, altered] of reader.getRows()) {
    if (!wanted.has(String(key))) continue;
    found.set(String(key), altered === null ? [] : (JSON.parse(String(altered)) as StoredAlteredValue[]));
  }
  return found;
}

/**
 * The files to read: those whose content is not stored, and of several files with the same content
 * (identical bytes, e.g. two assessments without trials) only the first. Stable in file order, so the
 * stage and the load, which both call this, agree on which files and in what order.
 */
export function filesToRead<T extends { contentKey: string }>(
  files: readonly T[],
  stored: ReadonlyMap<string, unknown>,
): T[] {
  const seen = new Set<string>();
  return files.filter((file) => {
    if (stored.has(file.contentKey) || seen.has(file.contentKey)) return false;
    seen.add(file.contentKey);
    return true;
  });
}

/** Trials per assessment of a snapshot, and whether they carry `extra`. */
export type AssessmentTrialCounts = ReadonlyMap<string, { n: number; withExtra: number }>;

/**
 * A snapshot's trial, tool call and part counts, from the stored contents' counts: what the load
 * reports and checks against the manifest, without reading a trial.
 */
export async function snapshotTrialCounts(conn: DuckDBConnection, snapshotId: string) {
  const reader = await conn.runAndReadAll(
    `SELECT f.assessment_id, sum(c.trials), sum(c.trials_with_extra), sum(c.tool_calls), sum(c.message_parts)
     FROM snapshot_trial_files f JOIN trial_content_files c ON c.content_key = f.content_key
     WHERE f.snapshot_id = $1 GROUP BY f.assessment_id`,
    [snapshotId],
  );
  const perAssessment = new Map<string, { n: number; withExtra: number }>();
  let [trials, toolCalls, parts] = [0, 0, 0];
  for (const [id, n, withExtra, calls, partCount] of reader.getRows()) {
    perAssessment.set(String(id), { n: Number(n), withExtra: Number(withExtra) });
    trials += Number(n);
    toolCalls += Number(calls);
    parts += Number(partCount);
  }
  return { perAssessment: perAssessment as AssessmentTrialCounts, trials, toolCalls, parts };
}
