/**
 * Filesystem-safe path segments from API data (project slugs, assessment and finding ids) and from
 * user input (org, workspace). The service controls these strings, so a slug like `../../etc` must
 * never leave the snapshot directory, and two different strings must never map to the same file.
 *
 * Rule: a segment made only of `[a-z0-9._-]` (not starting or ending with a dot, no `..`, not a
 * Windows device name, short enough) is kept as is. Anything else is rewritten to that alphabet and gets `~` plus a hash
 * of the original. `~` never survives in a kept segment, so a rewritten name cannot collide with a
 * kept one, and two rewritten names collide only if their hashes do.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';

/** Longest segment we produce, well under the 255-byte limit of common filesystems. */
export const MAX_SEGMENT_LENGTH = 96;
const HASH_LENGTH = 12;
const KEPT = /^[a-z0-9_-][a-z0-9._-]*$/;
// Windows refuses these names (with any extension); snapshots are copied to auditors' machines.
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/;

/**
 * Turns any string into one safe directory or file name (without extension). Deterministic: the same
 * input always gives the same name.
 */
export function safeSegment(raw: string): string {
  const kept =
    raw.length <= MAX_SEGMENT_LENGTH &&
    KEPT.test(raw) &&
    !raw.includes('..') &&
    !raw.endsWith('.') &&
    !WINDOWS_DEVICE.test(raw);
  if (kept) {
    return raw;
  }
  const readable = raw
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '_')
    .replace(/\.{2,}/g, '.')
    .replace(/^[.]+/, '')
    .replace(/[.]+$/, '')
    .slice(0, MAX_SEGMENT_LENGTH - HASH_LENGTH - 1);
  const hash = createHash('sha256').update(raw, 'utf8').digest('hex').slice(0, HASH_LENGTH);
  return `${readable || 'x'}~${hash}`;
}

/** Thrown when a computed path would leave its root: a bug or hostile input, never silently allowed. */
export class PathEscapeError extends Error {
  override readonly name = 'PathEscapeError';
  constructor(
    readonly root: string,
    readonly relative: string,
  ) {
    super(`Refusing to write outside ${root}: ${JSON.stringify(relative)}`);
  }
}

/**
 * Resolves a relative POSIX path inside `root` and proves it stays inside: defence in depth behind
 * `safeSegment`, and the check `verify` uses on paths read from a manifest.
 */
export function resolveInside(root: string, relative: string): string {
  const base = path.resolve(root);
  if (relative.includes('\0') || path.isAbsolute(relative) || relative.split(/[\\/]/).includes('..')) {
    throw new PathEscapeError(base, relative);
  }
  const resolved = path.resolve(base, relative);
  if (resolved !== base && !resolved.startsWith(base + path.sep)) throw new PathEscapeError(base, relative);
  return resolved;
}
