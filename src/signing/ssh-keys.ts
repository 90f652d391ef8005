/**
 * SSH keys for signing bundles: an Ed25519 private key in OpenSSH's own file format
 * ("openssh-key-v1", what `ssh-keygen -t ed25519` writes) or PKCS#8 PEM, and Ed25519 public keys in
 * their SSH wire form (as in `allowed_signers` lines and inside a signature). Parsing only: the keys
 * become node:crypto KeyObjects, and node:crypto does all signing and verifying.
 *
 * openssh-key-v1 (OpenSSH PROTOCOL.key): "openssh-key-v1\0", string cipher, string kdf, string kdf
 * options, uint32 key count, string public key per key, string private section. The private section
 * is two equal uint32 check values, then per key: string type, string public (32 bytes), string
 * private (64 bytes: seed then public), string comment; padded with 1, 2, 3, …
 */
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { SshFormatError, SshReader, SshWriter } from './ssh-wire.js';

export const ED25519_KEY_TYPE = 'ssh-ed25519';
const OPENSSH_MAGIC = 'openssh-key-v1\0';
const OPENSSH_PEM = /-----BEGIN OPENSSH PRIVATE KEY-----([\s\S]*?)-----END OPENSSH PRIVATE KEY-----/u;

/** A key file that cannot be used for signing (encrypted, wrong type, damaged); `file` names it. */
export class SigningKeyError extends Error {
  override readonly name = 'SigningKeyError';
  constructor(
    message: string,
    readonly file: string,
  ) {
    super(message);
  }
}

/** A private key ready to sign, with the public key blob a signature carries. */
export interface SigningKey {
  privateKey: KeyObject;
  /** SSH wire form of the public key: string "ssh-ed25519", string key (32 bytes). */
  publicBlob: Buffer;
  /** `SHA256:…`, as `ssh-keygen -l` prints it. */
  fingerprint: string;
}

/** Reads a signing key from a file's text; `file` only names it in errors. */
export function parseSigningKey(text: string, file: string): SigningKey {
  const pem = OPENSSH_PEM.exec(text);
  if (pem) return parseOpenSshKey(Buffer.from((pem[1] ?? '').replace(/\s+/gu, ''), 'base64'), file);
  if (/-----BEGIN ENCRYPTED PRIVATE KEY-----/u.test(text)) throw encrypted(file);
  if (/-----BEGIN PRIVATE KEY-----/u.test(text)) {
    let privateKey: KeyObject;
    try {
      privateKey = createPrivateKey(text);
    } catch (error) {
      throw new SigningKeyError(`${file} is not a readable private key: ${(error as Error).message}`, file);
    }
    if (privateKey.asymmetricKeyType !== 'ed25519')
      throw wrongType(file, privateKey.asymmetricKeyType ?? '?');
    const x = createPublicKey(privateKey).export({ format: 'jwk' }).x ?? '';
    return fromKeys(privateKey, Buffer.from(x, 'base64url'));
  }
  throw new SigningKeyError(
    `${file} is not an SSH private key (expected an OpenSSH key as written by ssh-keygen -t ed25519, or PKCS#8 PEM).`,
    file,
  );
}

function parseOpenSshKey(bytes: Buffer, file: string): SigningKey {
  try {
    const reader = new SshReader(bytes);
    if (Buffer.from(reader.raw(OPENSSH_MAGIC.length, 'the magic')).toString('latin1') !== OPENSSH_MAGIC) {
      throw new SshFormatError('no openssh-key-v1 magic');
    }
    const cipher = reader.text('the cipher name');
    reader.text('the kdf name');
    reader.string('the kdf options');
    if (cipher !== 'none') throw encrypted(file);
    const count = reader.uint32('the key count');
    if (count !== 1)
      throw new SigningKeyError(`${file} holds ${count} keys; give a file with one key.`, file);
    reader.string('the public key');
    const section = new SshReader(reader.string('the private section'));
    reader.end('the private section');
    if (section.uint32('check value 1') !== section.uint32('check value 2')) {
      throw new SshFormatError('its check values differ (damaged, or encrypted)');
    }
    const type = section.text('the key type');
    if (type !== ED25519_KEY_TYPE) throw wrongType(file, type);
    const publicKey = Buffer.from(section.string('the Ed25519 public key'));
    const secret = section.string('the Ed25519 private key');
    if (publicKey.length !== 32 || secret.length !== 64) throw new SshFormatError('wrong Ed25519 key sizes');
    const privateKey = createPrivateKey({
      key: {
        kty: 'OKP',
        crv: 'Ed25519',
        d: Buffer.from(secret.subarray(0, 32)).toString('base64url'),
        x: publicKey.toString('base64url'),
      },
      format: 'jwk',
    });
    // The file's public half must belong to its private half, or the signatures would name a key
    // that cannot verify them.
    const derived = createPublicKey(privateKey).export({ format: 'jwk' }).x;
    if (derived !== publicKey.toString('base64url'))
      throw new SshFormatError('its public and private halves differ');
    return fromKeys(privateKey, publicKey);
  } catch (error) {
    if (error instanceof SigningKeyError) throw error;
    throw new SigningKeyError(
      `${file} is not a valid OpenSSH private key: ${(error as Error).message}.`,
      file,
    );
  }
}

function fromKeys(privateKey: KeyObject, rawPublic: Buffer): SigningKey {
  const publicBlob = ed25519PublicBlob(rawPublic);
  return { privateKey, publicBlob, fingerprint: sshFingerprint(publicBlob) };
}

function encrypted(file: string): SigningKeyError {
  return new SigningKeyError(
    `${file} is encrypted with a passphrase, and airt-report does not ask for passphrases (runs are unattended). ` +
      "Use a separate signing key without one (ssh-keygen -t ed25519 -N '' -f FILE), kept readable only by the runs' user.",
    file,
  );
}

function wrongType(file: string, type: string): SigningKeyError {
  return new SigningKeyError(`${file} is a ${type} key; bundles are signed with Ed25519 keys only.`, file);
}

/** The SSH wire form of a raw 32-byte Ed25519 public key. */
export function ed25519PublicBlob(rawPublic: Uint8Array): Buffer {
  return new SshWriter().string(ED25519_KEY_TYPE).string(rawPublic).bytes();
}

/** A public key blob as a node:crypto key; throws SshFormatError for a type other than Ed25519. */
export function publicKeyFromBlob(blob: Uint8Array): KeyObject {
  const reader = new SshReader(blob);
  const type = reader.text('the key type');
  if (type !== ED25519_KEY_TYPE) throw new SshFormatError(`key type ${type} is not supported (Ed25519 only)`);
  const raw = reader.string('the Ed25519 key');
  reader.end('the public key');
  if (raw.length !== 32) throw new SshFormatError('an Ed25519 public key is 32 bytes');
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') },
    format: 'jwk',
  });
}

/** The key type named inside a public key blob (`ssh-ed25519`, `ssh-rsa`, …). */
export function keyTypeOfBlob(blob: Uint8Array): string {
  return new SshReader(blob).text('the key type');
}

/** `SHA256:<base64 without padding>` of the blob, the fingerprint ssh-keygen shows. */
export function sshFingerprint(blob: Uint8Array): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/u, '')}`;
}
