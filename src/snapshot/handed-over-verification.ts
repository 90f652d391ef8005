/**
 * A verification handed over by a caller (`run`'s verify step, to its load and bundle steps) saves
 * hashing the whole snapshot again. It stands only while the manifest on disk is the one it verified:
 * the same snapshot id and root hash. A directory re-fetched or a manifest rewritten since is verified
 * again. One definition for the loader (warehouse/loader.ts) and the bundle (pipeline/bundle.ts).
 */
import type { Manifest } from './manifest.js';
import type { VerifyResult } from './verify.js';

/**
 * `given` when `onDisk` (the snapshot's manifest as read now) is the manifest it verified; undefined
 * when there is none or it verified another, so the caller verifies the snapshot itself. Whether a
 * failed verification may be taken is the caller's choice (a forced load takes it, a bundle does not).
 */
export function handedOverVerification(
  given: VerifyResult | undefined,
  onDisk: Manifest,
): VerifyResult | undefined {
  if (given === undefined) return undefined;
  const same =
    onDisk.snapshot_id === given.manifest.snapshot_id && onDisk.root_sha256 === given.manifest.root_sha256;
  return same ? given : undefined;
}
