/**
 * The triage journal: one JSON line per PATCH event, append-only, each line fsync'ed before the next
 * is written, so after a crash every completed request is on disk (at most the last line is torn).
 * It is both the audit trail the warehouse loads and the memory that lets an interrupted bulk apply be
 * repeated without sending anything twice.
 *
 * Every PATCH leaves two lines: `"outcome":"sending"` written and fsync'ed BEFORE the request leaves,
 * then its outcome once known. A "sending" line with no outcome after it means the process died
 * (SIGKILL, crash, a second Ctrl-C) while the request was in flight: the service may or may not have
 * applied it, so it counts as outcome_unknown (resolveOutcomes) and is never re-sent without the
 * operator's `--resend-unknown` (`triage apply`, indexJournal) or `--resend` (a single triage,
 * lastWordOn). Without the "sending" line such a PATCH would leave no trace and the re-run would send
 * it again.
 *
 * Line format `airt-triage/1` (CONTRACTS.md; keys in this order):
 * {"journal":"airt-triage/1","time":"…Z","org":"acme","workspace":"main","finding_id":"uuid",
 *  "request":{…fields sent…},"outcome":"sending|applied|failed|outcome_unknown","http_status":200|null,
 *  "error":null|"message","finding":{…FindingDetail…}|null,"source":"cli|apply:<file>#<row>"}
 * plus `"warning":"…"` only on an applied change whose response did not match the schema, and
 * `"acceptance":{"owner","reason","until"}` on a change that set accepted_risk with a dated acceptance
 * (risk-acceptance.ts; the service gets only the status and notes). Readers that
 * only load applied changes (warehouse, snapshot findings) skip "sending" lines like failed ones.
 */
import { mkdir, open, readFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { CliError } from '../errors.js';
import { LockHeldError, takeHolderLock } from '../holder-lock.js';
import type { UpdateFindingRequest } from '../api/schemas.js';
import type { RiskAcceptance } from './risk-acceptance.js';
import { canonicalRequest } from './triage-request.js';

/** The triage journal's format (JSON Lines). */
export const JOURNAL_FORMAT = 'airt-triage/1';
export { DEFAULT_JOURNAL_PATH } from './journal-setting.js';

/** How a journalled triage change ended. */
export type JournalOutcome = 'applied' | 'failed' | 'outcome_unknown';
/** What a line records: a request about to leave ("sending"), or its outcome. */
export type JournalLineKind = JournalOutcome | 'sending';

/** The error a dangling "sending" line is reported with. */
export const NO_OUTCOME_RECORDED =
  'no outcome was recorded: the run stopped (killed or crashed) while this PATCH was in flight';

/** One journal line. */
export interface JournalEntry {
  journal: typeof JOURNAL_FORMAT;
  /** ISO 8601 UTC time the request left ("sending") or its outcome was known. */
  time: string;
  org: string;
  workspace: string;
  finding_id: string;
  /** The PATCH body exactly as sent. */
  request: UpdateFindingRequest;
  outcome: JournalLineKind;
  /** HTTP status of the final attempt; null when no response arrived. */
  http_status: number | null;
  /** What went wrong (failed / outcome_unknown); null when applied. */
  error: string | null;
  /** FindingDetail as returned (validated, or the raw body when it did not match the schema). */
  finding: unknown;
  /** `cli` for a single triage, `apply:<file>#<row>` for a bulk row. */
  source: string;
  /** Present only when the change was applied but the response did not match the schema. */
  warning?: string;
  /** A dated risk acceptance that came with the change (never sent to the service). */
  acceptance?: RiskAcceptance;
}

const JournalEntrySchema = z.looseObject({
  journal: z.literal(JOURNAL_FORMAT),
  time: z.string(),
  org: z.string(),
  workspace: z.string(),
  finding_id: z.string(),
  request: z.record(z.string(), z.unknown()),
  outcome: z.enum(['sending', 'applied', 'failed', 'outcome_unknown']),
  http_status: z.int().nullable(),
  error: z.string().nullable(),
  finding: z.unknown(),
  source: z.string(),
  warning: z.string().optional(),
  acceptance: z.strictObject({ owner: z.string(), reason: z.string(), until: z.string() }).optional(),
});

/** Serializes an entry with the contract's key order; one line, newline-terminated. */
export function formatJournalLine(entry: JournalEntry): string {
  const ordered: Record<string, unknown> = {
    journal: entry.journal,
    time: entry.time,
    org: entry.org,
    workspace: entry.workspace,
    finding_id: entry.finding_id,
    request: canonicalRequest(entry.request),
    outcome: entry.outcome,
    http_status: entry.http_status,
    error: entry.error,
    finding: entry.finding ?? null,
    source: entry.source,
  };
  if (entry.warning !== undefined) ordered.warning = entry.warning;
  if (entry.acceptance !== undefined) {
    const { owner, reason, until } = entry.acceptance;
    ordered.acceptance = { owner, reason, until };
  }
  return `${JSON.stringify(ordered)}\n`;
}

/** An open journal. Appends are serialized, so concurrent outcomes never interleave within a line. */
export interface JournalWriter {
  readonly path: string;
  /** Writes one line and fsyncs it; resolves once it is durable. */
  append(entry: JournalEntry): Promise<void>;
  close(): Promise<void>;
}

/** Opens (creating the file and its directory if needed) a journal for appending. */
export async function openJournal(file: string): Promise<JournalWriter> {
  await mkdir(path.dirname(file), { recursive: true });
  let handle: FileHandle;
  try {
    handle = await open(file, 'a+');
  } catch (error) {
    throw new CliError(`Cannot open the triage journal ${file}: ${(error as Error).message}`);
  }
  // A crash can leave a torn last line without its newline; start on a fresh line so the next entry
  // stays readable (the torn line is then reported by readJournal for the operator to look at).
  let pendingNewline = false;
  const { size } = await handle.stat();
  if (size > 0) {
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    pendingNewline = last[0] !== 0x0a;
  }
  let chain: Promise<void> = Promise.resolve();
  return {
    path: file,
    append(entry) {
      const line = (pendingNewline ? '\n' : '') + formatJournalLine(entry);
      pendingNewline = false;
      const write = chain.then(async () => {
        await handle.appendFile(line, 'utf8');
        await handle.sync();
      });
      // Keep the chain alive after a failed write; the failure still reaches this append's caller.
      chain = write.catch(() => undefined);
      return write;
    },
    async close() {
      await chain;
      await handle.close();
    },
  };
}

/**
 * Reads every entry of a journal (none if the file does not exist). A line that is not a valid
 * `airt-triage/1` entry stops the read: guessing past it could re-send a change that was applied.
 */
export async function readJournal(file: string): Promise<JournalEntry[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new CliError(`Cannot read the triage journal ${file}: ${(error as Error).message}`);
  }
  const entries: JournalEntry[] = [];
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    const result = JournalEntrySchema.safeParse(parsed);
    if (!result.success) {
      throw new CliError(
        `Line ${index + 1} of the triage journal ${file} is not a valid ${JOURNAL_FORMAT} entry ` +
          '(a torn line from a crash, or an edit). Check whether that change reached the service, then ' +
          'remove or repair the line and run again.',
      );
    }
    entries.push(result.data as JournalEntry);
  }
  return entries;
}

/**
 * The identity of a change: organization, workspace, finding, the exact requested fields and the dated
 * acceptance that came with them. Two rows are "the same change" only when all of these match, so a
 * file with an edited row sends the edit, and renewing an acceptance (same status, new expiry, owner
 * or reason) is a new change: the service's PATCH is the only write that confirms the finding is still
 * accepted_risk, and its applied journal line is what carries the new acceptance into snapshots.
 */
export function changeKey(
  org: string,
  workspace: string,
  findingId: string,
  request: UpdateFindingRequest,
  acceptance?: RiskAcceptance,
): string {
  const parts: unknown[] = [org, workspace, findingId.toLowerCase(), canonicalRequest(request)];
  // Without an acceptance the key is what it always was, so older journals keep matching their rows.
  if (acceptance !== undefined) parts.push([acceptance.owner, acceptance.reason, acceptance.until]);
  return JSON.stringify(parts);
}

/** What the journal knows about one change: applied wins over outcome_unknown, which wins over failed. */
export type KnownOutcome = { outcome: JournalOutcome; entry: JournalEntry };

/** How decisive each outcome is when one change has several: it may have applied, so unknown beats failed. */
const OUTCOME_RANK: Record<JournalOutcome, number> = { failed: 0, outcome_unknown: 1, applied: 2 };

/**
 * The journal's lines as outcomes, in file order. A "sending" line is paired with the next outcome
 * line of the same change (counted, so a file with the same change twice pairs right, and journals
 * written before "sending" lines existed read as before) and dropped; each one left unpaired is an
 * outcome_unknown, where it stands (the process died while that PATCH was in flight).
 */
export function resolveOutcomes(entries: readonly JournalEntry[]): KnownOutcome[] {
  const resolved: (KnownOutcome | undefined)[] = [];
  const inFlight = new Map<string, number[]>();
  for (const entry of entries) {
    const key = changeKey(entry.org, entry.workspace, entry.finding_id, entry.request, entry.acceptance);
    if (entry.outcome === 'sending') {
      inFlight.set(key, [...(inFlight.get(key) ?? []), resolved.length]);
      resolved.push({
        outcome: 'outcome_unknown',
        entry: { ...entry, outcome: 'outcome_unknown', error: NO_OUTCOME_RECORDED },
      });
      continue;
    }
    const answered = inFlight.get(key)?.shift();
    if (answered !== undefined) resolved[answered] = undefined;
    resolved.push({ outcome: entry.outcome, entry });
  }
  return resolved.filter((known): known is KnownOutcome => known !== undefined);
}

/**
 * Indexes journal entries by change identity (see changeKey), keeping the most decisive outcome; an
 * unanswered "sending" line counts as outcome_unknown (resolveOutcomes). What `triage apply` plans by.
 */
export function indexJournal(entries: readonly JournalEntry[]): Map<string, KnownOutcome> {
  const known = new Map<string, KnownOutcome>();
  for (const outcome of resolveOutcomes(entries)) {
    const { entry } = outcome;
    const key = changeKey(entry.org, entry.workspace, entry.finding_id, entry.request, entry.acceptance);
    const current = known.get(key);
    if (!current || OUTCOME_RANK[outcome.outcome] >= OUTCOME_RANK[current.outcome]) known.set(key, outcome);
  }
  return known;
}

/**
 * The journal's last word on one finding of an organization and workspace: its last change there, with
 * what the journal knows of it. That change's lines since the finding's previous change are judged as
 * indexJournal judges a change (applied over outcome_unknown over failed; an unanswered "sending" is
 * outcome_unknown), so a `--resend` that failed never hides the unknown outcome before it. Undefined
 * when the journal never changed the finding. What a single `triage FINDING_ID` decides by.
 */
export function lastWordOn(
  entries: readonly JournalEntry[],
  org: string,
  workspace: string,
  findingId: string,
): KnownOutcome | undefined {
  const id = findingId.toLowerCase();
  const ofFinding = resolveOutcomes(entries).filter(
    ({ entry }) =>
      entry.org === org && entry.workspace === workspace && entry.finding_id.toLowerCase() === id,
  );
  const last = ofFinding.at(-1);
  if (last === undefined) return undefined;
  const keyOf = ({ entry }: KnownOutcome): string =>
    changeKey(entry.org, entry.workspace, entry.finding_id, entry.request, entry.acceptance);
  const lastKey = keyOf(last);
  // The tries of that change since the finding last changed otherwise, ranked as indexJournal ranks.
  let start = ofFinding.length - 1;
  while (start > 0 && keyOf(ofFinding[start - 1]!) === lastKey) start -= 1;
  return indexJournal(ofFinding.slice(start).map(({ entry }) => entry)).get(lastKey);
}

/**
 * Holds an exclusive lock on the journal for a bulk apply, so two runs of the same file cannot both
 * send a row. Returns the release function.
 *
 * A holder lock (src/holder-lock.ts): a `.lock` directory with its holder's host and pid beside it. A
 * holder that was killed (SIGKILL, a crash) cannot remove it, and the lock would be called stale only
 * after 30 s, so the re-run the operator starts at once would be refused; when the recorded process
 * is on this host and no longer exists, the lock is taken over instead.
 */
export async function lockJournal(
  file: string,
  onCompromised: (error: Error) => void,
): Promise<() => Promise<void>> {
  try {
    return await takeHolderLock(file, { staleMs: 30_000, waitMs: 0, onCompromised });
  } catch (error) {
    if (error instanceof LockHeldError) {
      const who = error.holderPid !== undefined ? ` (process ${error.holderPid})` : '';
      throw new CliError(
        `Another triage apply${who} is using the journal ${file} (lock ${file}.lock). Wait for it to finish, ` +
          'or remove the lock if no other run is active.',
      );
    }
    throw new CliError(`Cannot lock the triage journal ${file}: ${(error as Error).message}`);
  }
}
