/**
 * `airt-report query "SQL"|@name|@list --db FILE [--format …] [--out FILE] [--raw]`: run SQL (or a
 * named query from queries/) on the warehouse, opened read-only. SQL errors print DuckDB's message on
 * one line. @list needs no database.
 */
import path from 'node:path';
import { EXIT, UsageError } from '../../errors.js';
import { defineCommand } from '../command.js';

const FORMATS = ['table', 'csv', 'json', 'ndjson', 'markdown'] as const;

interface QueryArgs {
  sql: string;
  db?: string | undefined;
  format: (typeof FORMATS)[number];
  out?: string | undefined;
  raw?: boolean | undefined;
}

export const queryCommand = defineCommand<QueryArgs>({
  command: 'query <sql>',
  describe: 'Run SQL or a named query (@name; @list shows them) on the warehouse, read-only',
  builder: (y) =>
    y
      .positional('sql', { type: 'string', demandOption: true, describe: 'SQL text, @name, or @list' })
      .option('db', { type: 'string', describe: 'DuckDB database file (not needed for @list)' })
      .option('format', { choices: FORMATS, default: 'table' as const, describe: 'Output format' })
      .option('out', { type: 'string', describe: 'Write to this file instead of stdout' })
      .option('raw', {
        type: 'boolean',
        describe: 'CSV: keep cells starting with = + - @ as they are (no formula guard)',
      }),
  async run(args, io) {
    const [{ streamQuery }, { writeResult }, { listNamedQueries, readNamedQuery }] = await Promise.all([
      import('../../warehouse/query.js'),
      import('../../warehouse/output-format.js'),
      import('../../warehouse/named-queries.js'),
    ]);
    if (args.sql === '@list') {
      const queries = await listNamedQueries();
      const width = Math.max(...queries.map((q) => q.name.length)) + 3;
      io.stdout(queries.map((q) => `@${q.name.padEnd(width - 1)}${q.answers}`).join('\n') + '\n');
      return EXIT.ok;
    }
    if (args.sql.trim() === '') throw new UsageError('The SQL is empty: give SQL text, @name or @list.');
    if (args.db === undefined) throw new UsageError('Name the database: --db FILE.');
    const [{ checkOutputFile, openOutputFile }] = await Promise.all([import('../../output-file.js')]);
    const target = args.out ? path.resolve(io.cwd, args.out) : undefined;
    // Refused before the query runs, so a bad --out costs nothing.
    if (target !== undefined) await checkOutputFile(target);
    const named = args.sql.startsWith('@') ? await readNamedQuery(args.sql.slice(1)) : null;
    // CSV shown on a terminal shows control characters as escapes; a file (or pipe) gets the data.
    const options = { raw: args.raw ?? false, terminal: target === undefined && io.stdoutIsTTY === true };
    // Rows stream from DuckDB to the output a batch at a time: a million rows in bounded memory.
    await streamQuery(
      path.resolve(io.cwd, args.db),
      named ? named.sql : args.sql,
      named ? `Named query @${named.name}` : 'Query',
      async (stream) => {
        if (target === undefined) {
          await writeResult(
            stream,
            args.format,
            (text) => io.writeStdout?.(text) ?? io.stdout(text),
            options,
          );
          return;
        }
        const file = await openOutputFile(target, { signal: io.signal });
        try {
          const rows = await writeResult(stream, args.format, (text) => file.write(text), options);
          await file.commit();
          io.stderr(`${rows} row(s) written to ${target}\n`);
        } finally {
          await file.discard();
        }
      },
    );
    return EXIT.ok;
  },
});
