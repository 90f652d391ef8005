/**
 * Rewrites an audit bundle by other means than `bundle` (as someone holding it could), for the tests
 * of what `verify BUNDLE.zip` finds in it.
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { strToU8, unzipSync, zipSync } from 'fflate';

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Rewrites a bundle with `change` applied to its entries (optionally re-computing SHA256SUMS). */
export async function tamper(
  source: string,
  target: string,
  change: (entries: Record<string, Uint8Array>) => void,
  fixSums: boolean,
): Promise<string> {
  const entries = unzipSync(await readFile(source));
  change(entries);
  if (fixSums) {
    const names = Object.keys(entries)
      .filter((n) => n !== 'SHA256SUMS')
      .sort();
    entries.SHA256SUMS = strToU8(names.map((n) => `${sha256(entries[n]!)}  ${n}\n`).join(''));
  }
  await writeFile(target, zipSync(entries));
  return target;
}
