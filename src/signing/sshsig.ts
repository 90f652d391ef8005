/**
 * SSH signatures (OpenSSH PROTOCOL.sshsig), the format of `ssh-keygen -Y sign` / `-Y verify`, so an
 * auditor can check a signature with ssh-keygen alone. Only the container is written here; the
 * Ed25519 signature itself is node:crypto's.
 *
 * Blob:        "SSHSIG", uint32 version 1, string public key, string namespace, string reserved,
 *              string hash algorithm, string signature (string "ssh-ed25519", string 64 bytes)
 * Signed data: "SSHSIG", string namespace, string reserved, string hash algorithm, string H(message)
 * Armor:       "-----BEGIN SSH SIGNATURE-----", base64 of the blob in lines of 70, "-----END …-----"
 *
 * The namespace is part of what is signed, so a signature made for another purpose (git commits,
 * "file") never verifies as a bundle signature.
 */
import { createHash, sign, verify } from 'node:crypto';
import {
  ED25519_KEY_TYPE,
  keyTypeOfBlob,
  publicKeyFromBlob,
  sshFingerprint,
  type SigningKey,
} from './ssh-keys.js';
import { SshFormatError, SshReader, SshWriter } from './ssh-wire.js';

const MAGIC = 'SSHSIG';
const VERSION = 1;
const ARMOR_BEGIN = '-----BEGIN SSH SIGNATURE-----';
const ARMOR_END = '-----END SSH SIGNATURE-----';
const ARMOR_WIDTH = 70;
/** ssh-keygen's default; sha256 is the other algorithm the format allows. */
const HASH_ALGORITHM = 'sha512';
const HASH_ALGORITHMS = new Set(['sha256', 'sha512']);

/** A parsed SSH signature. */
export interface SshSignature {
  publicBlob: Uint8Array;
  keyType: string;
  fingerprint: string;
  namespace: string;
  hashAlgorithm: string;
  signatureType: string;
  signature: Uint8Array;
}

function signedData(namespace: string, hashAlgorithm: string, message: Uint8Array): Buffer {
  const digest = createHash(hashAlgorithm).update(message).digest();
  return new SshWriter().raw(MAGIC).string(namespace).string('').string(hashAlgorithm).string(digest).bytes();
}

/** Signs `message` for `namespace`; returns the armored signature text (ends with a newline). */
export function signSshsig(message: Uint8Array, key: SigningKey, namespace: string): string {
  const raw = sign(null, signedData(namespace, HASH_ALGORITHM, message), key.privateKey);
  const signature = new SshWriter().string(ED25519_KEY_TYPE).string(raw).bytes();
  const blob = new SshWriter()
    .raw(MAGIC)
    .uint32(VERSION)
    .string(key.publicBlob)
    .string(namespace)
    .string('')
    .string(HASH_ALGORITHM)
    .string(signature)
    .bytes();
  const base64 = blob.toString('base64');
  const lines = [ARMOR_BEGIN];
  for (let at = 0; at < base64.length; at += ARMOR_WIDTH) lines.push(base64.slice(at, at + ARMOR_WIDTH));
  lines.push(ARMOR_END);
  return `${lines.join('\n')}\n`;
}

/** Reads an armored signature; throws SshFormatError saying what is wrong with it. */
export function parseSshsig(text: string): SshSignature {
  const begin = text.indexOf(ARMOR_BEGIN);
  const end = text.indexOf(ARMOR_END);
  if (begin < 0 || end < begin)
    throw new SshFormatError('not an SSH signature (no BEGIN/END SSH SIGNATURE lines)');
  const base64 = text.slice(begin + ARMOR_BEGIN.length, end).replace(/\s+/gu, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/u.test(base64)) throw new SshFormatError('its armor is not base64');
  const reader = new SshReader(Buffer.from(base64, 'base64'));
  if (Buffer.from(reader.raw(MAGIC.length, 'the magic')).toString('latin1') !== MAGIC) {
    throw new SshFormatError('no SSHSIG magic');
  }
  const version = reader.uint32('the version');
  if (version !== VERSION) throw new SshFormatError(`signature version ${version} is not supported`);
  const publicBlob = reader.string('the public key');
  const namespace = reader.text('the namespace');
  reader.string('the reserved field');
  const hashAlgorithm = reader.text('the hash algorithm');
  const signatureBlob = new SshReader(reader.string('the signature'));
  reader.end('the signature');
  const signatureType = signatureBlob.text('the signature type');
  const signature = signatureBlob.string('the signature bytes');
  signatureBlob.end('the signature bytes');
  return {
    publicBlob,
    keyType: keyTypeOfBlob(publicBlob),
    fingerprint: sshFingerprint(publicBlob),
    namespace,
    hashAlgorithm,
    signatureType,
    signature,
  };
}

/**
 * Checks `signature` over `message` for `namespace` against the public key it carries (whether that
 * key is trusted is the allowed signers' question). Returns null when it holds, else why not.
 */
export function sshsigProblem(
  signature: SshSignature,
  message: Uint8Array,
  namespace: string,
): string | null {
  if (signature.namespace !== namespace) {
    return `it was made for namespace ${JSON.stringify(signature.namespace)}, not ${JSON.stringify(namespace)}`;
  }
  if (!HASH_ALGORITHMS.has(signature.hashAlgorithm)) {
    return `its hash algorithm ${JSON.stringify(signature.hashAlgorithm)} is not sha256 or sha512`;
  }
  if (signature.keyType !== ED25519_KEY_TYPE || signature.signatureType !== ED25519_KEY_TYPE) {
    return `its key type ${JSON.stringify(signature.keyType)} is not supported by airt-report (Ed25519 only; ssh-keygen -Y verify can check it)`;
  }
  let holds: boolean;
  try {
    holds = verify(
      null,
      signedData(signature.namespace, signature.hashAlgorithm, message),
      publicKeyFromBlob(signature.publicBlob),
      signature.signature,
    );
  } catch (error) {
    return `it cannot be checked: ${(error as Error).message}`;
  }
  return holds ? null : 'it does not match the signed content (the content or the signature was changed)';
}
