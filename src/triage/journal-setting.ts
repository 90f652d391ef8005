/**
 * Where the triage journal is: one setting shared by `triage` (which writes it) and `snapshot`, `load`
 * and `run` (which read it), resolved here at the CLI edge so all four agree:
 *
 *   triage            --journal FILE > AIRT_TRIAGE_JOURNAL > triage/journal.jsonl (in the current dir)
 *   snapshot, load    --journal FILE > AIRT_TRIAGE_JOURNAL (when that file exists) > none
 *   run               snapshot.triage_journal in the config > AIRT_TRIAGE_JOURNAL (when it exists) > none
 *
 * Setting AIRT_TRIAGE_JOURNAL once is therefore enough for triaged findings to reach snapshots and
 * the warehouse. Readers skip an AIRT_TRIAGE_JOURNAL file that does not exist yet (nothing has been
 * triaged), but a --journal or config path that does not exist is an error: it is most likely a typo.
 * A `run` with no journal configured warns when the default journal holds triage of its workspace,
 * since those findings would silently be missing from its snapshot and warehouse.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

// Imported by every command's module (they all load at start-up), so nothing heavy here; in
// particular not journal.ts, whose lock library installs signal handlers when loaded.
export const JOURNAL_ENV = 'AIRT_TRIAGE_JOURNAL';
/** Relative to the current directory. */
export const DEFAULT_JOURNAL_PATH = path.join('triage', 'journal.jsonl');

/** The `--journal` option's help, the same wording in every command that has it. */
export function journalOptionHelp(role: 'write' | 'read'): string {
  return role === 'write'
    ? `Triage journal file [env ${JOURNAL_ENV}; default: ${DEFAULT_JOURNAL_PATH}]`
    : `Triage journal (JSON Lines) to read triaged findings from [env ${JOURNAL_ENV}; default: none]`;
}

interface Place {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

function fromEnv(io: Place): string | undefined {
  const value = io.env[JOURNAL_ENV]?.trim();
  return value ? path.resolve(io.cwd, value) : undefined;
}

/** `triage`: the journal to write (absolute). */
export function journalToWrite(flag: string | undefined, io: Place): string {
  return path.resolve(io.cwd, flag ?? fromEnv(io) ?? DEFAULT_JOURNAL_PATH);
}

/** `snapshot`, `load`: the journal to read (absolute), or undefined for none. */
export function journalToRead(flag: string | undefined, io: Place): string | undefined {
  if (flag !== undefined) return path.resolve(io.cwd, flag);
  const env = fromEnv(io);
  return env !== undefined && existsSync(env) ? env : undefined;
}

/**
 * `run`: the journal its snapshot and load steps read, plus warnings for the operator: a config and
 * environment that disagree, or triage of this workspace journaled where the run does not look.
 */
export async function journalForRun(
  configured: string | undefined,
  target: { org: string; workspace: string; configDir: string | null },
  io: Place,
): Promise<{ path: string | undefined; warnings: string[] }> {
  const env = fromEnv(io);
  if (configured !== undefined) {
    const warnings =
      env !== undefined && env !== configured
        ? [
            `${JOURNAL_ENV} (${env}) is ignored: the config's snapshot.triage_journal (${configured}) ` +
              'names the journal.',
          ]
        : [];
    return { path: configured, warnings };
  }
  if (env !== undefined && existsSync(env)) return { path: env, warnings: [] };
  const candidates = [
    ...new Set(
      [io.cwd, target.configDir]
        .filter((dir): dir is string => dir !== null)
        .map((dir) => path.resolve(dir, DEFAULT_JOURNAL_PATH)),
    ),
  ];
  const warnings: string[] = [];
  const { readTriagedFindings } = await import('../snapshot/triage-findings.js');
  for (const file of candidates) {
    if (!existsSync(file)) continue;
    const triaged = await readTriagedFindings(file, target.org, target.workspace).catch(() => undefined);
    if (triaged === undefined || triaged.findings.length === 0) continue;
    warnings.push(
      `${file} records triage of ${triaged.findings.length} finding(s) in ${target.org}/${target.workspace}, ` +
        `but this run has no triage journal configured, so its snapshot and warehouse leave them out. ` +
        `Set snapshot.triage_journal in the config or ${JOURNAL_ENV}.`,
    );
  }
  return { path: undefined, warnings };
}
