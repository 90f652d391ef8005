/**
 * Snapshots share files by hard link, so a snapshot file written in place would change every snapshot
 * sharing it. This pins the rule in the code: in src/snapshot, a file is opened for writing only as a
 * fresh temp file (`wx`, write-atomic.ts, then renamed) or as the unfinished run's own journal
 * (appended; never listed in a manifest, never linked). Any other write call fails this test and must
 * go through openAtomic / writeFileAtomic / linkAtomic instead.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SNAPSHOT_SRC = fileURLToPath(new URL('../../src/snapshot/', import.meta.url));

/** Calls that can write a file's bytes in place. */
const WRITE_CALL =
  /\b(writeFile|writeFileSync|appendFile|appendFileSync|createWriteStream|truncate|ftruncate|copyFile|cp|openSync|open)\s*\(([^)]*)\)/g;

const ALLOWED: readonly { file: string; call: RegExp }[] = [
  // The temp file of an atomic write: created here, renamed over the final name.
  { file: 'write-atomic.ts', call: /^open\(tempPath, 'wx'/ },
  // Directories opened read-only to fsync them.
  { file: 'write-atomic.ts', call: /^open\(dir, 'r'[,)]/ },
  // Finished data files opened read-only to fsync them (in the background and when publishing).
  { file: 'write-atomic.ts', call: /^open\(file, 'r'[,)]/ },
  // The run's own journal, appended to; it is never part of a published snapshot.
  { file: 'journal.ts', call: /^open\(file, 'a'\)/ },
];

describe('write paths of src/snapshot', () => {
  it('write only temp files (then renamed) or the journal, never a snapshot file in place', () => {
    const offending: string[] = [];
    for (const file of readdirSync(SNAPSHOT_SRC).filter((f) => f.endsWith('.ts'))) {
      const code = readFileSync(path.join(SNAPSHOT_SRC, file), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/\/\/.*$/gm, '');
      for (const match of code.matchAll(WRITE_CALL)) {
        const call = match[0].replace(/\s+/g, ' ');
        if (!ALLOWED.some((allowed) => allowed.file === file && allowed.call.test(call))) {
          offending.push(`${file}: ${call}`);
        }
      }
    }
    expect(offending).toEqual([]);
  });
});
