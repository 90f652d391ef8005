/**
 * Signed audit bundles, checked by OpenSSH itself (Debian's openssh-client `ssh-keygen`): a bundle
 * airt-report signs verifies with `ssh-keygen -Y verify`, a signature `ssh-keygen -Y sign` made
 * verifies with `airt-report verify --allowed-signers`, and a report edited with SHA256SUMS updated
 * to match (which unsigned verification cannot catch) fails a signed verify.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordingIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { UsageError } from '../../src/errors.js';
import { loadAllowedSigners, loadSigningKey } from '../../src/pipeline/bundle-signature.js';
import { writeBundle, type BundleFile } from '../../src/pipeline/bundle.js';
import { verifyBundle } from '../../src/pipeline/verify-bundle.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { writeFixtureSnapshot } from './snapshot-dir-fixture.js';

const SSH_KEYGEN = '/usr/bin/ssh-keygen';
const haveSshKeygen = existsSync(SSH_KEYGEN);

let work: string;
let snapshotDir: string;
let files: BundleFile[];
let key: string;
let otherKey: string;
let allowedSigners: string;

function keygen(file: string, comment: string, passphrase = ''): void {
  execFileSync(SSH_KEYGEN, ['-q', '-t', 'ed25519', '-N', passphrase, '-C', comment, '-f', file]);
}

/** ssh-keygen -Y verify with SHA256SUMS on stdin, as the README tells an auditor. */
function sshVerify(sums: Uint8Array, signatureFile: string): { status: number | null; out: string } {
  const result = spawnSync(
    SSH_KEYGEN,
    [
      '-Y',
      'verify',
      '-f',
      allowedSigners,
      '-I',
      'auditor@example.com',
      '-n',
      'airt-report',
      '-s',
      signatureFile,
    ],
    { input: sums, encoding: 'utf8' },
  );
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

async function entries(zip: string): Promise<Record<string, Uint8Array>> {
  return unzipSync(await readFile(zip));
}

beforeAll(async () => {
  work = await makeTempDir('airt-signed-');
  ({ dir: snapshotDir } = await writeFixtureSnapshot({
    root: path.join(work, 'snapshots'),
    snapshotId: '20260101T000000Z',
  }));
  const manifest = JSON.parse(await readFile(path.join(snapshotDir, 'manifest.json'), 'utf8')) as {
    root_sha256: string;
  };
  await mkdir(path.join(work, 'reports'));
  const report = path.join(work, 'reports', 'executive.md');
  await writeFile(report, `# Report\n\nOverall ASR 58.3%\n\nRoot hash: \`${manifest.root_sha256}\`\n`);
  files = [{ name: 'reports/executive.md', path: report }];
  if (!haveSshKeygen) return;
  key = path.join(work, 'id_ed25519');
  otherKey = path.join(work, 'other_ed25519');
  keygen(key, 'signer');
  keygen(otherKey, 'someone-else');
  const publicKey = (await readFile(`${key}.pub`, 'utf8')).split(' ').slice(0, 2).join(' ');
  allowedSigners = path.join(work, 'allowed_signers');
  await writeFile(allowedSigners, `# auditors\nauditor@example.com namespaces="airt-report" ${publicKey}\n`);
});

async function bundle(name: string, signKey?: string): Promise<string> {
  const out = path.join(work, name);
  await writeBundle({
    out,
    snapshotDir,
    includeSnapshot: false,
    files,
    signingKey: signKey === undefined ? undefined : await loadSigningKey(signKey),
  });
  return out;
}

describe.skipIf(!haveSshKeygen)('signed bundles', () => {
  it('ssh-keygen -Y verify accepts the signature airt-report writes, inside the bundle and beside it', async () => {
    const zip = await bundle('signed.zip', key);
    const inside = await entries(zip);
    const sums = inside.SHA256SUMS;
    const signature = inside['SHA256SUMS.sig'];
    expect(sums).toBeDefined();
    expect(strFromU8(signature ?? new Uint8Array())).toBe(await readFile(`${zip}.sig`, 'utf8'));
    const checked = sshVerify(sums ?? new Uint8Array(), `${zip}.sig`);
    expect(checked.out).toContain('Good "airt-report" signature for auditor@example.com');
    expect(checked.status).toBe(0);
    // And the README inside tells the auditor the same command.
    expect(strFromU8(inside['README.txt'] ?? new Uint8Array())).toContain(
      'ssh-keygen -Y verify -f allowed_signers',
    );

    const result = await verifyBundle(zip, { allowedSigners: await loadAllowedSigners(allowedSigners) });
    expect(result.problems).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.signature).toMatchObject({
      status: 'verified',
      source: 'bundle',
      signer: 'auditor@example.com',
    });
  });

  it('airt-report verifies a signature made by ssh-keygen -Y sign beside an unsigned bundle', async () => {
    const zip = await bundle('later-signed.zip');
    expect(existsSync(`${zip}.sig`)).toBe(false);
    const sumsFile = path.join(work, 'SHA256SUMS');
    await writeFile(sumsFile, (await entries(zip)).SHA256SUMS ?? new Uint8Array());
    execFileSync(SSH_KEYGEN, ['-q', '-Y', 'sign', '-f', key, '-n', 'airt-report', sumsFile]);
    await writeFile(`${zip}.sig`, await readFile(`${sumsFile}.sig`));

    const result = await verifyBundle(zip, { allowedSigners: await loadAllowedSigners(allowedSigners) });
    expect(result.problems).toEqual([]);
    expect(result.signature).toMatchObject({
      status: 'verified',
      source: 'beside',
      signer: 'auditor@example.com',
    });

    // ssh-keygen's signature for another purpose does not pass as a bundle signature.
    execFileSync(SSH_KEYGEN, ['-q', '-Y', 'sign', '-f', key, '-n', 'file', sumsFile], { input: 'y\n' });
    await writeFile(`${zip}.sig`, await readFile(`${sumsFile}.sig`));
    const wrongNamespace = await verifyBundle(zip, {
      allowedSigners: await loadAllowedSigners(allowedSigners),
    });
    expect(wrongNamespace.signature.status).toBe('bad_signature');
    expect(wrongNamespace.problems.join('\n')).toContain('namespace "file", not "airt-report"');
  });

  it('a report edited with SHA256SUMS updated fails a signed verify (and ssh-keygen agrees)', async () => {
    const zip = await bundle('tampered.zip', key);
    const inside = await entries(zip);
    const report = strFromU8(inside['reports/executive.md'] ?? new Uint8Array()).replace('58.3%', '18.3%');
    inside['reports/executive.md'] = strToU8(report);
    const sha = createHash('sha256').update(report).digest('hex');
    const sums = strFromU8(inside.SHA256SUMS ?? new Uint8Array()).replace(
      /^[0-9a-f]{64} {2}reports\/executive\.md$/mu,
      `${sha}  reports/executive.md`,
    );
    inside.SHA256SUMS = strToU8(sums);
    const tampered = path.join(work, 'tampered-edited.zip');
    await writeFile(tampered, zipSync(inside));
    await writeFile(`${tampered}.sig`, await readFile(`${zip}.sig`));

    // Without a signature the edit is invisible: the bundle checks out against itself.
    const unsignedView = { ...inside };
    delete unsignedView['SHA256SUMS.sig'];
    const selfConsistent = path.join(work, 'self-consistent.zip');
    await writeFile(selfConsistent, zipSync(unsignedView));
    expect((await verifyBundle(selfConsistent)).ok).toBe(true);

    const result = await verifyBundle(tampered, { allowedSigners: await loadAllowedSigners(allowedSigners) });
    expect(result.ok).toBe(false);
    expect(result.signature.status).toBe('bad_signature');
    expect(result.problems.join('\n')).toContain('does not match the signed content');
    // Even without --allowed-signers a signature that does not match is a problem.
    expect((await verifyBundle(tampered)).ok).toBe(false);
    expect(sshVerify(strToU8(sums), `${tampered}.sig`).status).not.toBe(0);
  });

  it('an unsigned bundle, or one signed by a key not allowed, fails when signers are required', async () => {
    const allowed = await loadAllowedSigners(allowedSigners);
    const unsigned = await verifyBundle(await bundle('unsigned.zip'), { allowedSigners: allowed });
    expect(unsigned.ok).toBe(false);
    expect(unsigned.signature.status).toBe('unsigned');
    expect(unsigned.problems).toContain(
      'not signed: a signature was required (an allowed-signers file was given) but the bundle has none',
    );
    const stranger = await verifyBundle(await bundle('stranger.zip', otherKey), { allowedSigners: allowed });
    expect(stranger.ok).toBe(false);
    expect(stranger.signature.status).toBe('unknown_signer');
    expect(stranger.problems.join('\n')).toMatch(/key SHA256:\S+: the key is not in /u);
    // Without --allowed-signers a good signature is reported, its signer unchecked.
    const unchecked = await verifyBundle(path.join(work, 'stranger.zip'));
    expect(unchecked.ok).toBe(true);
    expect(unchecked.signature.status).toBe('not_checked');
  });

  it('a signature beside the bundle left from another bundle (a stop between the two writes) is reported', async () => {
    const zip = await bundle('interrupted.zip', key);
    const old = await readFile(`${zip}.sig`);
    await bundle('interrupted.zip', otherKey);
    await writeFile(`${zip}.sig`, old);
    const result = await verifyBundle(zip);
    expect(result.ok).toBe(false);
    expect(result.problems.join('\n')).toContain('differs from the signature file beside it');
    // Re-bundling unsigned removes the stale signature instead of leaving it to mislead.
    await bundle('interrupted.zip');
    expect(existsSync(`${zip}.sig`)).toBe(false);
  });

  it('an encrypted key, a non-Ed25519 key or a non-key gets a clear usage error', async () => {
    const encrypted = path.join(work, 'encrypted');
    keygen(encrypted, 'enc', 'correct horse');
    await expect(loadSigningKey(encrypted)).rejects.toThrow(UsageError);
    await expect(loadSigningKey(encrypted)).rejects.toThrow(/is encrypted with a passphrase/u);
    const rsa = path.join(work, 'rsa');
    execFileSync(SSH_KEYGEN, ['-q', '-t', 'rsa', '-b', '2048', '-N', '', '-f', rsa]);
    await expect(loadSigningKey(rsa)).rejects.toThrow(
      /is a ssh-rsa key; bundles are signed with Ed25519 keys only/u,
    );
    await expect(loadSigningKey(`${key}.pub`)).rejects.toThrow(/is not an SSH private key/u);
  });

  it('bundle --sign-key and verify --allowed-signers on the command line', async () => {
    const out = path.join(work, 'cli.zip');
    const io = recordingIO({ cwd: work });
    const code = await main(
      [
        'bundle',
        '--snapshot',
        snapshotDir,
        '--out',
        out,
        '--report',
        files[0]?.path ?? '',
        '--sign-key',
        key,
      ],
      io,
    );
    expect(io.err.join('')).toContain('signed with key SHA256:');
    expect(code).toBe(0);
    const verifyIo = recordingIO({ cwd: work });
    expect(await main(['verify', out, '--allowed-signers', allowedSigners], verifyIo)).toBe(0);
    expect(verifyIo.out.join('')).toMatch(
      /^signature VERIFIED: signed by auditor@example\.com \(key SHA256:/mu,
    );
    const unsignedIo = recordingIO({ cwd: work });
    expect(
      await main(
        ['verify', path.join(work, 'unsigned.zip'), '--allowed-signers', allowedSigners],
        unsignedIo,
      ),
    ).toBe(1);
    expect(unsignedIo.out.join('')).toContain('signature none: the bundle is unsigned');
    const badKeyIo = recordingIO({ cwd: work });
    expect(
      await main(['bundle', '--snapshot', snapshotDir, '--out', out, '--sign-key', `${key}.pub`], badKeyIo),
    ).toBe(2);
    expect(badKeyIo.err.join('')).toContain('is not an SSH private key');
    expect(badKeyIo.err.join('')).not.toMatch(/\n\s+at /u);
  });
});
