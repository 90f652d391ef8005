/**
 * `airt-report triage FINDING_ID [--status S] [--type T] [--severity V] [--notes TEXT] [--json] [--resend]`
 * `airt-report triage apply FILE.csv|FILE.json [--dry-run] [--concurrency 4] [--resend-unknown]`
 *
 * One yargs command with two forms: the first positional is a finding id, or the word `apply`
 * followed by a decisions file. Everything is validated locally before a request is made; every
 * request is journaled before it leaves and again with its outcome (`--journal`, env
 * AIRT_TRIAGE_JOURNAL, default triage/journal.jsonl; see src/triage/journal-setting.ts).
 */
import { abortExitCode, CliError, interruptionText, PartialResultError, UsageError } from '../../errors.js';
import { formatRetryEvent } from '../../api/retry.js';
import { defineCommand } from '../command.js';
import { resolveConnection, withConnectionOptions, type ConnectionArgs } from '../connection.js';
import type { CliIO } from '../io.js';
import type { NotFoundError } from '../../api/errors.js';
import { journalOptionHelp, journalToWrite } from '../../triage/journal-setting.js';
import { withStopGuardAfter } from '../../pipeline/stop-signals.js';
import { cliOptionName } from '../option-names.js';

interface TriageArgs extends ConnectionArgs {
  target: string;
  file?: string | undefined;
  status?: unknown;
  type?: unknown;
  severity?: unknown;
  notes?: unknown;
  until?: unknown;
  reason?: unknown;
  owner?: unknown;
  json?: boolean | undefined;
  journal?: unknown;
  'dry-run'?: boolean | undefined;
  concurrency?: number | undefined;
  resend?: boolean | undefined;
  'resend-unknown'?: boolean | undefined;
}

const SINGLE_FLAGS = [
  'status',
  'type',
  'severity',
  'notes',
  'until',
  'reason',
  'owner',
  'json',
  'resend',
] as const;
const APPLY_FLAGS = ['dry-run', 'concurrency', 'resend-unknown'] as const;

export const triageCommand = defineCommand<TriageArgs>({
  command: 'triage <target> [file]',
  describe:
    'Set a finding\'s triage (status, type, severity, notes), or apply a decisions file: "triage apply FILE"',
  builder: (y) =>
    withConnectionOptions(y)
      .positional('target', {
        type: 'string',
        demandOption: true,
        describe:
          'A finding id (UUID; attack_run_id in the warehouse\'s findings table), or "apply" to apply a decisions file',
      })
      .positional('file', {
        type: 'string',
        describe:
          'With "apply": decisions file, .csv with a header row or .json array; columns: finding_id, finding_status, finding_type, severity, notes',
      })
      .option('status', {
        type: 'string',
        describe: 'New finding_status: open, false_positive, accepted_risk, remediated, incorrect_scoring',
      })
      .option('type', {
        type: 'string',
        describe: 'New finding_type: jailbreak, partial, refusal, error, evasion, degradation, robust',
      })
      .option('severity', { type: 'string', describe: 'New severity: critical, high, medium, low, info' })
      .option('notes', { type: 'string', describe: 'New notes (free text; "" clears them)' })
      .option('until', {
        type: 'string',
        describe:
          'With --status accepted_risk: last day (YYYY-MM-DD, UTC) the acceptance holds; after it the finding counts as open again',
      })
      .option('reason', { type: 'string', describe: 'With --until: why the risk is accepted (journaled)' })
      .option('owner', {
        type: 'string',
        describe: 'With --until: who accepts the risk [default: AIRT_TRIAGE_OWNER or the user name]',
      })
      .option('json', { type: 'boolean', describe: 'Print the result as JSON (single finding)' })
      .option('journal', { type: 'string', describe: journalOptionHelp('write') })
      .option('dry-run', { type: 'boolean', describe: 'With "apply": show what would be sent; send nothing' })
      .option('concurrency', {
        type: 'number',
        describe: 'With "apply": rows in flight at once (1-16) [default: 4]',
      })
      .option('resend', {
        type: 'boolean',
        describe:
          "Single finding: send even if the journal's last word on the finding is this change, applied (the finding was changed in the service since) or with its outcome unknown (checked: it did not arrive)",
      })
      .option('resend-unknown', {
        type: 'boolean',
        describe:
          'With "apply": also send rows whose earlier outcome was unknown (only after checking they did not apply)',
      })
      .example(
        '$0 triage 3f0c…-… --status false_positive --notes "benign: quoted in docs"',
        'Triage one finding',
      )
      .example('$0 triage apply decisions.csv --dry-run', 'Preview a bulk triage')
      .example('$0 triage apply decisions.csv', 'Apply it; safe to re-run after an interruption'),
  async run(args, io) {
    const journalPath = journalToWrite(singleString(args.journal, '--journal'), io);
    // The journal module loads proper-lockfile: guarded, the first Ctrl-C is left to io.signal, so
    // rows in flight are journaled (killed, the re-run would send them again).
    return withStopGuardAfter(
      () => import('../../triage/journal.js'),
      io.signal,
      async () => {
        if (args.target === 'apply') return runApply(args, io, journalPath);
        if (args.file !== undefined) {
          throw new UsageError(
            `Unexpected argument ${JSON.stringify(args.file)}; to apply a file use: triage apply FILE`,
          );
        }
        rejectFlags(args, APPLY_FLAGS, (apply) => `only ${apply} to "triage apply FILE"`);
        return runSingle(args, io, journalPath);
      },
    );
  },
});

async function runSingle(args: TriageArgs, io: CliIO, journalPath: string): Promise<number> {
  const [{ validateTriageChange }, { terminalSafe }] = await Promise.all([
    import('../../triage/triage-request.js'),
    import('../../triage/terminal-text.js'),
  ]);
  const fields = {
    finding_status: singleString(args.status, '--status'),
    finding_type: singleString(args.type, '--type'),
    severity: singleString(args.severity, '--severity'),
    notes: singleString(args.notes, '--notes'),
    accepted_until: singleString(args.until, '--until'),
    acceptance_reason: singleString(args.reason, '--reason'),
    accepted_by: singleString(args.owner, '--owner'),
  };
  const { defaultOwner } = await import('../../triage/risk-acceptance.js');
  const result = validateTriageChange(String(args.target), fields, { owner: defaultOwner(io.env) });
  if (!result.ok) {
    const flagOf: Record<string, string> = {
      finding_id: 'FINDING_ID',
      finding_status: '--status',
      finding_type: '--type',
      severity: '--severity',
      notes: '--notes',
      accepted_until: '--until',
      acceptance_reason: '--reason',
      accepted_by: '--owner',
    };
    const lines = result.problems.map((p) =>
      p.field === 'change'
        ? `  ${p.message}: pass at least one of --status, --type, --severity, --notes`
        : `  ${flagOf[p.field]}: ${terminalSafe(p.message, 300)}`,
    );
    throw new UsageError(`Nothing was sent:\n${lines.join('\n')}`);
  }
  // Validation passed: only now resolve the connection and load the client.
  const connection = resolveConnection(args, io);
  const [{ createApiClient }, { triageFinding, TriageOutcomeUnknownError }, format, { isNotFoundError }] =
    await Promise.all([
      import('../../api/client.js'),
      import('../../triage/triage-finding.js'),
      import('../../triage/format-finding.js'),
      import('../../api/errors.js'),
    ]);
  // Stopped before anything could be sent: say so, and exit 130/143.
  if (io.signal.aborted)
    throw new CliError(`${interruptionText(io.signal)}: nothing was sent.`, abortExitCode(io.signal));
  const client = createApiClient({
    baseUrl: connection.baseUrl,
    token: connection.token,
    signal: io.signal,
    userAgentSuffix: 'triage',
    onRetry: (event) => io.stderr(`${formatRetryEvent(event)}\n`),
  });
  try {
    const outcome = await triageFinding({
      client,
      target: { org: connection.org, workspace: connection.workspace },
      change: result.change,
      journalPath,
      cwd: io.cwd,
      resend: args.resend === true,
    }).catch((error: unknown) => {
      if (isNotFoundError(error)) throw findingNotFound(error, terminalSafe);
      // Ctrl-C or SIGTERM cut the PATCH off: exit 130/143 like every other command. The message (its
      // reason names the signal) says the outcome is unknown and only --resend sends it again: the
      // same command alone sends nothing (a re-run that did added a duplicate review event).
      if (io.signal.aborted && error instanceof TriageOutcomeUnknownError && error.sentNow) {
        throw new TriageOutcomeUnknownError(error.entry, error.journalPath, true, {
          cause: error.cause,
          exitCode: abortExitCode(io.signal),
        });
      }
      throw error;
    });
    io.stdout(args.json ? format.formatTriageResultJson(outcome) : format.formatTriageResultTable(outcome));
    if (outcome.alreadyApplied === true && !args.json)
      io.stdout('If the finding was changed in the service meanwhile, add --resend to send it again.\n');
    if (outcome.warning !== undefined) {
      io.stderr(
        `Warning: the change was applied (do not send it again), but ${terminalSafe(outcome.warning, 1000)}\n`,
      );
    }
    return 0;
  } finally {
    await client.close();
  }
}

async function runApply(args: TriageArgs, io: CliIO, journal: string): Promise<number> {
  if (args.file === undefined)
    throw new UsageError('Name the decisions file: triage apply FILE.csv|FILE.json');
  rejectFlags(
    args,
    SINGLE_FLAGS,
    (apply) => `${apply} to a single finding; put the values in the decisions file`,
  );
  const [decisionsModule, applyModule, formatApply, progressModule, { terminalSafe }] = await Promise.all([
    import('../../triage/decisions-file.js'),
    import('../../triage/apply-decisions.js'),
    import('../format-apply.js'),
    import('../../triage/apply-progress.js'),
    import('../../triage/terminal-text.js'),
  ]);
  const concurrency = args.concurrency ?? applyModule.DEFAULT_APPLY_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > applyModule.MAX_APPLY_CONCURRENCY) {
    throw new UsageError(
      `--concurrency must be an integer from 1 to ${applyModule.MAX_APPLY_CONCURRENCY}, got ${String(args.concurrency)}.`,
    );
  }
  // Every row is validated before anything else happens; an invalid file exits 2 with all problems.
  const decisions = await decisionsModule.readDecisionsFile(args.file, io.cwd);
  const connection = resolveConnection(args, io);
  const target = { org: connection.org, workspace: connection.workspace };
  const resend = args['resend-unknown'] ? { resendUnknown: true } : {};

  if (args['dry-run']) {
    const { plan, journalPath: resolved } = await applyModule.planDecisions({
      target,
      decisions,
      journalPath: journal,
      cwd: io.cwd,
      ...resend,
    });
    io.stdout(formatApply.formatPlan(plan, resolved));
    return 0;
  }

  const { createApiClient } = await import('../../api/client.js');
  const progress = progressModule.createApplyProgress({
    write: (text) => io.stderr(text),
    isTTY: io.stderrIsTTY,
    optionName: cliOptionName,
  });
  // io.signal is deliberately not given to the client: a PATCH cut off mid-flight would have an unknown
  // outcome. Interrupting stops new rows; rows in flight get DEFAULT_INTERRUPT_GRACE_MS to finish and
  // be journaled. Only once applyDecisions has journaled every row (a straggler as outcome_unknown) is
  // whatever is still open cancelled, so closing the client does not wait out the request timeout.
  const cancelStragglers = new AbortController();
  const client = createApiClient({
    baseUrl: connection.baseUrl,
    token: connection.token,
    concurrency,
    userAgentSuffix: 'triage-apply',
    signal: cancelStragglers.signal,
    onRetry: (event) => progress.note(`${formatRetryEvent(event)}\n`),
  });
  const graceSeconds = applyModule.DEFAULT_INTERRUPT_GRACE_MS / 1000;
  const onInterrupt = (): void =>
    progress.note(
      `Interrupted: sending no new rows; waiting up to ${graceSeconds} s for rows in flight ` +
        '(interrupt again to stop at once; those rows are then held back as outcome unknown)…\n',
    );
  io.signal.addEventListener('abort', onInterrupt, { once: true });
  let report: Awaited<ReturnType<typeof applyModule.applyDecisions>>;
  try {
    report = await applyModule.applyDecisions({
      client,
      target,
      decisions,
      journalPath: journal,
      cwd: io.cwd,
      concurrency,
      signal: io.signal,
      ...resend,
      onPlan: (plan) => progress.start(plan.toSend.length),
      onOutcome: (outcome) => progress.outcome(outcome),
      onWarning: (message) => io.stderr(`Warning: ${message}\n`),
    });
  } finally {
    progress.stop();
    io.signal.removeEventListener('abort', onInterrupt);
    cancelStragglers.abort();
    await client.close();
  }
  io.stdout(formatApply.formatApplyReport(report));
  for (const { row } of report.appliedWithWarning) {
    io.stderr(
      `Warning: row ${row.row} was applied but its response did not match the API schema; do not send it again.\n`,
    );
  }
  // Rows held back with an earlier unknown outcome leave the file undone too (the service may lack the
  // change): exit 3 like the run that produced them, so a script looping "until exit 0" does not stop.
  const heldBack = report.plan.unresolvedUnknown.length;
  const left = report.failed.length + report.outcomeUnknown.length + report.notAttempted.length + heldBack;
  if (left > 0) {
    const message =
      `${report.applied.length} row(s) applied, ${report.failed.length} failed, ${report.outcomeUnknown.length} ` +
      `with unknown outcome, ${report.notAttempted.length} not sent` +
      (heldBack > 0 ? `, ${heldBack} held back with an unknown earlier outcome (see the report)` : '') +
      (report.remainingFile !== undefined
        ? `; rows left to do are in ${terminalSafe(report.remainingFile)}`
        : '') +
      '. See the report above.';
    // Ctrl-C exits 130 and SIGTERM 143 like any interrupted command; the journal makes re-running safe.
    if (io.signal.aborted) {
      throw new CliError(
        `${interruptionText(io.signal)}: ${message} Run the same command again to apply the rest (applied rows are skipped).`,
        abortExitCode(io.signal),
      );
    }
    throw new PartialResultError(message);
  }
  return 0;
}

/**
 * A 404 on the finding: the client's message names the project and assessment ids too; here only the
 * finding id can be wrong, and the id users need is the warehouse's attack_run_id, so say where to find it.
 */
function findingNotFound(
  error: NotFoundError,
  terminalSafe: (text: string, max?: number) => string,
): CliError {
  const said = [error.type, error.detail]
    .filter((s): s is string => Boolean(s))
    .map((s) => terminalSafe(s, 300))
    .join(': ')
    .replace(/(?<!\.)\.$/u, '');
  return new CliError(
    `${error.request} failed with 404 not found${said ? `: ${said}` : ''}. Check the organization, workspace ` +
      '(--org, --workspace) and the finding id: a finding id is the attack_run_id of a finding in the ' +
      'warehouse, e.g. airt-report query "SELECT attack_run_id, attack_name, severity, finding_status FROM latest_findings" --db DB',
    undefined,
    { cause: error },
  );
}

/** A flag's single string value; yargs turns a repeated flag into an array, which we refuse. */
function singleString(value: unknown, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw new UsageError(`${flag} was given ${value.length} times; give it once.`);
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  throw new UsageError(`${flag} needs a value.`);
}

/** Refuses the given ones of `flags`; `why` words the reason with the verb agreeing ("--x applies"). */
function rejectFlags(
  args: TriageArgs,
  flags: readonly (keyof TriageArgs)[],
  why: (apply: 'applies' | 'apply') => string,
): void {
  const given = flags.filter((flag) => args[flag] !== undefined);
  if (given.length > 0)
    throw new UsageError(
      `${given.map((f) => `--${f}`).join(', ')} ${why(given.length === 1 ? 'applies' : 'apply')}.`,
    );
}
