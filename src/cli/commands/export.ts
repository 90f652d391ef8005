/**
 * `airt-report export --db FILE --out DIR`: every warehouse table as Parquet under
 * DIR/<table>/snapshot_id=<id>/, readable by DuckDB, Spark, Trino or any Parquet reader; run again
 * into the same DIR, it adds the new snapshots' partitions only.
 */
import path from 'node:path';
import { abortExitCode, CliError, EXIT, interruptionText, STOP_SIGNALS } from '../../errors.js';
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
    // Ctrl-C/SIGTERM (io.signal) stops it before it publishes, leaving --out as it was (exit 130/143);
    // while it publishes, no stop signal stops or kills it (the renames are always finished).
    const result = await exportParquet(path.resolve(io.cwd, args.db), path.resolve(io.cwd, args.out), {
      signal: io.signal,
      whilePublishing: holdStopSignals,
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

/**
 * Keeps SIGINT and SIGTERM from killing the process until the returned function is called. The CLI
 * stops on the first one through io.signal (its listener is `once`); a second one would find no
 * listener and kill the process at once. An export publishing its directories (renames only, quick)
 * would be left half-published: while it publishes, both are received and ignored (the first one has
 * aborted io.signal, which the command reports once publishing is done).
 */
export function holdStopSignals(): () => void {
  const ignore = (): void => undefined;
  for (const name of STOP_SIGNALS) process.on(name, ignore);
  return () => {
    for (const name of STOP_SIGNALS) process.off(name, ignore);
  };
}
