/**
 * `verify`: proves a snapshot directory is exactly what its manifest says. Every listed file is
 * re-hashed, every file on disk must be listed, and the root hash is recomputed from the manifest's
 * file list, so a changed body, a deleted or added file, and an edited manifest are all caught.
 * Files shared with other snapshots by hard link (`stored: "linked"`) are re-hashed like any other:
 * a snapshot is verified on its own, whatever became of the snapshot it shares files with, and the
 * trust `--since` places in a previous manifest (see share-previous.ts) is checked here.
 *
 * Used by the CLI and by the warehouse loader and audit bundles, which need the structured result.
 * The loader may pass digests it recorded earlier (`known`, keyed by file identity: see
 * file-identity.ts), so a file untouched since the warehouse hashed it is not read again; without
 * `known` (the CLI, bundles) every file is read.
 *
 * Reading a big snapshot takes a while (a large one, gigabytes, tens of seconds): an abort of the
 * caller's `signal` (the CLI's Ctrl-C, a load being stopped) stops it within a chunk of every file
 * being read, with no file left open, and verifySnapshot rejects with the signal's reason.
 */
import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { wordsFlags, WordedError, type OptionWording } from '../errors.js';
import { identityOf, sameIdentity, settledBefore, type FileIdentity } from './file-identity.js';
import type { FileDigest } from './hash-file.js';
import { hashFiles } from './hash-pool.js';
import { computeRootHash, MANIFEST_FILE, ManifestSchema, type Manifest } from './manifest.js';
import { PathEscapeError, resolveInside } from './safe-path.js';
import { PARTIAL_SUFFIX } from './snapshot-id.js';

/** A snapshot file whose content no longer matches the hash its manifest records. */
export interface ModifiedFile {
  path: string;
  expectedSha256: string;
  actualSha256: string | null;
  expectedBytes: number;
  actualBytes: number | null;
  /** Why it differs: `content` (hash or size) or `not_a_file` (a directory, symlink, …). */
  reason: 'content' | 'not_a_file';
}

/** The outcome of `verifySnapshot`; `ok` is true only when nothing at all differs. */
export interface VerifyResult {
  ok: boolean;
  dir: string;
  snapshotId: string;
  /** The manifest's status: a partial snapshot verifies fine, it just lacks the failed requests. */
  status: Manifest['status'];
  /** Files listed in the manifest. */
  files: number;
  missing: string[];
  extra: string[];
  modified: ModifiedFile[];
  rootHash: { expected: string; actual: string; ok: boolean };
  manifest: Manifest;
  /** Files whose digest came from `known`, or that are `held` (not read). */
  reused: number;
  /**
   * Files read now that matched the manifest and whose identity was the same before and after and
   * settled (file-identity.ts): what a caller may record as known digests.
   */
  hashed: HashedFile[];
}

/** A file hashed by verifySnapshot that may be recorded as a known digest. */
export interface HashedFile {
  path: string;
  identity: FileIdentity;
  digest: FileDigest;
}

/** Digests recorded earlier by identity (the warehouse's verified_files); see file-identity.ts. */
export interface KnownDigests {
  get(identity: FileIdentity): FileDigest | undefined;
}

export interface VerifyOptions {
  known?: KnownDigests;
  /**
   * Listed paths whose bytes the caller will not read because it already holds content with their
   * listed sha256 (the warehouse's stored trial contents): checked to be a regular file of the listed
   * size, not hashed. Counted in `reused`.
   */
  held?: ReadonlySet<string>;
  /**
   * Aborting stops the verification between two files and within a file being read (per chunk, so a
   * single big file stops at once too); verifySnapshot then rejects with the signal's reason.
   */
  signal?: AbortSignal | undefined;
}

/** The directory cannot be verified at all (no manifest, unreadable or invalid manifest). */
export class NotASnapshotError extends WordedError {
  override readonly name = 'NotASnapshotError';
  constructor(message: string | OptionWording) {
    super(typeof message === 'string' ? () => message : message);
  }
}

/** Why `dir` cannot hold a manifest at all ("does not exist", "is not a directory"), or undefined. */
async function describeMissing(dir: string): Promise<string | undefined> {
  const stats = await stat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
    throw error;
  });
  if (!stats) return 'does not exist';
  return stats.isDirectory() ? undefined : 'is not a directory';
}

/**
 * Reads and validates `dir/manifest.json` (also checks that no listed path leaves `dir`). Throws
 * NotASnapshotError with a message saying what to do when there is none or it is damaged.
 */
export async function readManifest(dir: string): Promise<Manifest> {
  const file = path.join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      const what = await describeMissing(dir);
      if (what)
        throw new NotASnapshotError(
          `${dir} ${what}. Pass the directory that snapshot printed (…/<org>/<workspace>/<snapshot_id>).`,
        );
      const unfinished = path.basename(dir).endsWith(PARTIAL_SUFFIX);
      throw new NotASnapshotError(
        (name) =>
          `${dir} has no ${MANIFEST_FILE}, so it is not a finished snapshot` +
          (!unfinished
            ? '. Pass the directory that snapshot printed (…/<org>/<workspace>/<snapshot_id>).'
            : wordsFlags(name)
              ? `; it is an unfinished one. Continue it with: airt-report snapshot ${name('resume')} ${dir}`
              : `; it is an unfinished one. Continue it by passing it to takeSnapshot as ${name('resume')}: ${dir}`),
      );
    }
    throw new NotASnapshotError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  const known = validatedManifests.get(file);
  // A copy: callers own what they get, and the cached one must stay as validated.
  if (known?.text === text) return structuredClone(known.manifest);
  const manifest = validateManifest(dir, file, text);
  validatedManifests.delete(file);
  validatedManifests.set(file, { text, manifest: structuredClone(manifest) });
  if (validatedManifests.size > VALIDATED_MANIFESTS_KEPT)
    validatedManifests.delete(validatedManifests.keys().next().value!);
  return manifest;
}

/**
 * The manifests this process validated last, by file, with the exact text validated: a load reads a
 * snapshot's manifest three times (its input check, before staging, and to verify), and validating a
 * nightly manifest (~330 files) costs 7-25 ms where reading it costs ~1. Only the same text is taken
 * from here; any change on disk is validated again.
 */
const validatedManifests = new Map<string, { text: string; manifest: Manifest }>();
const VALIDATED_MANIFESTS_KEPT = 16;

/** Parses and validates a manifest's text (see readManifest). */
function validateManifest(dir: string, file: string, text: string): Manifest {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new NotASnapshotError(
      `${file} is not valid JSON (${(error as Error).message}); the snapshot is damaged.`,
    );
  }
  const parsed = ManifestSchema.safeParse(data);
  if (!parsed.success) {
    const first = parsed.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    throw new NotASnapshotError(
      `${file} is not an airt-snapshot/1 manifest (${first}); the snapshot is damaged.`,
    );
  }
  for (const entry of parsed.data.files) {
    try {
      resolveInside(dir, entry.path);
    } catch (error) {
      if (error instanceof PathEscapeError) {
        throw new NotASnapshotError(
          `${file} lists a path outside the snapshot: ${JSON.stringify(entry.path)}.`,
        );
      }
      throw error;
    }
  }
  return parsed.data;
}

/** Every non-directory entry below `dir` as a relative POSIX path, without the manifest itself. */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.isDirectory()) continue;
    const relative = path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/');
    if (relative !== MANIFEST_FILE) files.push(relative);
  }
  return files.sort();
}

/**
 * Verifies the snapshot in `dir`. Throws NotASnapshotError when there is nothing to verify against;
 * otherwise returns every difference found (never stops at the first).
 */
export async function verifySnapshot(dir: string, options: VerifyOptions = {}): Promise<VerifyResult> {
  const { signal } = options;
  signal?.throwIfAborted();
  // Before the first stat: a digest is recorded only for a file whose ctime is settled before this.
  const startedAtMs = Date.now();
  const root = path.resolve(dir);
  const manifest = await readManifest(root);
  const onDisk = new Set(await listFiles(root));
  const listed = new Set<string>();
  const missing: string[] = [];
  const modified: ModifiedFile[] = [];
  let reused = 0;

  // Stat every listed file first, then hash the regular ones together (on every core).
  const toHash: { entry: (typeof manifest.files)[number]; file: string; identity: FileIdentity }[] = [];
  for (const entry of manifest.files) {
    signal?.throwIfAborted();
    listed.add(entry.path);
    const file = resolveInside(root, entry.path);
    const stats = await lstat(file, { bigint: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
      throw error;
    });
    if (!stats) {
      missing.push(entry.path);
    } else if (!stats.isFile()) {
      modified.push({
        path: entry.path,
        expectedSha256: entry.sha256,
        expectedBytes: entry.bytes,
        actualSha256: null,
        actualBytes: null,
        reason: 'not_a_file',
      });
    } else {
      const identity = identityOf(stats);
      const known = options.known?.get(identity);
      // Only a known digest equal to the listed one stands in for reading; anything else is read.
      if (known && known.sha256 === entry.sha256 && known.bytes === entry.bytes) reused++;
      else if (options.held?.has(entry.path) && stats.size === BigInt(entry.bytes)) reused++;
      else toHash.push({ entry, file, identity });
    }
  }
  const digests = await hashFiles(
    toHash.map((f) => f.file),
    { totalBytes: toHash.reduce((sum, f) => sum + Number(f.identity.size), 0), signal },
  );
  const hashed: HashedFile[] = [];
  for (const [i, { entry, file, identity }] of toHash.entries()) {
    signal?.throwIfAborted();
    const digest = digests[i];
    if (!options.known || digest?.sha256 !== entry.sha256 || digest.bytes !== entry.bytes) continue;
    // Unchanged from before the read to after it, and settled: the digest is this identity's.
    const after = await lstat(file, { bigint: true }).catch(() => undefined);
    if (after && sameIdentity(identity, identityOf(after)) && settledBefore(identity, startedAtMs))
      hashed.push({ path: entry.path, identity, digest });
  }
  toHash.forEach(({ entry }, i) => {
    const digest = digests[i];
    const base = { path: entry.path, expectedSha256: entry.sha256, expectedBytes: entry.bytes };
    if (!digest) {
      missing.push(entry.path);
    } else if (digest.sha256 !== entry.sha256 || digest.bytes !== entry.bytes) {
      modified.push({ ...base, actualSha256: digest.sha256, actualBytes: digest.bytes, reason: 'content' });
    }
  });
  const extra = [...onDisk].filter((file) => !listed.has(file)).sort();
  const actualRoot = computeRootHash(manifest.files);
  const rootHash = {
    expected: manifest.root_sha256,
    actual: actualRoot,
    ok: actualRoot === manifest.root_sha256,
  };
  missing.sort();
  modified.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    ok: missing.length === 0 && extra.length === 0 && modified.length === 0 && rootHash.ok,
    dir: root,
    snapshotId: manifest.snapshot_id,
    status: manifest.status,
    files: manifest.files.length,
    missing,
    extra,
    modified,
    rootHash,
    manifest,
    reused,
    hashed,
  };
}
