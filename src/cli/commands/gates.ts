/**
 * `airt-report gates --config FILE`: evaluate the config's gates on a loaded snapshot and write the
 * gate report (Markdown on stdout; `--junit`, `--json`, `--md` files). Exit 4 when a gate trips,
 * as in `run`. Reads the database only.
 */
import path from 'node:path';
import { EXIT } from '../../errors.js';
import { defineCommand } from '../command.js';

interface GatesArgs {
  config: string;
  db?: string | undefined;
  snapshot?: string | undefined;
  previous?: string | undefined;
  junit?: string | undefined;
  json?: string | undefined;
  md?: string | undefined;
}

export const gatesCommand = defineCommand<GatesArgs>({
  command: 'gates',
  describe: "Check a run config's gates against a loaded snapshot; JUnit XML for CI (exit 4 when one trips)",
  builder: (y) =>
    y
      .option('config', {
        type: 'string',
        demandOption: true,
        describe: 'Run config (.yaml or .json) with the gates',
      })
      .option('db', { type: 'string', describe: "DuckDB warehouse file (default: the config's database)" })
      .option('snapshot', {
        type: 'string',
        describe: "Snapshot id (default: the config workspace's newest)",
      })
      .option('previous', {
        type: 'string',
        describe:
          'Snapshot new/regressed findings are counted against (default: the one a run of it compared with, ' +
          "the gated baseline; never a partial one; 'none' for none)",
      })
      .option('junit', {
        type: 'string',
        describe: 'Write the results as JUnit XML (GitLab, Jenkins test reports)',
      })
      .option('json', { type: 'string', describe: 'Write the gate report as JSON' })
      .option('md', {
        type: 'string',
        describe: 'Write the gate report as Markdown (stdout shows it always)',
      }),
  async run(args, io) {
    const [
      { loadRunConfig },
      { openWarehouse, requireDatabase },
      { checkSchema },
      { checkGates },
      reportModule,
      { gateReportJunit },
      files,
    ] = await Promise.all([
      import('../../pipeline/run-config.js'),
      import('../../warehouse/db.js'),
      import('../../warehouse/ddl.js'),
      import('../../pipeline/check-gates.js'),
      import('../../pipeline/gate-report.js'),
      import('../../pipeline/gate-junit.js'),
      import('../../output-file.js'),
    ]);
    const config = await loadRunConfig(args.config, io.cwd);
    const outputs = [
      [args.junit, gateReportJunit],
      [args.json, reportModule.gateReportJson],
      [args.md, reportModule.gateReportMarkdown],
    ] as const;
    const targets = outputs.flatMap(([file, render]) =>
      file === undefined ? [] : [{ file: path.resolve(io.cwd, file), render }],
    );
    // Refused paths fail before the database is opened.
    for (const target of targets) await files.checkOutputFile(target.file);
    const db = args.db === undefined ? config.database : path.resolve(io.cwd, args.db);
    requireDatabase(db);
    const warehouse = await openWarehouse(db, { readOnly: true });
    let result;
    try {
      // An older database's views are an older definition of the figures: it is upgraded first.
      await checkSchema(warehouse.conn, db);
      result = await checkGates(warehouse.conn, {
        gates: config.gates,
        onUnknown: config.on_unknown_gate,
        projects: config.projects,
        org: config.connection.org,
        workspace: config.connection.workspace,
        database: db,
        snapshotId: args.snapshot,
        previousSnapshotId:
          args.previous === undefined ? undefined : args.previous === 'none' ? null : args.previous,
      });
    } finally {
      warehouse.close();
    }
    for (const warning of result.warnings) io.stderr(`warning: ${warning}\n`);
    for (const target of targets) await files.writeOutputFile(target.file, target.render(result.report));
    io.stdout(reportModule.gateReportMarkdown(result.report));
    return result.report.tripped ? EXIT.gate : EXIT.ok;
  },
});
