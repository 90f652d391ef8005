/**
 * The digests this warehouse computed when it verified snapshot files, by file identity (device,
 * inode, size, mtime, ctime: see src/snapshot/file-identity.ts), so loading a snapshot whose files it
 * already hashed, untouched since, does not read 1.4 GB again (issue 14).
 *
 * Trust: a row is written only in the transaction of a load that read the file itself, and only for a
 * file whose identity was the same before and after the read and settled (ctime SETTLED_MS old). Any
 * write, truncate, chmod, link or rename of the file since moves its ctime, so the row no longer
 * matches and the file is read again. A snapshot taken with `--since` hard-links the previous night's
 * files, which moves their ctime too: such a file is hashed again by the next load (the first load of
 * a new name costs a read, once). `verify` never uses these rows.
 *
 * Not part of the table contract (schema.ts): internal bookkeeping, created with the schema (version
 * 10), never exported, one row per inode (a newer identity of the inode replaces the older).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { identityKey, type FileIdentity } from '../snapshot/file-identity.js';
import type { FileDigest } from '../snapshot/hash-file.js';
import type { HashedFile, KnownDigests } from '../snapshot/verify.js';
import { appendRows } from './db.js';
import { ctx, type TableDef } from './schema-core.js';
import { quoteLiteral } from './sql.js';

export const VERIFIED_FILES: TableDef = {
  name: 'verified_files',
  doc: 'Internal: sha256 of files this warehouse hashed while verifying, by file identity.',
  scope: 'content',
  columns: [
    ctx('dev', 'VARCHAR'),
    ctx('ino', 'VARCHAR'),
    ctx('size', 'VARCHAR'),
    ctx('mtime_ns', 'VARCHAR'),
    ctx('ctime_ns', 'VARCHAR'),
    ctx('sha256', 'VARCHAR'),
    ctx('bytes', 'BIGINT'),
  ],
};

/** The recorded digests (none when no load recorded any yet). */
export async function readKnownDigests(conn: DuckDBConnection): Promise<KnownDigests> {
  const digests = new Map<string, FileDigest>();
  const reader = await conn.runAndReadAll(
    'SELECT dev, ino, size, mtime_ns, ctime_ns, sha256, bytes FROM verified_files',
  );
  for (const [dev, ino, size, mtimeNs, ctimeNs, sha256, bytes] of reader.getRows()) {
    const identity: FileIdentity = {
      dev: String(dev),
      ino: String(ino),
      size: String(size),
      mtimeNs: String(mtimeNs),
      ctimeNs: String(ctimeNs),
    };
    digests.set(identityKey(identity), { sha256: String(sha256), bytes: Number(bytes) });
  }
  return { get: (identity) => digests.get(identityKey(identity)) };
}

/** Records `hashed` within the caller's transaction, replacing earlier rows of the same inodes. */
export async function recordVerified(conn: DuckDBConnection, hashed: readonly HashedFile[]): Promise<void> {
  if (hashed.length === 0) return;
  // Several paths of one snapshot can name one inode (identical bodies linked): one row each.
  const byInode = new Map(hashed.map((h) => [`${h.identity.dev}:${h.identity.ino}`, h]));
  const inodes = [...byInode.keys()].map(quoteLiteral).join(', ');
  await conn.run(`DELETE FROM verified_files WHERE dev || ':' || ino IN (${inodes})`);
  await appendRows(
    conn,
    VERIFIED_FILES,
    [...byInode.values()].map(({ identity, digest }) => [
      identity.dev,
      identity.ino,
      identity.size,
      identity.mtimeNs,
      identity.ctimeNs,
      digest.sha256,
      digest.bytes,
    ]),
  );
}
