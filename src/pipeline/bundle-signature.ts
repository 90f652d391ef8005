/**
 * Signing an audit bundle and checking its signature. The signature is an SSH signature (namespace
 * `airt-report`) over the bundle's SHA256SUMS, which fixes every file of the bundle, the manifest and
 * so the snapshot's root hash: an auditor holding the signer's public key checks it with
 *
 *   ssh-keygen -Y verify -f allowed_signers -I ID -n airt-report -s bundle.zip.sig < SHA256SUMS
 *
 * The signature is stored twice: as the entry `SHA256SUMS.sig` (it travels with the zip) and as
 * `<bundle>.zip.sig` beside it (what ssh-keygen is given). SHA256SUMS cannot list its own signature,
 * so that one entry is outside it. A signature beside the bundle also verifies a bundle that was
 * signed afterwards with `ssh-keygen -Y sign -n airt-report SHA256SUMS` (a key kept off the runner).
 */
import { readFile } from 'node:fs/promises';
import { CliError, UsageError } from '../errors.js';
import { matchingSigners, parseAllowedSigners, type AllowedSigner } from '../signing/allowed-signers.js';
import { parseSigningKey, SigningKeyError, type SigningKey } from '../signing/ssh-keys.js';
import { parseSshsig, sshsigProblem } from '../signing/sshsig.js';

/** The signature's entry inside the bundle. */
export const SIGNATURE_ENTRY = 'SHA256SUMS.sig';
/** The SSH signature namespace of bundle signatures (`ssh-keygen -n airt-report`). */
export const BUNDLE_SIGNATURE_NAMESPACE = 'airt-report';

/** Where the detached copy of a bundle's signature goes: `<bundle>.zip.sig`. */
export function signatureSidecarPath(bundlePath: string): string {
  return `${bundlePath}.sig`;
}

/** Reads a signing key file (`--sign-key`, `bundle.sign_key`); an unusable one is a usage error. */
export async function loadSigningKey(file: string): Promise<SigningKey> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read the signing key ${file}: ${(error as Error).message}`);
  }
  try {
    return parseSigningKey(text, file);
  } catch (error) {
    if (error instanceof SigningKeyError) throw new UsageError(error.message);
    throw error;
  }
}

/** An allowed signers file, with the lines that could not be used. */
export interface AllowedSignersFile {
  file: string;
  signers: AllowedSigner[];
  skipped: { line: number; reason: string }[];
}

/** Reads `--allowed-signers FILE`; a file with no usable key is a usage error. */
export async function loadAllowedSigners(file: string): Promise<AllowedSignersFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read the allowed signers file ${file}: ${(error as Error).message}`);
  }
  const parsed = parseAllowedSigners(text);
  if (parsed.signers.length === 0) {
    const why = parsed.skipped.map((s) => `line ${s.line}: ${s.reason}`).join('; ');
    throw new UsageError(
      `${file} holds no usable key (expected lines "principals [options] ssh-ed25519 AAAA…"${why ? `; ${why}` : ''}).`,
    );
  }
  return { file, ...parsed };
}

/**
 * unsigned: no signature · verified: good signature by an allowed signer · bad_signature: does not
 * match (or cannot be read) · unknown_signer: good, but the key is not allowed · not_checked: good
 * against the key it carries, no allowed signers given.
 */
export type SignatureStatus = 'unsigned' | 'verified' | 'bad_signature' | 'unknown_signer' | 'not_checked';

export interface SignatureCheck {
  status: SignatureStatus;
  /** Where the signature came from: the bundle entry, the file beside it, or none. */
  source: 'bundle' | 'beside' | null;
  /** Principals of the allowed signers line that matched (verified only). */
  signer: string | null;
  /** `SHA256:…` of the signing key, as ssh-keygen prints it. */
  key_fingerprint: string | null;
  /** Why the status is what it is; untrusted text is not included. */
  detail: string;
}

export interface SignatureInputs {
  /** The bundle's SHA256SUMS bytes (null: missing). */
  sums: Uint8Array | null;
  /** Text of the SHA256SUMS.sig entry, if any. */
  inner: string | null;
  /** Text of `<bundle>.zip.sig`, if the file exists. */
  beside: string | null;
  allowed: AllowedSignersFile | null;
  now: Date;
}

/** Checks a bundle's signature; problems are returned, never thrown. */
export function checkBundleSignature(inputs: SignatureInputs): { check: SignatureCheck; problems: string[] } {
  const problems: string[] = [];
  const { inner, beside } = inputs;
  if (inner !== null && beside !== null && inner !== beside) {
    problems.push(
      `${SIGNATURE_ENTRY} in the bundle differs from the signature file beside it (one of them is from another bundle)`,
    );
  }
  const text = inner ?? beside;
  const source: SignatureCheck['source'] = inner !== null ? 'bundle' : beside !== null ? 'beside' : null;
  const none = { source, signer: null, key_fingerprint: null };
  if (text === null) {
    const check: SignatureCheck = { status: 'unsigned', ...none, detail: 'the bundle is not signed' };
    if (inputs.allowed !== null)
      problems.push(
        'not signed: a signature was required (an allowed-signers file was given) but the bundle has none',
      );
    return { check, problems };
  }
  let signature;
  try {
    signature = parseSshsig(text);
  } catch (error) {
    const detail = `the signature cannot be read: ${(error as Error).message}`;
    problems.push(`signature: ${detail}`);
    return { check: { status: 'bad_signature', ...none, detail }, problems };
  }
  const fingerprint = signature.fingerprint;
  const bad =
    inputs.sums === null
      ? 'there is no SHA256SUMS to check it against'
      : sshsigProblem(signature, inputs.sums, BUNDLE_SIGNATURE_NAMESPACE);
  if (bad !== null) {
    problems.push(`signature by key ${fingerprint} does not verify: ${bad}`);
    return {
      check: { status: 'bad_signature', source, signer: null, key_fingerprint: fingerprint, detail: bad },
      problems,
    };
  }
  if (inputs.allowed === null) {
    return {
      check: {
        status: 'not_checked',
        source,
        signer: null,
        key_fingerprint: fingerprint,
        detail:
          'the signature matches the key it carries; check it against an allowed-signers file to know who signed',
      },
      problems,
    };
  }
  const { allowed, refused } = matchingSigners(
    inputs.allowed.signers,
    signature.publicBlob,
    BUNDLE_SIGNATURE_NAMESPACE,
    inputs.now,
  );
  const first = allowed[0];
  if (first === undefined) {
    const detail =
      refused.length > 0
        ? `the key is in ${inputs.allowed.file} but ${refused.join('; ')}`
        : `the key is not in ${inputs.allowed.file}`;
    problems.push(`signature by key ${fingerprint}: ${detail}`);
    return {
      check: { status: 'unknown_signer', source, signer: null, key_fingerprint: fingerprint, detail },
      problems,
    };
  }
  return {
    check: {
      status: 'verified',
      source,
      signer: first.principals,
      key_fingerprint: fingerprint,
      detail: `good signature by ${first.principals} (line ${first.line} of ${inputs.allowed.file})`,
    },
    problems,
  };
}
