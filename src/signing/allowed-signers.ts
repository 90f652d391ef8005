/**
 * OpenSSH's allowed signers file (ssh-keygen(1), "ALLOWED SIGNERS"), the same file an auditor gives
 * `ssh-keygen -Y verify -f`: one key per line, `principals [options] keytype base64-key [comment]`.
 * Options read here: `namespaces="…"` (the key may sign only those) and `valid-after`/`valid-before`
 * (checked against the verification time, as ssh-keygen does). `cert-authority` lines name CA keys
 * for certificates, which airt-report does not check: they are skipped, never trusted.
 */
import { SshFormatError } from './ssh-wire.js';
import { sshFingerprint } from './ssh-keys.js';

export interface AllowedSigner {
  /** The principals field as written, e.g. `auditor@example.com,ops@example.com`. */
  principals: string;
  /** null: every namespace. */
  namespaces: string[] | null;
  validAfter: Date | null;
  validBefore: Date | null;
  keyType: string;
  publicBlob: Buffer;
  fingerprint: string;
  /** 1-based line in the file. */
  line: number;
}

/** A line the file holds that cannot be used; listed so the user sees which. */
export interface SkippedSigner {
  line: number;
  reason: string;
}

/** Splits on blanks outside double quotes (option values and principals may be quoted). */
function tokens(line: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (const char of line) {
    if (char === '"') quoted = !quoted;
    if (!quoted && (char === ' ' || char === '\t')) {
      if (current !== '') out.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  if (quoted) throw new SshFormatError('a quote is not closed');
  if (current !== '') out.push(current);
  return out;
}

function unquote(text: string): string {
  return text.replace(/^"(.*)"$/su, '$1');
}

function isKeyType(token: string): boolean {
  return /^(ssh-|ecdsa-|sk-)/u.test(token);
}

/** `YYYYMMDD[HHMM[SS]][Z]`: local time unless it ends in Z, as in ssh-keygen. */
function parseTimestamp(text: string): Date {
  const match = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2})?)?(Z?)$/u.exec(unquote(text));
  if (!match) throw new SshFormatError(`timestamp ${JSON.stringify(text)} is not YYYYMMDD[HHMM[SS]][Z]`);
  const [, y, mo, d, h = '00', mi = '00', s = '00', z] = match;
  const parts = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)] as const;
  return z === 'Z' ? new Date(Date.UTC(...parts)) : new Date(...parts);
}

/** Splits options on commas outside quotes. */
function splitOptions(text: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    if (!quoted && char === ',') {
      out.push(current);
      current = '';
    } else current += char;
  }
  out.push(current);
  return out;
}

/** Parses the file's text; lines that cannot be used are returned in `skipped` with the reason. */
export function parseAllowedSigners(text: string): { signers: AllowedSigner[]; skipped: SkippedSigner[] } {
  const signers: AllowedSigner[] = [];
  const skipped: SkippedSigner[] = [];
  text.split(/\r?\n/u).forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    try {
      const fields = tokens(trimmed);
      const [principals, second] = fields;
      if (principals === undefined || second === undefined)
        throw new SshFormatError('expected principals and a key');
      const hasOptions = !isKeyType(second);
      const keyType = fields[hasOptions ? 2 : 1];
      const key = fields[hasOptions ? 3 : 2];
      if (keyType === undefined || key === undefined) throw new SshFormatError('no key type and key');
      const signer: AllowedSigner = {
        principals: unquote(principals),
        namespaces: null,
        validAfter: null,
        validBefore: null,
        keyType,
        publicBlob: Buffer.from(key, 'base64'),
        fingerprint: '',
        line,
      };
      for (const option of hasOptions ? splitOptions(second) : []) {
        const [name = '', ...rest] = option.split('=');
        const value = rest.join('=');
        const lower = name.toLowerCase();
        if (lower === 'cert-authority')
          throw new SshFormatError('cert-authority keys (certificates) are not supported');
        else if (lower === 'namespaces') signer.namespaces = unquote(value).split(',');
        else if (lower === 'valid-after') signer.validAfter = parseTimestamp(value);
        else if (lower === 'valid-before') signer.validBefore = parseTimestamp(value);
        else throw new SshFormatError(`unknown option ${JSON.stringify(name)}`);
      }
      signer.fingerprint = sshFingerprint(signer.publicBlob);
      signers.push(signer);
    } catch (error) {
      skipped.push({ line, reason: (error as Error).message });
    }
  });
  return { signers, skipped };
}

/** Signers of the file whose key is `publicBlob`, allowed for `namespace` at `when`. */
export function matchingSigners(
  signers: readonly AllowedSigner[],
  publicBlob: Uint8Array,
  namespace: string,
  when: Date,
): { allowed: AllowedSigner[]; refused: string[] } {
  const allowed: AllowedSigner[] = [];
  const refused: string[] = [];
  for (const signer of signers) {
    if (!Buffer.from(publicBlob).equals(signer.publicBlob)) continue;
    if (signer.namespaces !== null && !signer.namespaces.includes(namespace)) {
      refused.push(
        `line ${signer.line} (${signer.principals}) limits the key to namespaces ${signer.namespaces.join(',')}`,
      );
    } else if (signer.validAfter !== null && when < signer.validAfter) {
      refused.push(
        `line ${signer.line} (${signer.principals}) is valid only after ${signer.validAfter.toISOString()}`,
      );
    } else if (signer.validBefore !== null && when > signer.validBefore) {
      refused.push(
        `line ${signer.line} (${signer.principals}) expired at ${signer.validBefore.toISOString()}`,
      );
    } else allowed.push(signer);
  }
  return { allowed, refused };
}
