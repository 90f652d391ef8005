/**
 * `airt-report bundle`: builds an audit bundle by hand from a snapshot and the files made from it
 * (`run` writes one per run by itself). Prints the bundle path; check it with `airt-report verify`.
 */
import path from 'node:path';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { EXIT, UsageError } from '../../errors.js';
import { defineCommand } from '../command.js';
import type { BundleFile } from '../../pipeline/bundle.js';

interface BundleArgs {
  snapshot: string;
  out: string;
  report?: string[] | undefined;
  'gate-report'?: string[] | undefined;
  diff?: string[] | undefined;
  'include-snapshot'?: boolean | undefined;
  'sign-key'?: string | undefined;
}

export const bundleCommand = defineCommand<BundleArgs>({
  command: 'bundle',
  describe: 'Write an audit bundle (zip with reports, manifest, gate report, SHA256SUMS, README)',
  builder: (y) =>
    y
      .option('snapshot', { type: 'string', demandOption: true, describe: 'Finished snapshot directory' })
      .option('out', { type: 'string', demandOption: true, describe: 'Zip file to write' })
      .option('report', {
        type: 'string',
        array: true,
        describe:
          'Report file or directory (repeatable; with several, a directory goes to reports/<its name>/)',
      })
      .option('gate-report', {
        type: 'string',
        array: true,
        describe: 'Gate report file: one .md and/or one .json',
      })
      .option('diff', { type: 'string', array: true, describe: 'Diff file: one .md and/or one .json' })
      .option('include-snapshot', { type: 'boolean', describe: 'Also pack every data file of the snapshot' })
      .option('sign-key', {
        type: 'string',
        describe:
          'Ed25519 SSH private key (unencrypted) to sign SHA256SUMS with; writes <out>.sig too (ssh-keygen -Y verify -n airt-report)',
      }),
  async run(args, io) {
    const [{ writeBundle, collectBundleFiles }, { loadSigningKey }] = await Promise.all([
      import('../../pipeline/bundle.js'),
      import('../../pipeline/bundle-signature.js'),
    ]);
    const resolve = (file: string): string => path.resolve(io.cwd, file);
    // Read first: a key that cannot sign fails before anything is written.
    const signingKey =
      args['sign-key'] === undefined ? undefined : await loadSigningKey(resolve(args['sign-key']));
    const files: BundleFile[] = [];
    const reports = args.report ?? [];
    for (const report of reports) {
      const full = resolve(report);
      const info = await stat(full).catch(() => null);
      if (info === null) throw new UsageError(`--report ${report} does not exist.`);
      // Report directories all hold report.md, charts/…: several are kept apart by their own names.
      const prefix = reports.length > 1 ? `reports/${path.basename(full)}/` : 'reports/';
      if (info.isDirectory()) files.push(...(await collectBundleFiles(full, prefix)));
      else files.push({ name: `reports/${path.basename(full)}`, path: full });
    }
    const named = (list: string[] | undefined, flag: string, stem: string): void => {
      for (const file of list ?? []) {
        const extension = path.extname(file).toLowerCase();
        if (extension !== '.md' && extension !== '.json')
          throw new UsageError(`--${flag} ${file}: expected a .md or .json file.`);
        if (files.some((entry) => entry.name === `${stem}${extension}`))
          throw new UsageError(
            `--${flag} was given two ${extension} files; give at most one of each format.`,
          );
        const full = resolve(file);
        if (!existsSync(full)) throw new UsageError(`--${flag} ${file} does not exist.`);
        files.push({ name: `${stem}${extension}`, path: full });
      }
    };
    named(args['gate-report'], 'gate-report', 'gate-report');
    named(args.diff, 'diff', 'diff');
    const result = await writeBundle({
      out: resolve(args.out),
      snapshotDir: resolve(args.snapshot),
      includeSnapshot: args['include-snapshot'] ?? false,
      files,
      signal: io.signal,
      signingKey,
    });
    // The root hash printed here is the value `verify BUNDLE.zip` asks to compare with later.
    io.stderr(
      `bundle: ${result.entries.length} entries, sha256 ${result.sha256}, snapshot ${result.snapshot_id} root hash ${result.root_sha256}\n`,
    );
    if (result.signature_path !== null) {
      io.stderr(
        `bundle: signed with key ${result.signing_key ?? '?'}; signature also in ${result.signature_path}\n`,
      );
    }
    io.stdout(`${result.path}\n`);
    return EXIT.ok;
  },
});
