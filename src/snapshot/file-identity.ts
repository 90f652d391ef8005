/**
 * A file's identity as the kernel keeps it (device, inode, size, mtime and ctime in nanoseconds), so a
 * sha256 computed once can stand for the file while that identity stays the same (verify's known
 * digests, see verify.ts and the warehouse's verified_files).
 *
 * Why ctime: every write, truncate, chmod, link or rename of the inode sets its ctime to the current
 * time, and unlike mtime no unprivileged call can set it back. An edit that keeps the size and restores
 * the mtime (`touch -r`) therefore still changes the identity. What this does not catch: a change made
 * by root with the system clock set back, or bit rot below the file system (no write, no ctime); a full
 * `verify` re-hashes every file for those.
 *
 * Coarse timestamps: a file system stamps ctime with a clock tick (a few ms; whole seconds on some), so
 * a write in the same tick as the stat could leave the identity unchanged. A digest is only ever
 * recorded for a file whose ctime is at least SETTLED_MS older than the moment hashing began (the rule
 * git uses for "racily clean" index entries): any later write then carries a later ctime.
 */
import type { BigIntStats } from 'node:fs';

/** Identity fields as decimal strings (bigint values, kept exact and JSON/SQL friendly). */
export interface FileIdentity {
  dev: string;
  ino: string;
  size: string;
  mtimeNs: string;
  ctimeNs: string;
}

/** How much older than the hashing's start a file's ctime must be for its digest to be recorded. */
export const SETTLED_MS = 2000;

export function identityOf(stats: BigIntStats): FileIdentity {
  return {
    dev: String(stats.dev),
    ino: String(stats.ino),
    size: String(stats.size),
    mtimeNs: String(stats.mtimeNs),
    ctimeNs: String(stats.ctimeNs),
  };
}

/** The lookup key of an identity: all five fields, so any change misses. */
export function identityKey(identity: FileIdentity): string {
  return [identity.dev, identity.ino, identity.size, identity.mtimeNs, identity.ctimeNs].join(':');
}

export function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return identityKey(a) === identityKey(b);
}

/**
 * True when a digest computed from `startedAtMs` on may be recorded for this identity: its ctime is
 * SETTLED_MS older than that (see the module comment).
 */
export function settledBefore(identity: FileIdentity, startedAtMs: number): boolean {
  return BigInt(identity.ctimeNs) < BigInt(Math.floor(startedAtMs - SETTLED_MS)) * 1_000_000n;
}
