/**
 * How a run takes bytes from the previous snapshot (`--since`): link when the previous file is as
 * its manifest says, copy (hash-checked) where a link is impossible, and nothing when the previous
 * file is gone or damaged (the caller fetches). Also: a fetched body byte-identical to the previous
 * snapshot's file at the same path is replaced by a link to it, so unchanged pages cost no disk.
 */
import { VERSION } from '../version.js';
import { copyFileVerified, hashFile, type FileDigest } from './hash-file.js';
import { linkAtomic, unchangedSincePublished, type LinkFunction } from './link-file.js';
import type { ManifestFile } from './manifest.js';
import { previousFileAt, type PreviousSnapshot } from './since.js';

/** What validation found in a file (check-body.ts), as the manifest records it. */
export type Validation = Pick<ManifestFile, 'records' | 'issues' | 'issues_total' | 'unknown_keys'>;

export interface Shared {
  digest: FileDigest;
  stored: 'linked' | 'copied';
  /** PREV's validation of the same bytes, when this airt-report version made it (no re-read needed). */
  validation: Validation | undefined;
}

/** PREV's validation results for `entry`, reusable only when the same version of the checks made them. */
function validationOf(previous: PreviousSnapshot, entry: ManifestFile): Validation | undefined {
  if (previous.toolVersion !== VERSION) return undefined;
  const { records, issues, issues_total, unknown_keys } = entry;
  return { records, issues, issues_total, unknown_keys };
}

/**
 * True when PREV's file can be shared as listed: the cheap stat check (its listed size, not modified
 * since PREV was published), else a full hash.
 */
async function vouchedFor(previous: PreviousSnapshot, entry: ManifestFile, source: string): Promise<boolean> {
  if (await unchangedSincePublished(source, entry.bytes, previous.publishedAtMs)) return true;
  const digest = await hashFile(source).catch(() => undefined);
  return digest !== undefined && digest.sha256 === entry.sha256 && digest.bytes === entry.bytes;
}

/**
 * Puts PREV's file `reuse` at `target`: a hard link, or a verified copy where linking is impossible.
 * Undefined when PREV's file is missing or no longer has the listed bytes (fetch it instead).
 */
export async function shareFromPrevious(
  previous: PreviousSnapshot,
  reuse: { file: ManifestFile; source: string },
  target: string,
  link?: LinkFunction,
): Promise<Shared | undefined> {
  const { file: entry, source } = reuse;
  if (!(await vouchedFor(previous, entry, source))) return undefined;
  const outcome = await linkAtomic(source, target, link);
  if (outcome === 'missing') return undefined;
  const validation = validationOf(previous, entry);
  if (outcome === 'linked') {
    return { digest: { sha256: entry.sha256, bytes: entry.bytes }, stored: 'linked', validation };
  }
  const digest = await copyFileVerified(source, target, entry.sha256, { syncDir: false, syncFile: false });
  return digest ? { digest, stored: 'copied', validation } : undefined;
}

/**
 * After a fetch: when PREV holds the same bytes at the same path, makes `target` a link to PREV's
 * file (the fetched temp file is then dropped by the caller). Returns PREV's validation of those bytes
 * when linked; false when the fetched file stays as it is.
 */
export async function linkIdenticalPrevious(
  previous: PreviousSnapshot | undefined,
  relative: string,
  digest: FileDigest,
  target: string,
  link?: LinkFunction,
): Promise<{ validation: Validation | undefined } | false> {
  const known = previous ? previousFileAt(previous, relative) : undefined;
  if (!previous || !known) return false;
  if (known.file.sha256 !== digest.sha256 || known.file.bytes !== digest.bytes) return false;
  // PREV's file is read only when it was modified since PREV was published: reading as much as was
  // just received costs less than storing it twice.
  if (!(await vouchedFor(previous, known.file, known.source))) return false;
  if ((await linkAtomic(known.source, target, link)) !== 'linked') return false;
  return { validation: validationOf(previous, known.file) };
}
