/**
 * `airt-report snapshot`: fetch a workspace into `<out>/<org>/<workspace>/<snapshot_id>/` (see
 * src/snapshot/take-snapshot.ts). Progress goes to stderr; the last stdout line is the finished
 * snapshot directory. Exit 3 when the snapshot is partial (some requests failed), still usable.
 */
import path from 'node:path';
import { stat } from 'node:fs/promises';
import { CliError, expectedExitCode, PartialResultError, UsageError } from '../../errors.js';
import type { Manifest } from '../../snapshot/manifest.js';
import type { SnapshotStoppedError } from '../../snapshot/take-snapshot.js';
import { defineCommand } from '../command.js';
import { cliMessage, cliOptionName } from '../option-names.js';
import { resolveConnection, withConnectionOptions, type ConnectionArgs } from '../connection.js';
import { journalOptionHelp, journalToRead } from '../../triage/journal-setting.js';

interface SnapshotArgs extends ConnectionArgs {
  project?: string[] | undefined;
  out: string;
  concurrency?: number | undefined;
  'trials-limit'?: number | undefined;
  'jailbreaks-only'?: boolean | undefined;
  since?: string | undefined;
  resume?: string | undefined;
  journal?: string | undefined;
  quiet?: boolean | undefined;
  timeout?: number | undefined;
}

export const snapshotCommand = defineCommand<SnapshotArgs>({
  command: 'snapshot',
  describe: 'Fetch a workspace into a verifiable, resumable snapshot directory (prints its path)',
  builder: (y) =>
    withConnectionOptions(y)
      .option('project', {
        type: 'string',
        array: true,
        describe:
          'Project slug or UUID to include (repeatable); projects of evaluation jobs are always included',
      })
      .option('out', { type: 'string', default: 'snapshots', describe: 'Root directory of snapshots' })
      .option('concurrency', { type: 'number', describe: 'Requests in flight at most [default: 8]' })
      .option('trials-limit', {
        type: 'number',
        describe: 'Trials fetched per assessment, 1-5000 [default: 5000]',
      })
      .option('jailbreaks-only', { type: 'boolean', describe: 'Fetch only jailbreak trials' })
      .option('since', { type: 'string', describe: 'Previous snapshot: copy unchanged trial lists from it' })
      .option('resume', { type: 'string', describe: 'Continue an unfinished (.partial) or partial snapshot' })
      .option('journal', { type: 'string', describe: journalOptionHelp('read') })
      .option('quiet', { type: 'boolean', describe: 'No progress output (warnings are still shown)' })
      .option('timeout', {
        type: 'number',
        describe:
          'Seconds to wait for an answer to start, and the longest pause while a body arrives (a body may take 20x as long in all) [default: 30]',
      }),
  async run(args, io) {
    const timeoutMs = timeoutOption(args.timeout);
    const connection = resolveConnection(args, io);
    const [{ takeSnapshot, SnapshotStoppedError }, { createProgress }, { neutralizeControls }] =
      await Promise.all([
        import('../../snapshot/take-snapshot.js'),
        import('../../snapshot/progress.js'),
        import('../../api/error-body.js'),
      ]);
    const resolve = (file: string | undefined): string | undefined =>
      file === undefined ? undefined : path.resolve(io.cwd, file);
    const progress = createProgress({
      write: (text) => io.stderr(text),
      isTTY: io.stderrIsTTY,
      quiet: args.quiet ?? false,
      stream: io.stderrIsTTY ? process.stderr : undefined,
    });
    let workingDir: string | undefined;
    const result = await takeSnapshot(
      {
        baseUrl: connection.baseUrl,
        org: connection.org,
        workspace: connection.workspace,
        token: connection.token,
        out: path.resolve(io.cwd, args.out),
        projects: args.project,
        concurrency: args.concurrency,
        trialsLimit: args['trials-limit'],
        // Only an explicit --jailbreaks-only counts, so --resume keeps the recorded choice.
        jailbreaksOnly: args['jailbreaks-only'] === true ? true : undefined,
        since: resolve(args.since),
        resume: resolve(args.resume),
        journal: journalToRead(args.journal, io),
        timeoutMs,
      },
      { signal: io.signal, progress, onWorkingDirectory: (dir) => (workingDir = dir) },
    ).catch(async (error: unknown) => {
      throw await withResumeHint(error, workingDir, SnapshotStoppedError);
    });
    const { manifest } = result;
    // Warnings are not progress: --quiet keeps them (a mistyped --project must not pass unnoticed).
    for (const warning of manifest.warnings) {
      if (warning.code === 'project_not_found') {
        io.stderr(`snapshot: warning: ${neutralizeControls(flagWording(warning.message))}\n`);
      }
    }
    if (manifest.warnings.length > 0) {
      const byCode = new Map<string, number>();
      for (const warning of manifest.warnings) byCode.set(warning.code, (byCode.get(warning.code) ?? 0) + 1);
      const summary = [...byCode].map(([code, n]) => `${code} ×${n}`).join(', ');
      io.stderr(
        `snapshot: ${manifest.warnings.length} warning(s): ${neutralizeControls(summary)} (see manifest.json)\n`,
      );
    }
    io.stdout(`${result.dir}\n`);
    if (result.status === 'partial') throw new PartialResultError(partialMessage(manifest, result.dir));
    return 0;
  },
});

/** `--timeout SECONDS` as the client's milliseconds; undefined keeps the client's default. */
function timeoutOption(seconds: number | undefined): number | undefined {
  if (seconds === undefined) return undefined;
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
    throw new UsageError(
      `--timeout must be a number of seconds above 0 and at most 3600, got ${String(seconds)}.`,
    );
  }
  return Math.ceil(seconds * 1000);
}

/** A warning about a project the user asked for names the flag they asked with. */
function flagWording(message: string): string {
  return message.replace(/^Requested project /u, `${cliOptionName('projects')} `);
}

/**
 * The library says what stopped the run and where the unfinished snapshot is; the CLI adds the command
 * that continues it, when that directory is still there (a run that fetched nothing leaves none).
 */
async function withResumeHint(
  error: unknown,
  workingDir: string | undefined,
  stoppedError: typeof SnapshotStoppedError,
): Promise<unknown> {
  const expected = expectedExitCode(error);
  if (expected === undefined || !(error instanceof Error) || workingDir === undefined) return error;
  if (
    !(await stat(workingDir).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  ) {
    return error;
  }
  const what =
    error instanceof stoppedError ? error.reasonWith(cliOptionName) : cliMessage(error).replace(/\s*$/u, '');
  return new CliError(
    `${what} The unfinished snapshot is kept in ${workingDir}; continue it with: ` +
      `airt-report snapshot --resume ${workingDir} (with the same --base-url, --org and --workspace).`,
    expected,
    { cause: error },
  );
}

/**
 * Why the snapshot is partial and what to do: a --project the service does not know is fixed in the
 * command (resuming would ask for it again); other failed requests are fetched with --resume.
 */
function partialMessage(manifest: Manifest, dir: string): string {
  const unknown = manifest.failed_requests.filter(
    (failure) =>
      failure.kind === 'project_summary' &&
      failure.status === 404 &&
      failure.project !== undefined &&
      manifest.options.projects.includes(failure.project),
  );
  const others = manifest.failed_requests.length - unknown.length;
  const parts: string[] = [];
  if (unknown.length > 0) {
    const names = unknown.map((failure) => JSON.stringify(failure.project)).join(', ');
    parts.push(
      `--project ${names}: not found (404) in ${manifest.org}/${manifest.workspace}, so the snapshot is ` +
        'marked partial; everything else was fetched. Check the project slug or id and take the snapshot again.',
    );
  }
  if (others > 0) {
    parts.push(
      `${others} request(s) failed after retries; the snapshot is marked partial ` +
        `(see failed_requests in manifest.json) but usable. Fetch what is missing with: ` +
        `airt-report snapshot --resume ${dir}`,
    );
  }
  return parts.join(' ');
}
