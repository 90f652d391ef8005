/**
 * `airt-report report`: renders an executive, compliance or portfolio report from the DuckDB
 * warehouse (read-only, never the network) as Markdown, HTML or PDF. Prints the report path.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { EXIT, UsageError } from '../../errors.js';
import { defineCommand } from '../command.js';

const KINDS = ['executive', 'compliance', 'portfolio'] as const;
const FORMATS = ['md', 'html', 'pdf', 'json', 'oscal'] as const;

interface ReportArgs {
  db: string;
  kind: (typeof KINDS)[number];
  project?: string | undefined;
  snapshot?: string | undefined;
  org?: string | undefined;
  workspace?: string | undefined;
  framework?: string | undefined;
  format: (typeof FORMATS)[number];
  out: string;
  templates?: string | undefined;
  redact?: boolean | undefined;
  'max-text': number;
  png?: boolean | undefined;
}

export const reportCommand = defineCommand<ReportArgs>({
  command: 'report',
  describe: 'Render an executive, compliance or portfolio report (Markdown, HTML or PDF) from the database',
  builder: (y) =>
    y
      .option('db', {
        type: 'string',
        demandOption: true,
        describe: 'DuckDB warehouse file (opened read-only)',
      })
      .option('kind', { choices: KINDS, demandOption: true, describe: 'Report kind' })
      .option('project', { type: 'string', describe: 'Project key or id (executive and compliance)' })
      .option('snapshot', {
        type: 'string',
        describe: 'Snapshot id (default: the newest holding the project)',
      })
      .option('org', {
        type: 'string',
        describe: 'Only projects of this org (chooses among workspaces that share a project key)',
      })
      .option('workspace', {
        type: 'string',
        describe: 'Only projects of this workspace (chooses among workspaces that share a project key)',
      })
      .option('framework', {
        type: 'string',
        describe: 'Compliance framework key, e.g. owasp_llm (default: all)',
      })
      .option('format', {
        choices: FORMATS,
        demandOption: true,
        describe: 'Output format (oscal: OSCAL 1.1.2 assessment-results JSON of one project)',
      })
      .option('out', { type: 'string', demandOption: true, describe: 'Output file, or directory for md' })
      .option('templates', {
        type: 'string',
        describe: 'Directory with your copy of templates/ (md/, html/)',
      })
      .option('redact', {
        type: 'boolean',
        describe: 'Replace candidates, responses, goals and notes by a hash',
      })
      .option('max-text', {
        type: 'number',
        default: 280,
        describe: 'Longest data text shown, in characters',
      })
      .option('png', { type: 'boolean', describe: 'Also write PNG charts (md only)' }),
  async run(args, io) {
    if (args.kind !== 'portfolio' && !args.project) {
      throw new UsageError(`--kind ${args.kind} needs --project (a project key or id).`);
    }
    if (args.format === 'oscal' && args.kind === 'portfolio') {
      throw new UsageError(
        '--format oscal describes one project: use --kind executive or compliance with --project.',
      );
    }
    if (args.kind === 'portfolio' && args.project) {
      throw new UsageError('--kind portfolio covers every project; drop --project.');
    }
    if (args.framework && args.kind !== 'compliance') {
      throw new UsageError('--framework applies to --kind compliance only.');
    }
    if (args.png && args.format !== 'md') {
      throw new UsageError('--png applies to --format md (HTML and PDF inline their charts as SVG).');
    }
    const maxText = args['max-text'];
    if (!Number.isInteger(maxText) || maxText < 1) {
      throw new UsageError(
        `--max-text must be a positive whole number of characters, got ${String(maxText)}.`,
      );
    }
    const resolve = (file: string): string => path.resolve(io.cwd, file);
    const { requireDatabase } = await import('../../warehouse/db.js');
    requireDatabase(resolve(args.db));
    if (args.format === 'md' && statSync(resolve(args.out), { throwIfNoEntry: false })?.isFile()) {
      throw new UsageError(
        `--format md writes a directory (report.md and charts/), but --out ${args.out} is a file; name a directory.`,
      );
    }
    if (args.format === 'oscal') {
      const { exportOscal } = await import('../../oscal/export-oscal.js');
      const written = await exportOscal({
        db: resolve(args.db),
        project: args.project ?? '',
        snapshot: args.snapshot,
        org: args.org,
        workspace: args.workspace,
        framework: args.framework,
        out: resolve(args.out),
        signal: io.signal,
      });
      io.stdout(`${written}\n`);
      return EXIT.ok;
    }
    const { generateReport } = await import('../../report/generate.js');
    const { resolveChromiumPath } = await import('../../report/pdf.js');
    const written = await generateReport({
      db: resolve(args.db),
      kind: args.kind,
      project: args.project,
      snapshot: args.snapshot,
      org: args.org,
      workspace: args.workspace,
      framework: args.framework,
      format: args.format,
      out: args.out.endsWith('/') ? `${resolve(args.out)}/` : resolve(args.out),
      templatesDir: args.templates === undefined ? undefined : resolve(args.templates),
      redact: args.redact ?? false,
      maxText,
      png: args.png ?? false,
      chromiumPath: resolveChromiumPath(io.env),
      signal: io.signal,
    });
    if (written.redactedCount > 0) io.stderr(`report: ${written.redactedCount} text excerpts redacted\n`);
    io.stdout(`${written.report}\n`);
    return EXIT.ok;
  },
});
