/**
 * Zip entry names are paths an unzip tool will create on someone else's machine. On write and on read
 * we accept only relative POSIX paths of plain segments: no `..`, no absolute or drive paths, no
 * backslashes, no control, bidi or invisible characters — so a bundle can never place a file outside where it is
 * unpacked ("zip slip"), whoever built it.
 */
import { hasUnsafeCharacter } from '../text-safety.js';

/** Longest entry name accepted; well below the 65,535-byte field and common filesystem limits. */
const MAX_NAME_LENGTH = 1024;

/** Why a name is unsafe, or null when it is fine. */
export function zipEntryNameProblem(name: string): string | null {
  if (name.length === 0) return 'empty name';
  if (name.length > MAX_NAME_LENGTH) return 'name too long';
  // The text-safety set: C0/C1 controls, bidi overrides (a reversed `exe.pdf`), zero-width characters.
  if (hasUnsafeCharacter(name)) return 'control, bidi or invisible character in name';
  if (name.includes('\\')) return 'backslash in name';
  if (name.startsWith('/')) return 'absolute path';
  if (/^[A-Za-z]:/u.test(name)) return 'drive letter';
  const segments = name.split('/');
  if (segments.some((segment) => segment === '..')) return 'parent-directory segment (..)';
  if (segments.some((segment) => segment === '' || segment === '.')) return 'empty or "." segment';
  return null;
}

/**
 * A directory entry: a name ending in '/'. `zip -r` writes one for every folder, so a bundle that was
 * unzipped and re-zipped has them; they carry no data, and only the checksummed files matter.
 */
export function isZipDirectoryName(name: string): boolean {
  return name.endsWith('/');
}

/**
 * Why a directory entry's name is unsafe, or null. The path without its trailing '/' must be a safe
 * entry name, so `../`, `/` and `/tmp/` are refused like `../x` and `/x` are.
 */
export function zipDirectoryNameProblem(name: string): string | null {
  const folder = name.slice(0, -1);
  return folder === '' ? 'absolute path' : zipEntryNameProblem(folder);
}

/** Returns the name when safe; throws otherwise (a bug or hostile input, never silently rewritten). */
export function assertSafeZipEntryName(name: string): string {
  const problem = zipEntryNameProblem(name);
  if (problem !== null) throw new Error(`Refusing zip entry name ${JSON.stringify(name)}: ${problem}`);
  return name;
}
