/**
 * `airt-report export --db FILE --out DIR`: every warehouse table as Parquet under
 * DIR/<table>/snapshot_id=<id>/, readable by DuckDB, Spark, Trino or any Parquet reader; run again
 * into the same DIR, it adds the new snapshots' partitions only.
 */
import path from 'node:path';
import { abortExitCode, CliError, EXIT, interruptionText } from '../../errors.js';
import { defineCommand } from '../command.js';

interface ExportArgs {
  db: string;
  out: string;
}

export const exportCommand = defineCommand<ExportArgs>({
  command: 'export',
  describe:
    'Export every warehouse table as Hive-partitioned Parquet (DIR/<table>/snapshot_id=…/); again into DIR adds new snapshots',
  builder: (y) =>
    y.option('db', { type: 'string', demandOption: true, describe: 'DuckDB database file' }).option('out', {
      type: 'string',
      demandOption: true,
      describe: 'New or empty output directory, or an earlier export to add to',
    }),
  async run(args, io) {
    const { exportParquet } = await import('../../warehouse/export.js');
    // Ctrl-C/SIGTERM (io.signal) stops it before it publishes, leaving --out as it was (exit 130/143).
    const result = await exportParquet(path.resolve(io.cwd, args.db), path.resolve(io.cwd, args.out), {
      signal: io.signal,
    });
    const lines = result.tables.map((t) =>
      t.rows === 0
        ? `  ${t.table.padEnd(28)} 0 rows (no files)`
        : `  ${t.table.padEnd(28)} ${t.rows} rows, ${t.partitions.length} partition(s) written, ${t.kept} kept`,
    );
    // stdout is the output path alone (scripts capture it); the per-table summary is for people.
    io.stderr(`${lines.join('\n')}\n`);
    io.stdout(`${result.dir}\n`);
    // Stopped while publishing, which is completed first (renames only): the export is whole.
    if (io.signal.aborted)
      throw new CliError(
        `${interruptionText(io.signal)} while the export was being published; publishing was completed first, so the export is complete: ${result.dir}`,
        abortExitCode(io.signal),
      );
    return EXIT.ok;
  },
});
