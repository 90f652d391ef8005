/**
 * `airt-report load SNAPSHOT_DIR… --db FILE [--force] [--journal FILE]`: load snapshots (and a triage
 * journal) into the DuckDB warehouse. Idempotent; one transaction per snapshot. Progress and the load's
 * warnings (the first few; all are in load_warnings) on stderr, a summary of rows per table on stdout.
 * `load --db FILE` alone upgrades an existing database to this version's schema (what the read-only
 * commands ask for after an upgrade of airt-report), loading nothing.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { abortExitCode, CliError, EXIT, interruptionText, UsageError } from '../../errors.js';
import { withStopGuardAfter } from '../../pipeline/stop-signals.js';
import { defineCommand } from '../command.js';
import type { CliIO } from '../io.js';
import { journalOptionHelp, journalToRead } from '../../triage/journal-setting.js';
import type { LoadWarningRow } from '../../warehouse/shown-warnings.js';

interface LoadArgs {
  dirs?: string[] | undefined;
  db: string;
  force?: boolean | undefined;
  journal?: string | undefined;
  quiet?: boolean | undefined;
  'memory-limit'?: string | undefined;
  'lock-timeout'?: number | undefined;
}

export const loadCommand = defineCommand<LoadArgs>({
  command: 'load [dirs..]',
  describe:
    'Load snapshot directories (and a triage journal) into a DuckDB warehouse file; with neither, upgrade the file to this schema',
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
      .option('journal', { type: 'string', describe: journalOptionHelp('read') })
      .option('quiet', { type: 'boolean', describe: 'No progress output' })
      .option('memory-limit', {
        type: 'string',
        describe: "DuckDB memory limit; spills to disk beyond it [default: '256MB']",
      })
      .option('lock-timeout', {
        type: 'number',
        describe:
          'Seconds to wait while another process (e.g. another load) holds the database [default: 60]',
      }),
  async run(args, io) {
    const dirs = (args.dirs ?? []).map((d) => path.resolve(io.cwd, d));
    const lockTimeout = args['lock-timeout'];
    if (lockTimeout !== undefined && !(Number.isFinite(lockTimeout) && lockTimeout >= 0))
      throw new UsageError(`--lock-timeout must be a number of seconds >= 0, got ${String(lockTimeout)}.`);
    const journal = journalToRead(args.journal, io);
    const db = path.resolve(io.cwd, args.db);
    // The loader loads proper-lockfile (through the triage journal's format): guarded, the first
    // Ctrl-C is left to io.signal (the loader rolls back, closes and cleans up) instead of killing it.
    return withStopGuardAfter(
      () => import('../../warehouse/loader.js'),
      io.signal,
      async () =>
        dirs.length === 0 && !journal ? upgradeOnly(db, lockTimeout, io) : load(args, io, dirs, db, journal),
    );
  },
});

/** Loads `dirs` (and the journal) into `db`, printing progress on stderr and the summary on stdout. */
async function load(
  args: LoadArgs,
  io: CliIO,
  dirs: readonly string[],
  db: string,
  journal: string | undefined,
): Promise<number> {
  const lockTimeout = args['lock-timeout'];
  const [{ loadSnapshots }, { neutralizeControls }] = await Promise.all([
    import('../../warehouse/loader.js'),
    import('../../api/error-body.js'),
  ]);
  const show = neutralizeControls;
  const progress = (text: string): void => {
    if (!args.quiet) io.stderr(`${text}\n`);
  };
  const result = await loadSnapshots(db, dirs, {
    force: args.force ?? false,
    warningsShown: MAX_WARNINGS_SHOWN,
    ...(args['memory-limit'] ? { memoryLimit: args['memory-limit'] } : {}),
    ...(lockTimeout !== undefined ? { lockTimeoutMs: lockTimeout * 1000 } : {}),
    command: `airt-report load ${dirs.map((d) => path.basename(d)).join(' ')}`.trim(),
    ...(journal ? { journal } : {}),
    signal: io.signal,
    onProgress: (event) => {
      if (event.type === 'verify') progress(`verifying ${show(event.snapshotId)} (${event.files} files)`);
      else if (event.type === 'trials') progress(`  trials: ${event.filesDone}/${event.filesTotal} files`);
      else if (event.type === 'committed') progress(`  committed ${show(event.snapshotId)}`);
      else if (event.type === 'retry_one_thread')
        progress(`  out of memory reading the trials on two threads; loading again on one`);
      else if (event.type === 'summaries_reused')
        progress(
          `  ${event.reused} of ${event.summaries} project summaries unchanged since an earlier load: their rows are shared, not parsed again`,
        );
      else if (event.type === 'assessments_reused')
        progress(
          `  ${event.reused} of ${event.assessments} assessments in the changed summaries unchanged since an earlier load: their rows are shared, not built again`,
        );
      else if (event.type === 'evaluation_jobs_reused')
        progress(
          `  ${event.reused} of ${event.jobs} evaluation jobs unchanged since an earlier load: their rows are shared, not built again`,
        );
      else if (event.type === 'same_inputs')
        progress(`  same files as ${show(event.twin)}: its rows are shared, no file parsed`);
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
      `journal ${show(j.file)}: ${j.lines} line(s): ${j.loaded} applied change(s) loaded, ${j.alreadyLoaded} already loaded, ${j.notApplied} failed or of unknown outcome, ${j.sending} request marker(s) ("sending"); ${j.reviewEvents} new review event(s)`,
    );
    for (const w of j.warnings) lines.push(`  warning: ${show(w)}`);
  }
  io.stdout(`${lines.join('\n')}\n`);
  const warned = result.snapshots.filter((s) => s.warnings > 0);
  const total = warned.reduce((sum, s) => sum + s.warnings, 0);
  if (total > 0) {
    const shown = warned.flatMap((s) => s.firstWarnings).slice(0, MAX_WARNINGS_SHOWN);
    io.stderr(formatLoadWarnings(shown, total, warned.length > 1, neutralizeControls));
  }
  // Stopped after its last step: everything is loaded, and the exit still says it was interrupted.
  if (io.signal.aborted)
    throw new CliError(
      `${interruptionText(io.signal)} after the load had finished: every snapshot named is loaded.`,
      abortExitCode(io.signal),
    );
  return EXIT.ok;
}

const NOTHING_TO_LOAD = 'Name at least one snapshot directory or a --journal file';

/** `load --db FILE` with nothing to load: upgrades an existing database's schema, or says what to name. */
async function upgradeOnly(db: string, lockTimeout: number | undefined, io: CliIO): Promise<number> {
  if (!existsSync(db)) throw new UsageError(`${NOTHING_TO_LOAD}.`);
  const [{ upgradeWarehouse }, { neutralizeControls: show }] = await Promise.all([
    import('../../warehouse/loader.js'),
    import('../../api/error-body.js'),
  ]);
  const { from, to } = await upgradeWarehouse(db, {
    ...(lockTimeout !== undefined ? { lockTimeoutMs: lockTimeout * 1000 } : {}),
    command: 'airt-report load --db',
    signal: io.signal,
  });
  if (from === to)
    throw new UsageError(`${NOTHING_TO_LOAD} (${show(db)} is already at warehouse schema ${to}).`);
  io.stdout(`${show(db)}: upgraded from warehouse schema ${from} to ${to}; nothing loaded\n`);
  return EXIT.ok;
}

/** Warnings printed after a load; the rest are left in the load_warnings table. */
export const MAX_WARNINGS_SHOWN = 10;

const ALL_WARNINGS_SQL =
  'SELECT snapshot_id, code, message, file FROM load_warnings ORDER BY snapshot_id, ordinal';

/**
 * The load's warnings for stderr, one line each (`warning: code: message`, prefixed with the snapshot
 * id when several snapshots warned), then how many more there are and the query that lists them all.
 * Messages quote snapshot and service text, so control characters are neutralized (`show`) and line
 * breaks shown as \n: each warning stays on its line and cannot drive the terminal.
 */
export function formatLoadWarnings(
  shown: readonly LoadWarningRow[],
  total: number,
  nameSnapshots: boolean,
  show: (text: string) => string,
): string {
  const oneLine = (text: string, max: number): string => {
    const flat = show(text).replace(/\r?\n|\r/g, '\\n');
    return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
  };
  const lines = shown.map(
    (w) =>
      `warning: ${nameSnapshots ? `${oneLine(w.snapshotId, 80)}: ` : ''}${oneLine(w.code, 60)}: ${oneLine(w.message, 300)}`,
  );
  if (total > shown.length) lines.push(`… and ${total - shown.length} more: ${ALL_WARNINGS_SQL}`);
  return `${lines.join('\n')}\n`;
}
