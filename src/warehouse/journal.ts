/**
 * Loads a triage journal (JSON Lines, `airt-triage/1`, written by `airt-report triage`): each line
 * whose outcome is "applied" carries the FindingDetail the service returned, which becomes a findings
 * row (origin journal, snapshot_id NULL) with its triage state, plus its review events. Idempotent: a
 * line already loaded (same finding id and journal time) and an event already stored are skipped.
 * Lines that failed or whose outcome is unknown change nothing and are counted.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { CliError } from '../errors.js';
import { JOURNAL_FORMAT } from '../triage/journal.js';
import { inTransaction, openWarehouse } from './db.js';
import { ensureSchema } from './ddl.js';
import { collectFindingDetail } from './finding-rows.js';
import { acceptanceOfLine, type AcceptanceRecord } from '../snapshot/risk-acceptances-file.js';
import { acceptanceValues } from './acceptance-rows.js';
import {
  alteredValueRows,
  alteredValuesMessage,
  repairLoneSurrogates,
  type AlteredValue,
} from './altered-values.js';
import { MalformedJsonError, parseJsonText } from './json-file.js';
import { isPlainObject, RowCollector, warningRows } from './row-builder.js';
import { ALTERED_VALUES, FINDINGS, LOAD_WARNINGS, REVIEW_EVENTS, RISK_ACCEPTANCES } from './schema.js';
import { appendJournalRows } from './row-sets.js';

/** What loadTriageJournal added from a triage journal. */
export interface JournalLoadResult {
  file: string;
  lines: number;
  /** Applied lines newly loaded. */
  loaded: number;
  /** Applied lines that were already in the database. */
  alreadyLoaded: number;
  /** Lines with outcome failed or outcome_unknown (nothing to load). */
  notApplied: number;
  /**
   * "sending" lines: the marker written before each request leaves (nothing to load; its outcome is
   * the line after it). Counted apart, or a journal of six applied changes read "6 not applied".
   */
  sending: number;
  reviewEvents: number;
  /** A torn last line (the writer was interrupted) is skipped and reported. */
  warnings: string[];
}

interface JournalLine {
  lineNo: number;
  time: string | null;
  source: string | null;
  finding: unknown;
  org: string | null;
  workspace: string | null;
  /** The dated risk acceptance the change carried, if any. */
  acceptance: AcceptanceRecord | null;
  /** Values of the line stored altered (lone surrogates), with their originals. */
  altered: AlteredValue[];
}

function parseJournal(
  text: string,
  file: string,
  warnings: string[],
): { applied: JournalLine[]; lines: number; notApplied: number; sending: number } {
  const rawLines = text.split('\n');
  const applied: JournalLine[] = [];
  let lines = 0;
  let notApplied = 0;
  let sending = 0;
  rawLines.forEach((raw, index) => {
    if (raw.trim() === '') return;
    lines++;
    const lineNo = index + 1;
    let entry: unknown;
    try {
      entry = parseJsonText(raw, `${file}:${lineNo}`);
    } catch (error) {
      const torn = index === rawLines.length - 1 && !text.endsWith('\n');
      if (torn && error instanceof MalformedJsonError) {
        warnings.push(`${file}:${lineNo}: incomplete last line (interrupted write) skipped`);
        return;
      }
      throw error;
    }
    if (!isPlainObject(entry) || entry.journal !== JOURNAL_FORMAT) {
      throw new CliError(
        `${file}:${lineNo} is not an ${JOURNAL_FORMAT} journal line (no "journal":"${JOURNAL_FORMAT}").`,
      );
    }
    if (entry.outcome === 'sending') {
      sending++;
      return;
    }
    if (entry.outcome !== 'applied' || !isPlainObject(entry.finding)) {
      notApplied++;
      return;
    }
    // DuckDB cannot hold a lone surrogate: stored as U+FFFD, the original kept, as for snapshot files.
    const altered: AlteredValue[] = [];
    const where = `${file}:${lineNo}`;
    const repaired = repairLoneSurrogates(entry, '$', (jsonPath, original) =>
      altered.push({
        file: where,
        jsonPath,
        originalJson: JSON.stringify(original),
        table: null,
        rowKey: null,
      }),
    );
    const line = isPlainObject(repaired) ? repaired : entry;
    applied.push({
      lineNo,
      time: typeof line.time === 'string' ? line.time : null,
      source: typeof line.source === 'string' ? line.source : null,
      finding: line.finding,
      org: typeof line.org === 'string' ? line.org : null,
      workspace: typeof line.workspace === 'string' ? line.workspace : null,
      acceptance: acceptanceOfLine(line),
      altered,
    });
  });
  return { applied, lines, notApplied, sending };
}

/** A journal read and validated, not yet loaded. */
export interface ParsedJournal {
  /** As the user named it (messages, load_warnings). */
  file: string;
  applied: JournalLine[];
  lines: number;
  notApplied: number;
  sending: number;
  warnings: string[];
}

/**
 * Reads and validates a journal. `load --journal` calls this before any snapshot's transaction, so a
 * bad journal fails the command before anything is committed (all or nothing).
 */
export async function readTriageJournal(journalPath: string): Promise<ParsedJournal> {
  const file = path.resolve(journalPath);
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new CliError(
      `Cannot read the triage journal ${journalPath}: ${error.code === 'ENOENT' ? 'no such file' : error.message}. Nothing was loaded.`,
    );
  });
  const warnings: string[] = [];
  const { applied, lines, notApplied, sending } = parseJournal(text, journalPath, warnings);
  return { file: journalPath, applied, lines, notApplied, sending, warnings };
}

/** Within the caller's connection (one transaction). */
export async function loadJournalInto(
  conn: DuckDBConnection,
  journal: ParsedJournal,
): Promise<JournalLoadResult> {
  const { file: journalPath, applied, lines, notApplied, sending } = journal;
  const warnings = [...journal.warnings];
  return inTransaction(conn, async () => {
    const loadedKeys = new Set(
      (
        await conn.runAndReadAll(
          `SELECT attack_run_id || '|' || coalesce(CAST(journal_time AS VARCHAR), '') FROM findings WHERE origin = 'journal'`,
        )
      )
        .getRows()
        .map((r) => String(r[0])),
    );
    const seenEvents = new Set(
      (await conn.runAndReadAll(`SELECT event_key FROM review_events WHERE origin = 'journal'`))
        .getRows()
        .map((r) => String(r[0])),
    );
    const scopes = await attackRunScopes(conn);
    const sink = new RowCollector();
    let loaded = 0;
    let alreadyLoaded = 0;
    const eventsBefore = seenEvents.size;
    const altered: AlteredValue[] = [];
    for (const line of applied) {
      const id = isPlainObject(line.finding) && typeof line.finding.id === 'string' ? line.finding.id : null;
      const timeKey = line.time === null ? '' : await normalizeTime(conn, line.time);
      if (id !== null && loadedKeys.has(`${id}|${timeKey}`)) {
        alreadyLoaded++;
        continue;
      }
      if (id !== null) loadedKeys.add(`${id}|${timeKey}`);
      const scope = id === null ? undefined : scopes.get(id);
      collectFindingDetail(
        line.finding,
        {
          snapshotId: null,
          origin: 'journal',
          file: `${journalPath}:${line.lineNo}`,
          projectId: scope?.[0] ?? null,
          projectKey: scope?.[1] ?? null,
          journalTime: line.time,
          journalSource: line.source,
          ordinal: line.lineNo,
        },
        seenEvents,
        sink,
      );
      if (line.acceptance !== null) {
        sink.addValues(
          RISK_ACCEPTANCES,
          acceptanceValues(line.acceptance, {
            snapshotId: null,
            origin: 'journal',
            manifest: null,
            org: line.org,
            workspace: line.workspace,
            ordinal: line.lineNo,
          }),
        );
      }
      altered.push(...line.altered);
      loaded++;
    }
    await appendJournalRows(conn, RISK_ACCEPTANCES, sink.rows.get(RISK_ACCEPTANCES.name) ?? []);
    await appendJournalRows(conn, FINDINGS, sink.rows.get(FINDINGS.name) ?? []);
    await appendJournalRows(conn, REVIEW_EVENTS, sink.rows.get(REVIEW_EVENTS.name) ?? []);
    await appendJournalRows(conn, ALTERED_VALUES, alteredValueRows(null, altered));
    if (altered.length > 0) {
      sink.warnings.push({
        code: 'altered_values',
        message: alteredValuesMessage(altered.length),
        file: journalPath,
        detail: { values: altered.length, lines: [...new Set(altered.map((a) => a.file))] },
      });
    }
    const journalWarnings = [
      ...warnings.map((message) => ({ code: 'journal_torn_line', message, file: journalPath, detail: null })),
      ...sink.warnings,
    ].map((w) => ({ ...w, source: 'journal' as const }));
    await appendJournalRows(conn, LOAD_WARNINGS, warningRows(null, journalWarnings));
    warnings.push(...sink.warnings.map((w) => w.message));
    return {
      file: journalPath,
      lines,
      loaded,
      alreadyLoaded,
      notApplied,
      sending,
      reviewEvents: seenEvents.size - eventsBefore,
      warnings,
    };
  });
}

/** How DuckDB renders the timestamp, so the idempotency key matches what is stored. */
async function normalizeTime(conn: DuckDBConnection, time: string): Promise<string> {
  try {
    const reader = await conn.runAndReadAll('SELECT CAST(CAST($1 AS TIMESTAMPTZ) AS VARCHAR)', [time]);
    return String(reader.getRows()[0]?.[0] ?? '');
  } catch {
    return '';
  }
}

/** attack run id → [project_id, project_key] from the newest snapshot that has the run. */
async function attackRunScopes(conn: DuckDBConnection): Promise<Map<string, [string | null, string | null]>> {
  const reader = await conn.runAndReadAll(`
    SELECT a.attack_run_id, a.project_id, a.project_key FROM attack_runs a JOIN snapshots s ON s.snapshot_id = a.snapshot_id
    QUALIFY row_number() OVER (PARTITION BY a.attack_run_id ORDER BY s.fetched_at DESC, s.snapshot_id DESC) = 1`);
  const map = new Map<string, [string | null, string | null]>();
  for (const [id, pid, key] of reader.getRows()) {
    map.set(String(id), [pid === null ? null : String(pid), key === null ? null : String(key)]);
  }
  return map;
}

/** Opens the database, loads one journal (one transaction), closes. */
export async function loadTriageJournal(dbPath: string, journalPath: string): Promise<JournalLoadResult> {
  const journal = await readTriageJournal(journalPath);
  const warehouse = await openWarehouse(dbPath);
  try {
    await ensureSchema(warehouse.conn);
    return await loadJournalInto(warehouse.conn, journal);
  } finally {
    warehouse.close();
  }
}
