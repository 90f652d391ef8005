/**
 * `airt-report verify SNAPSHOT_DIR|BUNDLE.zip`: recompute every hash and the root hash of a snapshot against its
 * manifest. Prints what differs (missing, extra, modified files; root hash) and exits 1 on any
 * difference, 0 when the snapshot is intact. Ctrl-C or SIGTERM stops the hashing at once (exit 130/143).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { abortExitCode, CliError, EXIT, interruptionText, UsageError } from '../../errors.js';
import { defineCommand } from '../command.js';

interface VerifyArgs {
  dir: string;
  json?: boolean | undefined;
  'allowed-signers'?: string | undefined;
}

export const verifyCommand = defineCommand<VerifyArgs>({
  command: 'verify <dir>',
  describe:
    "Check a snapshot directory against its manifest's hashes, or an audit bundle (.zip) against its SHA256SUMS (exit 1 on any difference)",
  builder: (y) =>
    y
      .positional('dir', {
        type: 'string',
        demandOption: true,
        describe: 'Snapshot directory, or a bundle .zip written by bundle or run',
      })
      .option('json', { type: 'boolean', describe: 'Print the result as JSON' })
      .option('allowed-signers', {
        type: 'string',
        describe:
          'Bundles: OpenSSH allowed_signers file of the keys that may sign; the bundle must carry a good signature by one of them',
      }),
  async run(args, io) {
    if (args.dir.toLowerCase().endsWith('.zip')) {
      // An audit bundle written by `run` or `bundle` (src/pipeline/verify-bundle.ts).
      const zipPath = path.resolve(io.cwd, args.dir);
      if (!existsSync(zipPath)) throw new CliError(`No bundle at ${zipPath}; check the path.`);
      const [{ verifyBundle, bundleVerificationText }, { loadAllowedSigners }] = await Promise.all([
        import('../../pipeline/verify-bundle.js'),
        import('../../pipeline/bundle-signature.js'),
      ]);
      const signersFile = args['allowed-signers'];
      const allowedSigners =
        signersFile === undefined ? null : await loadAllowedSigners(path.resolve(io.cwd, signersFile));
      const bundle = await verifyBundle(zipPath, { allowedSigners, signal: io.signal }).catch(
        async (error: unknown) => {
          if (!io.signal.aborted) throw error;
          throw await stoppedBeforeVerdict(io.signal, zipPath, error);
        },
      );
      io.stdout(args.json ? `${JSON.stringify(bundle, null, 2)}\n` : bundleVerificationText(bundle));
      return bundle.ok ? EXIT.ok : EXIT.failure;
    }
    if (args['allowed-signers'] !== undefined) {
      throw new UsageError('--allowed-signers checks a bundle (.zip); a snapshot directory is not signed.');
    }
    const [{ verifySnapshot }, { neutralizeControls }] = await Promise.all([
      import('../../snapshot/verify.js'),
      import('../../api/error-body.js'),
    ]);
    const dir = path.resolve(io.cwd, args.dir);
    const result = await verifySnapshot(dir, { signal: io.signal }).catch(async (error: unknown) => {
      if (!io.signal.aborted) throw error;
      throw await stoppedBeforeVerdict(io.signal, dir, error);
    });
    if (args.json) {
      const { manifest: _manifest, ...rest } = result;
      io.stdout(`${JSON.stringify(rest, null, 2)}\n`);
      return result.ok ? EXIT.ok : EXIT.failure;
    }
    const show = (p: string): string => neutralizeControls(p);
    const lines: string[] = [];
    for (const file of result.missing) lines.push(`missing   ${show(file)}`);
    for (const file of result.extra) lines.push(`extra     ${show(file)}`);
    for (const file of result.modified) {
      lines.push(
        file.reason === 'not_a_file'
          ? `modified  ${show(file.path)} (not a regular file)`
          : `modified  ${show(file.path)} (expected sha256 ${file.expectedSha256}, actual ${file.actualSha256 ?? '?'})`,
      );
    }
    if (!result.rootHash.ok) {
      lines.push(
        `root hash: expected ${result.rootHash.expected} (the manifest's), actual ${result.rootHash.actual} (manifest edited)`,
      );
    }
    const head = `${show(result.snapshotId)}: ${result.files} files, status ${result.status}`;
    if (result.ok) {
      io.stdout(`${head}: OK (root sha256 ${result.rootHash.actual})\n`);
      return EXIT.ok;
    }
    io.stdout(`${lines.join('\n')}\n${head}: FAILED (${lines.length} difference(s))\n`);
    return EXIT.failure;
  },
});

/** Verification stopped by a signal (Ctrl-C, SIGTERM): one line, no verdict, the signal's exit code. */
async function stoppedBeforeVerdict(signal: AbortSignal, target: string, cause: unknown): Promise<CliError> {
  const { neutralizeControls } = await import('../../api/error-body.js');
  return new CliError(
    `${interruptionText(signal)} before ${neutralizeControls(target)} was fully verified; run verify again for a verdict.`,
    abortExitCode(signal),
    { cause },
  );
}
