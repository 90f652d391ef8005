/**
 * `airt-report verify BUNDLE.zip`: re-checks an audit bundle without unpacking it to disk.
 *
 *   entry names safe and unique, local headers = central directory; directory entries (`reports/`,
 *     written by `zip -r` when a bundle is unzipped and re-zipped) hold no data and are set aside
 *   → every entry's sha256 = its SHA256SUMS line, and every entry listed
 *   → manifest.json valid, root_sha256 = hash of its file list
 *   → bundled snapshot files (if any) = the manifest's hashes
 *   → every Markdown/HTML report names that root hash, and so does every JSON report and OSCAL
 *     document (their snapshots, report-provenance.ts; other JSON, as charts' specs, names none);
 *     the gate report and the diff (JSON and Markdown) name the manifest's snapshot id and root hash
 *   → no report carries the warning of a snapshot loaded unverified (forced): it names the genuine
 *     root hash, but its figures come from files that do not match it. Markdown, HTML and JSON are
 *     searched for the banner (an OSCAL document for its `snapshot-verified: false` prop); a PDF's
 *     text is compressed, so its document information is read for the /Subject that marks it
 *     (unverified-banner.ts), and a PDF whose structure cannot be read fails
 *
 *   → the signature (SHA256SUMS.sig inside, or <bundle>.zip.sig beside it) over SHA256SUMS, and with
 *     --allowed-signers whether its key is one of them (bundle-signature.ts)
 *
 * Any difference is a problem and the bundle fails; a hash mismatch names the expected and the
 * actual sha256. A PDF's root hash is covered by its checksum only (its text is not searched), which
 * the result states as a note. A bundle rewritten consistently (files, SHA256SUMS and manifest) would
 * pass, so the text result also asks to compare the root hash with the one recorded at bundling time.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readFile } from 'node:fs/promises';
import { Unzip, UnzipInflate, type UnzipFile } from 'fflate';
import { ManifestSchema, computeRootHash, type Manifest } from '../snapshot/manifest.js';
import { findProvenanceLine, provenanceLine } from '../snapshot/provenance-line.js';
import { PdfSyntaxError } from '../report/pdf-syntax.js';
import {
  pdfMarkedUnverified,
  reportMarkedUnverified,
  UNVERIFIED_BANNER_LEAD,
} from '../report/unverified-banner.js';
import { BUNDLE_MANIFEST_ENTRY, BUNDLE_SNAPSHOT_PREFIX, CHECKSUMS_ENTRY } from './bundle.js';
import {
  checkBundleSignature,
  SIGNATURE_ENTRY,
  signatureSidecarPath,
  type AllowedSignersFile,
  type SignatureCheck,
} from './bundle-signature.js';
import { stampedFiguresSource } from '../report/figures-source.js';
import { namesRootHash, readReportProvenance, type NamedSnapshot } from './report-provenance.js';
import { readCentralDirectoryNames } from './zip-central-directory.js';
import { isZipDirectoryName, zipDirectoryNameProblem, zipEntryNameProblem } from './zip-entry-name.js';
import { pluralWord } from '../number-format.js';
import { terminalSafe } from '../text-safety.js';

/** Text entries larger than this are hashed but not searched for provenance (a report is far smaller). */
const MAX_TEXT_BYTES = 64 * 1024 * 1024;

/** verifyBundle's answer: whether every file matches its recorded hash, and what does not. */
export interface BundleVerification {
  ok: boolean;
  bundle: string;
  snapshot_id: string | null;
  root_sha256: string | null;
  /** File entries (directory entries not counted). */
  entries: number;
  /** Directory entries (names ending in '/', no data), ignored. */
  directories: number;
  /** Entries whose checksum matched. */
  checked: number;
  /** Reports whose printed root hash matched the manifest. */
  provenance_checked: string[];
  problems: string[];
  notes: string[];
  /** The signature over SHA256SUMS: unsigned, verified (with its signer), bad, unknown signer, not checked. */
  signature: SignatureCheck;
}

export interface VerifyBundleOptions {
  /** Keys allowed to sign (`--allowed-signers`); with it an unsigned bundle fails. */
  allowedSigners?: AllowedSignersFile | null;
  /** Time the allowed signers' valid-after/valid-before are checked at; default now. */
  now?: Date;
  /**
   * Aborting stops reading the bundle between two chunks of it (a bundle holding a big snapshot file
   * stops at once too); verifyBundle then rejects with the signal's reason, giving no verdict.
   */
  signal?: AbortSignal | undefined;
}

interface EntryDigest {
  sha256: string;
  /** A text entry as UTF-8, a PDF byte for byte as latin1 (see pdf-syntax.ts); null otherwise or too large. */
  text: string | null;
}

/** What the local headers hold: file entries with their digests, and directory entries by name. */
interface ZipContents {
  files: Map<string, EntryDigest>;
  directories: Set<string>;
}

/** Verifies a bundle; never throws for a bad bundle (problems are listed), only for an unreadable file. */
export async function verifyBundle(
  bundlePath: string,
  options: VerifyBundleOptions = {},
): Promise<BundleVerification> {
  const result: BundleVerification = {
    ok: false,
    bundle: bundlePath,
    snapshot_id: null,
    root_sha256: null,
    entries: 0,
    directories: 0,
    checked: 0,
    provenance_checked: [],
    problems: [],
    notes: [],
    signature: { status: 'unsigned', source: null, signer: null, key_fingerprint: null, detail: '' },
  };
  const problems = result.problems;
  options.signal?.throwIfAborted();
  const { files: digests, directories } = await readEntries(bundlePath, problems, options.signal);
  result.entries = digests.size;
  result.directories = directories.size;
  await compareCentralDirectory(bundlePath, [...digests.keys(), ...directories], problems);

  const sums = digests.get(CHECKSUMS_ENTRY);
  if (!sums || sums.text === null) {
    problems.push(`${CHECKSUMS_ENTRY} is missing: this is not an airt-report bundle, or it was stripped.`);
  } else {
    result.checked = checkSums(sums.text, digests, problems);
  }

  const manifest = readBundleManifest(digests.get(BUNDLE_MANIFEST_ENTRY), problems);
  if (manifest) {
    result.snapshot_id = manifest.snapshot_id;
    result.root_sha256 = manifest.root_sha256;
    checkSnapshotFiles(manifest, digests, problems);
    checkProvenance(manifest, digests, result);
  }
  const signature = checkBundleSignature({
    sums: sums?.text == null ? null : Buffer.from(sums.text, 'utf8'),
    inner: digests.get(SIGNATURE_ENTRY)?.text ?? null,
    beside: await readSidecar(signatureSidecarPath(bundlePath)),
    allowed: options.allowedSigners ?? null,
    now: options.now ?? new Date(),
  });
  result.signature = signature.check;
  problems.push(...signature.problems);
  for (const skipped of options.allowedSigners?.skipped ?? []) {
    result.notes.push(
      `${options.allowedSigners?.file ?? ''} line ${skipped.line} skipped: ${skipped.reason}`,
    );
  }
  result.ok = problems.length === 0;
  return result;
}

/** The signature file beside the bundle, if it is a regular file. */
async function readSidecar(file: string): Promise<string | null> {
  const stats = await lstat(file).catch(() => null);
  if (stats === null || !stats.isFile()) return null;
  return readFile(file, 'utf8');
}

async function readEntries(
  bundlePath: string,
  problems: string[],
  signal: AbortSignal | undefined,
): Promise<ZipContents> {
  const digests = new Map<string, EntryDigest>();
  const directories = new Set<string>();
  const unzip = new Unzip();
  unzip.register(UnzipInflate);
  unzip.onfile = (file) => {
    const unsafe = entryNameProblem(file.name);
    if (unsafe !== null) problems.push(`unsafe entry name ${JSON.stringify(file.name)}: ${unsafe}`);
    if (digests.has(file.name) || directories.has(file.name))
      problems.push(`entry ${JSON.stringify(file.name)} appears twice`);
    if (isZipDirectoryName(file.name)) {
      directories.add(file.name);
      readDirectoryEntry(file, problems);
      return;
    }
    const hash: Hash = createHash('sha256');
    const encoding = keptAs(file.name);
    const chunks: Uint8Array[] = [];
    let kept = 0;
    file.ondata = (error, data, final) => {
      if (error) {
        problems.push(`entry ${JSON.stringify(file.name)} cannot be decompressed: ${error.message}`);
        return;
      }
      hash.update(data);
      if (encoding !== null && kept <= MAX_TEXT_BYTES) {
        chunks.push(data);
        kept += data.length;
      }
      if (final) {
        const text =
          encoding !== null && kept <= MAX_TEXT_BYTES ? Buffer.concat(chunks).toString(encoding) : null;
        digests.set(file.name, { sha256: hash.digest('hex'), text });
      }
    };
    file.start();
  };
  const stream = createReadStream(bundlePath);
  try {
    for await (const chunk of stream) {
      signal?.throwIfAborted();
      unzip.push(chunk as Buffer);
    }
    unzip.push(new Uint8Array(0), true);
  } catch (error) {
    // Stopped: no verdict (and the file is closed: leaving the loop destroyed the stream).
    if (signal?.aborted) throw signal.reason;
    problems.push(`not a readable zip: ${(error as Error).message}`);
  }
  return { files: digests, directories };
}

/** A directory entry must be empty: data there is invisible to unzip tools, a place to hide things. */
function readDirectoryEntry(file: UnzipFile, problems: string[]): void {
  let bytes = 0;
  file.ondata = (error, data, final) => {
    if (error) {
      problems.push(`entry ${JSON.stringify(file.name)} cannot be decompressed: ${error.message}`);
      return;
    }
    bytes += data.length;
    if (final && bytes > 0)
      problems.push(`directory entry ${JSON.stringify(file.name)} holds ${bytes} bytes of data`);
  };
  file.start();
}

function entryNameProblem(name: string): string | null {
  return isZipDirectoryName(name) ? zipDirectoryNameProblem(name) : zipEntryNameProblem(name);
}

async function compareCentralDirectory(
  bundlePath: string,
  localNames: string[],
  problems: string[],
): Promise<void> {
  let central: string[];
  try {
    central = await readCentralDirectoryNames(bundlePath);
  } catch (error) {
    problems.push(`zip structure: ${(error as Error).message}`);
    return;
  }
  const local = new Set(localNames);
  for (const name of central) {
    if (!local.has(name))
      problems.push(`entry ${JSON.stringify(name)} is in the zip directory but has no data`);
    const unsafe = entryNameProblem(name);
    if (unsafe !== null && !local.has(name))
      problems.push(`unsafe entry name ${JSON.stringify(name)}: ${unsafe}`);
  }
  const centralSet = new Set(central);
  for (const name of localNames) {
    if (!centralSet.has(name))
      problems.push(`entry ${JSON.stringify(name)} is hidden from the zip directory`);
  }
}

/** Checks every SHA256SUMS line and that every entry is listed; returns how many matched. */
function checkSums(text: string, digests: ReadonlyMap<string, EntryDigest>, problems: string[]): number {
  const listed = new Set<string>();
  let matched = 0;
  text.split('\n').forEach((line, index) => {
    if (line === '') return;
    const match = /^([0-9a-f]{64}) [ *](.+)$/u.exec(line);
    if (!match) {
      problems.push(`${CHECKSUMS_ENTRY} line ${index + 1} is malformed`);
      return;
    }
    const [, expected = '', name = ''] = match;
    listed.add(name);
    const digest = digests.get(name);
    if (!digest) problems.push(`${name}: listed in ${CHECKSUMS_ENTRY} but missing from the bundle`);
    else if (digest.sha256 !== expected)
      problems.push(
        `${name}: modified (expected sha256 ${expected} from ${CHECKSUMS_ENTRY}, actual ${digest.sha256})`,
      );
    else matched += 1;
  });
  for (const name of digests.keys()) {
    // The signature signs SHA256SUMS, so it cannot be listed in it.
    if (name !== CHECKSUMS_ENTRY && name !== SIGNATURE_ENTRY && !listed.has(name))
      problems.push(`${name}: not listed in ${CHECKSUMS_ENTRY}`);
  }
  return matched;
}

function readBundleManifest(entry: EntryDigest | undefined, problems: string[]): Manifest | null {
  if (!entry || entry.text === null) {
    problems.push(`${BUNDLE_MANIFEST_ENTRY} is missing`);
    return null;
  }
  let json: unknown;
  try {
    json = JSON.parse(entry.text);
  } catch (error) {
    problems.push(`${BUNDLE_MANIFEST_ENTRY} is not valid JSON: ${(error as Error).message}`);
    return null;
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) {
    problems.push(`${BUNDLE_MANIFEST_ENTRY} is not a valid airt-snapshot/1 manifest`);
    return null;
  }
  const computed = computeRootHash(parsed.data.files);
  if (computed !== parsed.data.root_sha256) {
    problems.push(
      `${BUNDLE_MANIFEST_ENTRY}: root_sha256 does not match the hash of its file list (manifest modified): ` +
        `expected ${parsed.data.root_sha256}, actual ${computed}`,
    );
  }
  return parsed.data;
}

function checkSnapshotFiles(
  manifest: Manifest,
  digests: ReadonlyMap<string, EntryDigest>,
  problems: string[],
): void {
  const bundled = [...digests.keys()].filter((name) => name.startsWith(BUNDLE_SNAPSHOT_PREFIX));
  if (bundled.length === 0) return;
  const expected = new Map(
    manifest.files.map((file) => [`${BUNDLE_SNAPSHOT_PREFIX}${file.path}`, file.sha256]),
  );
  for (const [name, sha256] of expected) {
    const digest = digests.get(name);
    if (!digest) problems.push(`${name}: in the manifest but missing from the bundled snapshot`);
    else if (digest.sha256 !== sha256)
      problems.push(
        `${name}: differs from the manifest (expected sha256 ${sha256}, actual ${digest.sha256})`,
      );
  }
  for (const name of bundled) {
    if (!expected.has(name)) problems.push(`${name}: bundled with the snapshot but not in its manifest`);
  }
}

/** The files made from one snapshot that name it: gate report and diff, in both formats. */
const SNAPSHOT_NAMED_JSON = new Set(['gate-report.json', 'diff.json']);
const SNAPSHOT_NAMED_MARKDOWN = new Set(['gate-report.md', 'diff.md']);

function checkProvenance(
  manifest: Manifest,
  digests: ReadonlyMap<string, EntryDigest>,
  result: BundleVerification,
): void {
  const rootSha256 = manifest.root_sha256;
  const thisSnapshot = `this bundle's snapshot ${manifest.snapshot_id} (root ${rootSha256})`;
  for (const [name, digest] of [...digests.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (isPdf(name) && !name.startsWith(BUNDLE_SNAPSHOT_PREFIX)) {
      checkPdf(name, digest.text, result);
      continue;
    }
    if (SNAPSHOT_NAMED_JSON.has(name) || SNAPSHOT_NAMED_MARKDOWN.has(name)) {
      if (digest.text === null) {
        result.problems.push(`${name}: too large to check its provenance`);
        continue;
      }
      // A gate report measured on (or against) a forced load carries the reports' warning.
      if (reportMarkedUnverified(digest.text, SNAPSHOT_NAMED_JSON.has(name) ? 'json' : 'md')) {
        result.problems.push(madeFromUnverified(name, 'results'));
        continue;
      }
      const problem = SNAPSHOT_NAMED_JSON.has(name)
        ? jsonProvenanceProblem(name, digest.text, manifest)
        : markdownProvenanceProblem(digest.text, manifest);
      if (problem === null) result.provenance_checked.push(name);
      else result.problems.push(`${name}: ${problem}, not ${thisSnapshot}; bundle the files of one snapshot`);
      continue;
    }
    if (!name.startsWith('reports/')) continue;
    const format = reportFormat(name);
    if (format === null) continue;
    if (digest.text === null) {
      // JSON files (charts' specs) are not required to name the root hash, so one too large to read is let be.
      if (format !== 'json') result.problems.push(`${name}: too large to check its provenance`);
      continue;
    }
    // A report of a forced load names the genuine root hash, but its figures are not that snapshot's.
    if (reportMarkedUnverified(digest.text, format)) {
      result.problems.push(madeFromUnverified(name, 'reports'));
    } else if (format === 'json') {
      checkJsonReport(name, digest.text, rootSha256, result);
    } else {
      checkRenderedReport(name, digest.text, manifest, result);
    }
  }
}

/**
 * A Markdown or HTML report must stamp this snapshot, id and root hash, as its figures' source
 * (figures-source.ts): a portfolio of a later snapshot lists this one for its ASR trend, and passes no
 * longer. Every report airt-report renders now has the stamp; one without any was made before it
 * existed (or edited): its text naming the root hash is all that can be checked, and a note says so.
 */
function checkRenderedReport(
  name: string,
  text: string,
  manifest: Manifest,
  result: BundleVerification,
): void {
  const rootSha256 = manifest.root_sha256;
  const stamped = stampedFiguresSource(text);
  const sameRoot = stamped.filter((snapshot) => snapshot.rootSha256 === rootSha256);
  if (sameRoot.some((snapshot) => snapshot.snapshotId === manifest.snapshot_id)) {
    result.provenance_checked.push(name);
  } else if (sameRoot.length > 0) {
    // Two snapshots of unchanged data share a root hash; the report is still another night's.
    result.problems.push(
      `${name}: its figures come from snapshot ${clip(sameRoot[0]?.snapshotId ?? '')}, not this bundle's ` +
        `snapshot ${manifest.snapshot_id} (the same root hash ${rootSha256}); bundle the report of this snapshot`,
    );
  } else if (stamped.length > 0) {
    const named = stamped.map((s) => ({ snapshot_id: s.snapshotId, root_sha256: s.rootSha256 }));
    result.problems.push(doesNotNameRoot(name, rootSha256, namedSnapshots(named)));
  } else if (text.includes(rootSha256)) {
    result.provenance_checked.push(name);
    result.notes.push(
      `${name}: has no line naming the snapshot its figures come from (made by an airt-report before ` +
        'that line existed, or edited); only its text naming the root hash was checked',
    );
  } else {
    result.problems.push(doesNotNameRoot(name, rootSha256));
  }
}

/** The problem of a report whose provenance does not name the root hash, in every format. */
function doesNotNameRoot(name: string, rootSha256: string, names?: string): string {
  const problem = `${name}: its provenance does not name the manifest's root hash ${rootSha256}`;
  return names === undefined ? problem : `${problem}; ${names}`;
}

/**
 * A JSON report or OSCAL document (report-provenance.ts) must name the root hash, as a Markdown or
 * HTML report must; other JSON (charts' specs) names nothing and need not. JSON that does not parse
 * fails: which snapshot it comes from is unknown.
 */
function checkJsonReport(name: string, text: string, rootSha256: string, result: BundleVerification): void {
  const provenance = readReportProvenance(text);
  if (provenance.kind === 'other') return;
  if (provenance.kind === 'malformed') {
    result.problems.push(
      `${name}: is not valid JSON (${provenance.reason}), so which snapshot it was made from is ` +
        'unknown; bundle reports as airt-report wrote them',
    );
    return;
  }
  if (provenance.unverified) result.problems.push(madeFromUnverified(name, 'reports'));
  else if (namesRootHash(provenance, rootSha256)) result.provenance_checked.push(name);
  else result.problems.push(doesNotNameRoot(name, rootSha256, namedSnapshots(provenance.snapshots)));
}

/** What a report names instead, for the problem: `it names snapshot ID (root HEX), …`. */
function namedSnapshots(snapshots: readonly NamedSnapshot[]): string {
  if (snapshots.length === 0) return 'it names no snapshot';
  const shown = snapshots
    .slice(0, NAMED_SNAPSHOTS_SHOWN)
    .map((s) => `snapshot ${clip(s.snapshot_id ?? 'unknown')} (root ${clip(s.root_sha256 ?? 'unknown')})`);
  const more = snapshots.length - shown.length;
  return `it names ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/** Snapshots a report names that a problem lists; the rest are counted. */
const NAMED_SNAPSHOTS_SHOWN = 3;

/**
 * A PDF's text is compressed: the mark of a forced load's report is its /Subject (pdf.ts writes it,
 * whatever the template). A PDF this cannot read is a problem, since whether it has the mark is unknown.
 */
function checkPdf(name: string, pdf: string | null, result: BundleVerification): void {
  if (pdf === null) {
    result.problems.push(`${name}: too large to check its provenance`);
    return;
  }
  let marked: boolean;
  try {
    marked = pdfMarkedUnverified(pdf);
  } catch (error) {
    if (!(error instanceof PdfSyntaxError)) throw error;
    result.problems.push(
      `${name}: its document information cannot be read (${error.message}), so whether it was made ` +
        'from a forced load is unknown; bundle PDFs as airt-report printed them',
    );
    return;
  }
  if (marked) result.problems.push(madeFromUnverified(name, 'reports'));
  else result.notes.push(`${name}: PDF provenance (root hash) is covered by its checksum only`);
}

/** The problem of an entry that carries the forced-load warning (unverified-banner.ts). */
function madeFromUnverified(name: string, what: 'reports' | 'results'): string {
  return (
    `${name}: made from a snapshot that failed verification and was loaded forced (it carries the ` +
    `"${UNVERIFIED_BANNER_LEAD}" warning); bundle ${what} of a verified load`
  );
}

/**
 * The rendering a bundled report file is in, by its extension (an OSCAL document is JSON, whether
 * named `.json` or `.oscal`); null for charts' images and other files.
 */
function reportFormat(name: string): 'md' | 'html' | 'json' | null {
  if (/\.md$/iu.test(name)) return 'md';
  if (/\.html?$/iu.test(name)) return 'html';
  return /\.(json|oscal)$/iu.test(name) ? 'json' : null;
}

/**
 * Why a gate report or diff (JSON) is not from `manifest`'s snapshot, or null when it is. The gate
 * report names it at the top level, the diff as its `to` side.
 */
function jsonProvenanceProblem(name: string, text: string, manifest: Manifest): string | null {
  let holder: unknown;
  try {
    const value = JSON.parse(text) as unknown;
    holder = name === 'diff.json' ? (value as { to?: unknown } | null)?.to : value;
  } catch {
    holder = undefined;
  }
  const { snapshot_id: id, root_sha256: root } = (holder ?? {}) as Record<string, unknown>;
  if (typeof id !== 'string' || (typeof root !== 'string' && root !== null)) {
    return 'names no snapshot id and root hash (not a gate report or diff of airt-report)';
  }
  if (id === manifest.snapshot_id && root === manifest.root_sha256) return null;
  return `made from snapshot ${clip(id)} (root ${root === null ? 'unknown' : clip(root)})`;
}

/** Why a gate report or diff (Markdown) is not from `manifest`'s snapshot, or null when it is. */
function markdownProvenanceProblem(text: string, manifest: Manifest): string | null {
  const line = findProvenanceLine(text);
  if (line === null) return 'has no provenance line naming its snapshot';
  if (line === provenanceLine(manifest.snapshot_id, manifest.root_sha256)) return null;
  return `made from another snapshot (${clip(line)})`;
}

/** Text copied from an entry into a problem, cut short (it may be anything). */
function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function isTextEntry(name: string): boolean {
  return (
    name === CHECKSUMS_ENTRY ||
    name === SIGNATURE_ENTRY ||
    /\.(json|oscal|md|html?|txt)$/iu.test(name) ||
    name === BUNDLE_MANIFEST_ENTRY
  );
}

function isPdf(name: string): boolean {
  return /\.pdf$/iu.test(name);
}

/** How an entry's content is kept for checking: text as UTF-8, a PDF as latin1 (byte for byte), or not. */
function keptAs(name: string): 'utf8' | 'latin1' | null {
  if (isTextEntry(name)) return 'utf8';
  return isPdf(name) && !name.startsWith(BUNDLE_SNAPSHOT_PREFIX) ? 'latin1' : null;
}

/** The human-readable result of `airt-report verify BUNDLE.zip` (entry names are neutralized). */
export function bundleVerificationText(result: BundleVerification): string {
  const lines = [
    ...result.problems.map((problem) => `problem   ${show(problem)}`),
    ...result.notes.map((note) => `note      ${show(note)}`),
  ];
  if (result.directories > 0) {
    lines.push(`note      ${result.directories} directory entries ignored (they hold no data)`);
  }
  const head =
    `${show(result.bundle)}: ${result.entries} entries, ${result.checked} checksums matched, ` +
    `provenance matched in ${result.provenance_checked.length} ${pluralWord(result.provenance_checked.length, 'file', 'files')}`;
  lines.push(`signature ${signatureLine(result.signature)}`);
  lines.push(result.ok ? `${head}: OK` : `${head}: FAILED (${result.problems.length} problem(s))`);
  lines.push(rootHashAdvice(result));
  return `${lines.join('\n')}\n`;
}

function signatureLine(check: SignatureCheck): string {
  const key = check.key_fingerprint === null ? '' : ` (key ${check.key_fingerprint})`;
  switch (check.status) {
    case 'verified':
      return `VERIFIED: signed by ${show(check.signer ?? '?')}${key}`;
    case 'unsigned':
      return 'none: the bundle is unsigned';
    case 'not_checked':
      return `present${key}, signer not checked: ${show(check.detail)}`;
    case 'unknown_signer':
      return `NOT TRUSTED${key}: ${show(check.detail)}`;
    case 'bad_signature':
      return `BAD${key}: ${show(check.detail)}`;
  }
}

/** Entry names and messages can carry control, bidi and zero-width characters: shown visibly. */
const show = terminalSafe;

/**
 * The bundle checks itself: someone who rewrote every file, SHA256SUMS and the manifest consistently
 * would pass. The root hash recorded elsewhere when the bundle was made is the independent anchor.
 */
function rootHashAdvice(result: BundleVerification): string {
  if (result.root_sha256 === null) return 'root hash (unknown: no valid manifest.json)';
  if (result.signature.status === 'verified' && result.ok) {
    return (
      `root hash ${result.root_sha256} (snapshot ${show(result.snapshot_id ?? '?')}): vouched for by the signature ` +
      'over SHA256SUMS, which lists manifest.json'
    );
  }
  return (
    `root hash ${result.root_sha256} (snapshot ${show(result.snapshot_id ?? '?')}): compare it with the ` +
    "root hash recorded when the bundle was made (snapshot.root_sha256 in that run's run-summary.json, " +
    'or the line `airt-report bundle` printed); a match shows this is the snapshot that was bundled'
  );
}
