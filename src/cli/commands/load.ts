/**
 * `airt-report load SNAPSHOT_DIR… --db FILE [--force] [--journal FILE]`: load snapshots (and a triage
 * journal) into the DuckDB warehouse. Idempotent; one transaction per snapshot. Progress on stderr, a
 * summary of rows per table and warnings on stdout.
 */
import path from 'node:path';
import { EXIT, UsageError } from '../../errors.js';
import { defineCommand } from '../command.js';

interface LoadArgs {
  dirs?: string[] | undefined;
  db: string;
  force?: boolean | undefined;
  journal?: string | undefined;
  quiet?: boolean | undefined;
  'memory-limit'?: string | undefined;
}

export const loadCommand = defineCommand<LoadArgs>({
  command: 'load [dirs..]',
  describe: 'Load snapshot directories (and a triage journal) into a DuckDB warehouse file',
  builder: (y) =>
    y
      .positional('dirs', {
        type: 'string',
        array: true,
        describe: 'Snapshot directories (…/<org>/<workspace>/<snapshot_id>)',
      })
      .option('db', {
        type: 'string',
        demandOption: true,
        describe: 'DuckDB database file (created if missing)',
      })
      .option('force', {
        type: 'boolean',
        describe: 'Load snapshots that fail verification (marked unverified)',
      })
      .option('journal', { type: 'string', describe: 'Triage journal (JSON Lines) to load as well' })
      .option('quiet', { type: 'boolean', describe: 'No progress output' })
      .option('memory-limit', {
        type: 'string',
        describe: "DuckDB memory limit; spills to disk beyond it [default: '384MB']",
      }),
  async run(args, io) {
    const dirs = (args.dirs ?? []).map((d) => path.resolve(io.cwd, d));
    if (dirs.length === 0 && !args.journal)
      throw new UsageError('Name at least one snapshot directory or a --journal file.');
    const [{ loadSnapshots }, { neutralizeControls }] = await Promise.all([
      import('../../warehouse/loader.js'),
      import('../../api/error-body.js'),
    ]);
    const show = neutralizeControls;
    const progress = (text: string): void => {
      if (!args.quiet) io.stderr(`${text}\n`);
    };
    const result = await loadSnapshots(path.resolve(io.cwd, args.db), dirs, {
      force: args.force ?? false,
      ...(args['memory-limit'] ? { memoryLimit: args['memory-limit'] } : {}),
      ...(args.journal ? { journal: path.resolve(io.cwd, args.journal) } : {}),
      onProgress: (event) => {
        if (event.type === 'verify') progress(`verifying ${show(event.snapshotId)} (${event.files} files)`);
        else if (event.type === 'trials') progress(`  trials: ${event.filesDone}/${event.filesTotal} files`);
        else if (event.type === 'committed') progress(`  committed ${show(event.snapshotId)}`);
        else if (event.type === 'already_loaded')
          progress(`  ${show(event.snapshotId)} is already loaded (same root hash): nothing to do`);
      },
    });
    const lines: string[] = [];
    for (const s of result.snapshots) {
      const flags = [s.status, s.verified ? 'verified' : 'UNVERIFIED (--force)'].join(', ');
      if (s.outcome === 'already_loaded') {
        lines.push(`${show(s.snapshotId)}: already loaded, unchanged`);
        continue;
      }
      lines.push(`${show(s.snapshotId)}: loaded (${flags}), ${s.warnings} warning(s)`);
      for (const [table, rows] of Object.entries(s.rows))
        if (rows > 0) lines.push(`  ${table.padEnd(28)} ${rows}`);
    }
    if (result.journal) {
      const j = result.journal;
      lines.push(
        `journal ${show(j.file)}: ${j.lines} line(s), ${j.loaded} finding(s) loaded, ${j.alreadyLoaded} already loaded, ${j.notApplied} not applied, ${j.reviewEvents} new review event(s)`,
      );
      for (const w of j.warnings) lines.push(`  warning: ${show(w)}`);
    }
    const warned = result.snapshots.some((s) => s.warnings > 0);
    if (warned) lines.push(`Warnings: SELECT * FROM load_warnings ORDER BY snapshot_id, ordinal`);
    io.stdout(`${lines.join('\n')}\n`);
    return EXIT.ok;
  },
});
