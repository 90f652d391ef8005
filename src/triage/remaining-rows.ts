/**
 * After a partial bulk apply, the rows still to do are written beside the decisions file, in the same
 * format, as `<name>.remaining.<ext>`. Re-running either file is safe (the journal skips what was
 * applied); the remaining file just makes the leftover work easy to see and hand over.
 */
import path from 'node:path';
import { csvText } from '../csv-text.js';
import { writeOutputFile } from '../output-file.js';
import type { DecisionRow, DecisionsFile } from './decisions-file.js';
import { ACCEPTANCE_FIELDS, type AcceptanceField } from './risk-acceptance.js';
import { TRIAGE_FIELDS } from './triage-request.js';

/** A row's acceptance as decision-file cells (the columns appear only when some row has one). */
function acceptanceCells(row: DecisionRow): Record<AcceptanceField, string> {
  const a = row.acceptance;
  return { accepted_until: a?.until ?? '', acceptance_reason: a?.reason ?? '', accepted_by: a?.owner ?? '' };
}

/** `decisions.csv` → `decisions.remaining.csv`; a remaining file maps to itself. */
export function remainingRowsPath(file: string): string {
  const ext = path.extname(file);
  const stem = file.slice(0, file.length - ext.length).replace(/\.remaining$/u, '');
  return `${stem}.remaining${ext}`;
}

/** Writes `rows` (temp file, fsync, rename) and returns the path as shown to the operator. */
export async function writeRemainingRows(
  decisions: DecisionsFile,
  rows: readonly DecisionRow[],
  cwd: string,
): Promise<string> {
  const shown = remainingRowsPath(decisions.file);
  const target = path.resolve(cwd, shown);
  const text = decisions.format === 'csv' ? toCsv(rows) : toJson(rows);
  await writeOutputFile(target, text);
  return shown;
}

function toCsv(rows: readonly DecisionRow[]): string {
  const dated = rows.some((row) => row.acceptance !== undefined);
  const columns = ['finding_id', ...TRIAGE_FIELDS, ...(dated ? ACCEPTANCE_FIELDS : [])];
  const records = rows.map((row) => [
    row.findingId,
    ...TRIAGE_FIELDS.map((field) => row.request[field] ?? ''),
    ...(dated ? ACCEPTANCE_FIELDS.map((field) => acceptanceCells(row)[field]) : []),
  ]);
  // RFC 4180, without the formula guard: this file is read back as decisions and must stay exact.
  return csvText([columns, ...records]);
}

function toJson(rows: readonly DecisionRow[]): string {
  const objects = rows.map((row) => {
    const object: Record<string, string> = { finding_id: row.findingId };
    for (const field of TRIAGE_FIELDS) {
      const value = row.request[field];
      if (value !== undefined && value !== null) object[field] = value;
    }
    if (row.acceptance !== undefined) Object.assign(object, acceptanceCells(row));
    return object;
  });
  return `${JSON.stringify(objects, null, 2)}\n`;
}
