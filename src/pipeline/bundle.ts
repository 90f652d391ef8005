/**
 * The audit bundle: one zip per run holding the reports, the snapshot's manifest.json (optionally the
 * whole snapshot), the gate report and diff, a `SHA256SUMS` file in `sha256sum` format and a README
 * on how to check it. Deterministic: entries sorted by name, one fixed timestamp, fixed compression
 * level, no host-specific attributes — the same inputs give the same bytes.
 *
 * Files are streamed (hashed in a first pass, compressed in a second) so bundling a large snapshot
 * does not hold it in memory; a file that changes between the passes aborts the bundle.
 *
 *   verify the snapshot dir ─▶ plan entries (hash) ─▶ zip to a temp file ─▶ verifyBundle on it
 *     ─▶ rename over the target (output-file.ts commit) ─▶ signature beside it
 *
 * Only a bundle its own `verify BUNDLE.zip` accepts is published; otherwise nothing is left behind.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Zip, ZipDeflate } from 'fflate';
import { CliError, WordedError, wordsFlags } from '../errors.js';
import { checkOutputFile, openOutputFile, writeOutputFile, type OutputFile } from '../output-file.js';
import type { SigningKey } from '../signing/ssh-keys.js';
import { signSshsig } from '../signing/sshsig.js';
import { MANIFEST_FILE, computeRootHash, type Manifest } from '../snapshot/manifest.js';
import { handedOverVerification } from '../snapshot/handed-over-verification.js';
import { hashFile, type FileDigest } from '../snapshot/hash-file.js';
import { resolveInside } from '../snapshot/safe-path.js';
import { readManifest, verifySnapshot, type VerifyResult } from '../snapshot/verify.js';
import { terminalSafe } from '../text-safety.js';
import { VERSION } from '../version.js';
import { BUNDLE_SIGNATURE_NAMESPACE, SIGNATURE_ENTRY, signatureSidecarPath } from './bundle-signature.js';
import { assertSafeZipEntryName } from './zip-entry-name.js';

export const CHECKSUMS_ENTRY = 'SHA256SUMS';
export const README_ENTRY = 'README.txt';
export const BUNDLE_MANIFEST_ENTRY = MANIFEST_FILE;
/** Prefix of the snapshot's data files when the whole snapshot is bundled. */
export const BUNDLE_SNAPSHOT_PREFIX = 'snapshot/';

// DOS timestamps are local time: built from local fields so every time zone writes the same bytes.
const FIXED_MTIME = new Date(1980, 0, 1, 0, 0, 0);
const DEFLATE_LEVEL = 6;

/** A file to put in the bundle under `name` (a relative POSIX path inside the zip). */
export interface BundleFile {
  name: string;
  path: string;
}

/** What writeBundle puts in an evidence bundle and where. */
export interface WriteBundleOptions {
  /** Path of the zip to write (its directory must exist; written to a temp file, then renamed). */
  out: string;
  /** The finished snapshot directory; its manifest.json always goes in. */
  snapshotDir: string;
  /** Also bundle every data file of the snapshot, under `snapshot/`. */
  includeSnapshot: boolean;
  /** Reports, gate report, diff, … */
  files: readonly BundleFile[];
  /** Stops writing between chunks; the half-written zip is removed. */
  signal?: AbortSignal | undefined;
  /** Signs SHA256SUMS (SSH signature, see bundle-signature.ts); unsigned when absent. */
  signingKey?: SigningKey | undefined;
  /**
   * The caller's own verification of `snapshotDir` (`run`'s verify step): taken when it passed and
   * its manifest is the one on disk now, so a nightly run does not hash its whole snapshot again.
   */
  verified?: VerifyResult | undefined;
}

/** The evidence bundle written: its path, sha256, size, entries and the snapshot it covers. */
export interface BundleResult {
  path: string;
  /** sha256 of the zip itself, for the run summary. */
  sha256: string;
  bytes: number;
  /** Entry names in zip order. */
  entries: string[];
  snapshot_id: string;
  root_sha256: string;
  /** `<bundle>.zip.sig`, or null for an unsigned bundle. */
  signature_path: string | null;
  /** `SHA256:…` of the signing key, or null. */
  signing_key: string | null;
}

interface PlannedEntry {
  name: string;
  /** On-disk source, or in-memory bytes for generated entries. */
  source: { path: string } | { bytes: Uint8Array };
  sha256: string;
}

/**
 * Writes the bundle; throws CliError naming the file when an input is missing or changes meanwhile.
 * Refuses a snapshot directory that does not match its manifest, and a bundle that `verifyBundle`
 * would reject (BundleCheckError: a report of another snapshot or of an unverified load, …): the
 * bundle is written beside the target and renamed into place only once it passes.
 */
export async function writeBundle(options: WriteBundleOptions): Promise<BundleResult> {
  const manifestPath = path.join(options.snapshotDir, MANIFEST_FILE);
  const manifest = await verifiedManifest(options.snapshotDir, options.signal, options.verified);
  const inputs: BundleFile[] = [{ name: BUNDLE_MANIFEST_ENTRY, path: manifestPath }, ...options.files];
  if (options.includeSnapshot) {
    for (const file of manifest.files) {
      inputs.push({
        name: `${BUNDLE_SNAPSHOT_PREFIX}${file.path}`,
        path: resolveInside(options.snapshotDir, file.path),
      });
    }
  }
  const planned: PlannedEntry[] = [];
  const seen = new Set<string>([CHECKSUMS_ENTRY, README_ENTRY, SIGNATURE_ENTRY]);
  for (const input of inputs) {
    assertSafeZipEntryName(input.name);
    if (seen.has(input.name)) throw new CliError(`Two bundle files share the name ${input.name}.`);
    seen.add(input.name);
    planned.push({ name: input.name, source: { path: input.path }, sha256: await hashInput(input.path) });
  }
  const readme = new TextEncoder().encode(
    bundleReadme(manifest, options.includeSnapshot, options.signingKey?.fingerprint ?? null),
  );
  planned.push({ name: README_ENTRY, source: { bytes: readme }, sha256: sha256Hex(readme) });
  planned.sort((a, b) => compareNames(a.name, b.name));
  const sums = new TextEncoder().encode(planned.map((entry) => `${entry.sha256}  ${entry.name}\n`).join(''));
  planned.push({ name: CHECKSUMS_ENTRY, source: { bytes: sums }, sha256: sha256Hex(sums) });
  const signature =
    options.signingKey === undefined
      ? null
      : signSshsig(sums, options.signingKey, BUNDLE_SIGNATURE_NAMESPACE);
  if (signature !== null) {
    const bytes = new TextEncoder().encode(signature);
    planned.push({ name: SIGNATURE_ENTRY, source: { bytes }, sha256: sha256Hex(bytes) });
  }
  planned.sort((a, b) => compareNames(a.name, b.name));

  // Checked before anything is compressed; the shared helper refuses FIFOs, devices, links, system paths.
  await checkOutputFile(options.out);
  // Checked as `verify BUNDLE.zip` checks it before it is renamed into place: published only if it
  // passes (else the temp file is removed and an existing bundle stays as it was).
  const zipFile = await openOutputFile(options.out, { signal: options.signal });
  let zipped: FileDigest | undefined;
  try {
    await writeZip(zipFile, planned);
    await zipFile.commit(async (written) => {
      await refuseFailingBundle(written, options.out, options.signal);
      // Streamed like the inputs: a bundle holding a whole snapshot may be large.
      zipped = await hashFile(written);
    });
  } finally {
    await zipFile.discard();
  }
  // Beside the zip for ssh-keygen; written after it, so a stop in between leaves a signature that
  // differs from the one inside, which verify reports. An unsigned bundle removes a stale one.
  const sidecar = signatureSidecarPath(options.out);
  if (signature !== null) await writeOutputFile(sidecar, signature, { signal: options.signal });
  else await rm(sidecar, { force: true });
  if (zipped === undefined) throw new CliError(`${options.out} was written but is missing.`);
  return {
    path: options.out,
    sha256: zipped.sha256,
    bytes: zipped.bytes,
    entries: planned.map((entry) => entry.name),
    snapshot_id: manifest.snapshot_id,
    root_sha256: manifest.root_sha256,
    signature_path: signature === null ? null : sidecar,
    signing_key: options.signingKey?.fingerprint ?? null,
  };
}

/** Lists the regular files under `dir` as bundle files named `<prefix><relative path>`, sorted. */
export async function collectBundleFiles(dir: string, prefix: string): Promise<BundleFile[]> {
  const files: BundleFile[] = [];
  const walk = async (current: string, relative: string): Promise<void> => {
    const names = (await readdir(current)).sort(compareNames);
    for (const name of names) {
      const full = path.join(current, name);
      const stat = await lstat(full);
      // Symlinks are skipped: a bundle holds what the run wrote, never what a link points at.
      if (stat.isDirectory()) await walk(full, `${relative}${name}/`);
      else if (stat.isFile()) files.push({ name: `${prefix}${relative}${name}`, path: full });
    }
  };
  await walk(dir, '');
  return files;
}

async function writeZip(file: OutputFile, entries: readonly PlannedEntry[]): Promise<void> {
  // fflate's callbacks run synchronously inside push()/end(); the chunks they produce are queued and
  // written (asynchronously, so a stop signal is seen) after each push, which keeps memory bounded.
  const pending: Uint8Array[] = [];
  const outcome: { failure: Error | null } = { failure: null };
  const flush = async (): Promise<void> => {
    if (outcome.failure) throw outcome.failure;
    for (const chunk of pending.splice(0)) await file.write(chunk);
  };
  const zip = new Zip((error, chunk) => {
    if (error) outcome.failure = error;
    else pending.push(chunk);
  });
  for (const entry of entries) {
    const stream = new ZipDeflate(entry.name, { level: DEFLATE_LEVEL });
    stream.mtime = FIXED_MTIME;
    zip.add(stream);
    if ('bytes' in entry.source) {
      stream.push(entry.source.bytes, true);
      await flush();
      continue;
    }
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(entry.source.path)) {
      const bytes = chunk as Buffer;
      hash.update(bytes);
      stream.push(bytes);
      await flush();
    }
    stream.push(new Uint8Array(0), true);
    await flush();
    if (hash.digest('hex') !== entry.sha256) {
      throw new CliError(
        `${entry.source.path} changed while the bundle was being written; run the bundle again.`,
      );
    }
  }
  zip.end();
  await flush();
}

/** Differences named when a snapshot does not verify; the rest are counted. */
const DIFFERENCES_SHOWN = 3;

/**
 * The snapshot's manifest, once verifySnapshot found every file as it lists (readManifest says what to
 * do when there is none). A bundle vouches for the snapshot by its root hash, so a snapshot whose
 * files differ (one a forced load accepted) is refused, naming the first differences.
 */
async function verifiedManifest(
  snapshotDir: string,
  signal: AbortSignal | undefined,
  given: VerifyResult | undefined,
): Promise<Manifest> {
  if (given?.ok === true) {
    const onDisk = await readManifest(snapshotDir);
    // The bundle ships this manifest file as it is on disk: its file list must give its root hash too.
    if (
      handedOverVerification(given, onDisk) !== undefined &&
      computeRootHash(onDisk.files) === onDisk.root_sha256
    )
      return onDisk;
  }
  const result = await verifySnapshot(snapshotDir, { signal });
  if (result.ok) return result.manifest;
  const differences = [
    ...result.modified.map((file) => `${file.path} modified`),
    ...result.missing.map((file) => `${file} missing`),
    ...result.extra.map((file) => `${file} not in the manifest`),
    ...(result.rootHash.ok ? [] : [`${MANIFEST_FILE} root_sha256 does not match its file list`]),
  ];
  const shown = differences.slice(0, DIFFERENCES_SHOWN).map((difference) => terminalSafe(difference));
  if (differences.length > DIFFERENCES_SHOWN) shown.push(`${differences.length - DIFFERENCES_SHOWN} more`);
  const dir = terminalSafe(snapshotDir);
  throw new WordedError(
    (name) =>
      `Cannot bundle ${dir}: the snapshot does not match its manifest (${shown.join(', ')}); ` +
      (wordsFlags(name)
        ? `airt-report verify ${dir} lists every difference.`
        : 'verifySnapshot lists every difference.'),
  );
}

/** `verify BUNDLE.zip` would reject the bundle written: its problems, one per line. */
export class BundleCheckError extends CliError {
  override readonly name = 'BundleCheckError';
  constructor(
    readonly out: string,
    readonly problems: readonly string[],
  ) {
    super(
      `Cannot bundle: ${terminalSafe(out)} would fail its own verification, so it was not written ` +
        `(${problems.length} problem(s)):\n${problems.map((problem) => `  ${terminalSafe(problem)}`).join('\n')}`,
    );
  }
}

/** Runs verifyBundle on the staged zip; throws BundleCheckError listing its problems when it fails. */
async function refuseFailingBundle(
  staged: string,
  out: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  // Imported when needed: verify-bundle.ts imports the entry names from here (no static cycle).
  const { verifyBundle } = await import('./verify-bundle.js');
  const verification = await verifyBundle(staged, { signal });
  // Problems name entries, never the temp file; the target's name is the one the user knows.
  if (!verification.ok) throw new BundleCheckError(out, verification.problems);
}

async function hashInput(file: string): Promise<string> {
  let digest: FileDigest | undefined;
  try {
    digest = await hashFile(file);
  } catch (error) {
    throw new CliError(`Cannot bundle ${file}: ${(error as Error).message}`);
  }
  if (digest === undefined) throw new CliError(`Cannot bundle ${file}: it does not exist.`);
  return digest.sha256;
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Byte order of the names (what `LC_ALL=C sort` gives), independent of locale. */
function compareNames(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function bundleReadme(manifest: Manifest, includeSnapshot: boolean, signingKey: string | null): string {
  return [
    'airt-report audit bundle',
    '========================',
    '',
    `Snapshot:        ${manifest.snapshot_id} (${manifest.org}/${manifest.workspace}, status ${manifest.status})`,
    `Root hash:       ${manifest.root_sha256}`,
    `Written by:      airt-report ${VERSION}`,
    '',
    'Contents',
    '  manifest.json     the snapshot manifest: every data file with its sha256, size and request',
    '  reports/          the reports; each names the snapshot root hash (HTML/MD: provenance footer; JSON, OSCAL: their own fields)',
    '  gate-report.*     the CI gates of the run, with the rows behind any tripped gate (if present)',
    '  diff.*            changes since the previous snapshot (if present)',
    includeSnapshot
      ? '  snapshot/         every data file of the snapshot, byte for byte as received'
      : '  (the snapshot data files are not included; ask for them, or for a bundle made with include_snapshot)',
    '  SHA256SUMS        sha256 of every other file in this bundle',
    ...(signingKey === null
      ? []
      : [
          `  SHA256SUMS.sig    SSH signature of SHA256SUMS (namespace airt-report, key ${signingKey});`,
          '                    also beside the bundle as <bundle>.zip.sig',
        ]),
    '',
    'How to verify',
    '  1. With airt-report (checks everything below at once):',
    '       airt-report verify THIS_BUNDLE.zip',
    '  2. With standard tools, after unzipping:',
    '       sha256sum -c SHA256SUMS                 (Linux)',
    '       shasum -a 256 -c SHA256SUMS             (macOS)',
    '     The root hash is the sha256 of the lines "<sha256>  <path>" of manifest.json\'s files,',
    '     sorted by path:',
    '       jq -r \'.files | sort_by(.path) | .[] | "\\(.sha256)  \\(.path)"\' manifest.json | sha256sum',
    '     It must equal root_sha256 in manifest.json and the root hash printed in each report.',
    ...(signingKey === null
      ? []
      : [
          '  3. The signature (who vouches for SHA256SUMS, and so for every file), with OpenSSH alone;',
          '     allowed_signers holds the line "ID ssh-ed25519 AAAA…" of the signer\'s public key:',
          '       ssh-keygen -Y verify -f allowed_signers -I ID -n airt-report -s SHA256SUMS.sig < SHA256SUMS',
        ]),
    includeSnapshot
      ? '       (cd snapshot && jq -r \'.files[] | "\\(.sha256)  \\(.path)"\' ../manifest.json | sha256sum -c)'
      : '',
    '',
  ]
    .filter((line, index, lines) => line !== '' || lines[index - 1] !== '')
    .join('\n');
}
