/**
 * `airt-report diff --db FILE --from SNAP --to SNAP`: what changed between two loaded snapshots —
 * finding lifecycle (new, resolved, regressed, persisting), metric deltas and schema drift — as
 * Markdown or JSON on stdout (or --out FILE). Reads the database only, never the network.
 */
import path from 'node:path';
import { EXIT } from '../../errors.js';
import { defineCommand } from '../command.js';

interface DiffArgs {
  db: string;
  from: string;
  to: string;
  project?: string[] | undefined;
  org?: string | undefined;
  workspace?: string | undefined;
  format: 'md' | 'json';
  out?: string | undefined;
}

export const diffCommand = defineCommand<DiffArgs>({
  command: 'diff',
  describe: 'Compare two loaded snapshots: new/resolved/regressed findings, metric deltas, schema drift',
  builder: (y) =>
    y
      .option('db', {
        type: 'string',
        demandOption: true,
        describe: 'DuckDB warehouse file (opened read-only)',
      })
      .option('from', { type: 'string', demandOption: true, describe: 'Earlier snapshot id' })
      .option('to', { type: 'string', demandOption: true, describe: 'Later snapshot id' })
      .option('project', {
        type: 'string',
        array: true,
        describe: 'Project key or id (repeatable; default: all)',
      })
      .option('org', {
        type: 'string',
        describe: 'The org both snapshots must belong to (a diff never compares workspaces)',
      })
      .option('workspace', {
        type: 'string',
        describe: 'The workspace both snapshots must belong to',
      })
      .option('format', {
        choices: ['md', 'json'] as const,
        default: 'md' as const,
        describe: 'Output format',
      })
      .option('out', { type: 'string', describe: 'Write to this file instead of stdout' }),
  async run(args, io) {
    const [
      { openWarehouse, requireDatabase },
      { checkSchema },
      { diffSnapshots },
      { diffJson, diffMarkdown },
      { checkOutputFile, writeOutputFile },
    ] = await Promise.all([
      import('../../warehouse/db.js'),
      import('../../warehouse/ddl.js'),
      import('../../diff/snapshot-diff.js'),
      import('../../diff/diff-report.js'),
      import('../../output-file.js'),
    ]);
    const out = args.out === undefined ? undefined : path.resolve(io.cwd, args.out);
    if (out !== undefined) await checkOutputFile(out);
    const db = path.resolve(io.cwd, args.db);
    requireDatabase(db);
    const warehouse = await openWarehouse(db, { readOnly: true });
    let text: string;
    try {
      // An older database's views are an older definition of the figures: it is upgraded first.
      await checkSchema(warehouse.conn, db);
      const diff = await diffSnapshots(warehouse.conn, {
        from: args.from,
        to: args.to,
        projects: args.project ?? [],
        org: args.org,
        workspace: args.workspace,
      });
      text = args.format === 'json' ? diffJson(diff) : diffMarkdown(diff);
      const [before, after] = [diff.from?.fetched_at ?? null, diff.to.fetched_at];
      if (before !== null && after !== null && before > after) {
        // Allowed (it answers "what would going back look like"), but usually swapped by mistake.
        io.stderr(
          `diff: warning: --from ${args.from} was fetched after --to ${args.to}, so "new" and "resolved" are reversed; swap them for the usual direction.\n`,
        );
      }
    } finally {
      warehouse.close();
    }
    if (out === undefined) {
      io.stdout(text);
    } else {
      await writeOutputFile(out, text, { signal: io.signal });
      io.stdout(`${out}\n`);
    }
    return EXIT.ok;
  },
});
