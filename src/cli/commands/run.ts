/**
 * `airt-report run --config FILE`: the scheduled pipeline (snapshot → verify → load → diff → reports →
 * gates → bundle → retention; see src/pipeline/run-pipeline.ts). Prints the run summary's path on
 * stdout and a human summary on stderr. Exit 0 ok · 1 failed (also: service unreachable) · 3 partial
 * snapshot · 4 gate tripped; 1 and 4 win over 3 (run-summary.json's partial_snapshot still says it was
 * partial, see decideOutcome in src/pipeline/run-summary.ts). Only a run whose every step succeeded on
 * a complete snapshot becomes the next run's baseline (src/pipeline/run-baseline.ts).
 */
import path from 'node:path';
import { EXIT, UsageError } from '../../errors.js';
import { defineCommand } from '../command.js';

interface RunArgs {
  config?: string | undefined;
  'print-config-schema'?: boolean | undefined;
  quiet?: boolean | undefined;
}

export const runCommand = defineCommand<RunArgs>({
  command: 'run',
  describe:
    'Run the scheduled pipeline from a config file (exit 3 partial snapshot, 4 gate tripped, also on a partial one)',
  builder: (y) =>
    y
      .option('config', { type: 'string', describe: 'Run configuration (.yaml, .yml or .json)' })
      .option('print-config-schema', {
        type: 'boolean',
        describe: "Print the config file's JSON Schema and exit",
      })
      .option('quiet', { type: 'boolean', describe: 'No snapshot progress output' })
      .epilog(
        'Exit codes: 0 ok · 1 failed (also: service unreachable) · 3 partial snapshot (some requests ' +
          'failed) · 4 a gate tripped · 130/143 interrupted. When several apply, the first of 130/143, 1, ' +
          '4, 3 wins: a gate that trips on a partial snapshot exits 4, and the first stderr line and ' +
          'partial_snapshot in run-summary.json say the snapshot was partial.',
      ),
  async run(args, io) {
    const { loadRunConfig, runConfigJsonSchema } = await import('../../pipeline/run-config.js');
    if (args['print-config-schema']) {
      io.stdout(`${JSON.stringify(runConfigJsonSchema(), null, 2)}\n`);
      return EXIT.ok;
    }
    if (!args.config)
      throw new UsageError('Name the run configuration: airt-report run --config airt-report.yaml');
    const loaded = await loadRunConfig(args.config, io.cwd);
    // The triage journal is one setting shared with triage/snapshot/load (src/triage/journal-setting.ts).
    const [{ journalForRun }, { neutralizeControls }] = await Promise.all([
      import('../../triage/journal-setting.js'),
      import('../../api/error-body.js'),
    ]);
    const journal = await journalForRun(
      loaded.snapshot.triage_journal,
      { ...loaded.connection, configDir: loaded.source === null ? null : path.dirname(loaded.source) },
      io,
    );
    for (const warning of journal.warnings) io.stderr(`run: warning: ${neutralizeControls(warning)}\n`);
    const config =
      journal.path === loaded.snapshot.triage_journal
        ? loaded
        : { ...loaded, snapshot: { ...loaded.snapshot, triage_journal: journal.path } };
    const { runPipeline } = await import('../../pipeline/run-pipeline.js');
    const result = await runPipeline(config, {
      stderr: (text) => io.stderr(text),
      env: io.env,
      stderrIsTTY: io.stderrIsTTY,
      quiet: args.quiet ?? false,
      signal: io.signal,
    });
    if (result.summaryPath !== null) io.stdout(`${result.summaryPath}\n`);
    return result.exitCode;
  },
});
