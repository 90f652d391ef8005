/**
 * The one rule the loader and the bundle share for a verification handed over by their caller: taken
 * while the manifest on disk has the snapshot id and root hash it verified, whatever its outcome (the
 * caller decides whether a failed one may be used), and never otherwise.
 */
import { describe, expect, it } from 'vitest';
import { handedOverVerification } from '../../src/snapshot/handed-over-verification.js';
import { verifySnapshot, type VerifyResult } from '../../src/snapshot/verify.js';
import { FIXTURES } from '../warehouse/helpers.js';

const given: VerifyResult = await verifySnapshot(FIXTURES.first);
const { manifest } = given;

describe('handedOverVerification', () => {
  it('is the verification handed over while the manifest on disk is the one it verified', () => {
    expect(given.ok).toBe(true);
    expect(handedOverVerification(given, manifest)).toBe(given);
    // Read again from disk: an equal manifest, not the same object.
    expect(handedOverVerification(given, structuredClone(manifest))).toBe(given);
    const failed = { ...given, ok: false };
    expect(handedOverVerification(failed, manifest)).toBe(failed);
  });

  it('is undefined without one, or when the snapshot id or the root hash on disk differs', () => {
    expect(handedOverVerification(undefined, manifest)).toBeUndefined();
    expect(
      handedOverVerification(given, { ...manifest, snapshot_id: `${manifest.snapshot_id}-2` }),
    ).toBeUndefined();
    expect(handedOverVerification(given, { ...manifest, root_sha256: '0'.repeat(64) })).toBeUndefined();
  });
});
