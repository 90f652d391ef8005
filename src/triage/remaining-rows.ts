/**
 * After a partial bulk apply, the rows still to do are written beside the decisions file, in the same
 * format, as `<name>.remaining.<ext>`. Re-running either file is safe (the journal skips what was
 * applied); the remaining file just makes the leftover work easy to see and hand over.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import type { DecisionRow, DecisionsFile } from './decisions-file.js';
import { TRIAGE_FIELDS } from './triage-request.js';

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
  const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const handle = await open(temp, 'wx');
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return shown;
}

function toCsv(rows: readonly DecisionRow[]): string {
  const columns = ['finding_id', ...TRIAGE_FIELDS];
  const records = rows.map((row) => [
    row.findingId,
    ...TRIAGE_FIELDS.map((field) => row.request[field] ?? ''),
  ]);
  return stringify([columns, ...records]);
}

function toJson(rows: readonly DecisionRow[]): string {
  const objects = rows.map((row) => {
    const object: Record<string, string> = { finding_id: row.findingId };
    for (const field of TRIAGE_FIELDS) {
      const value = row.request[field];
      if (value !== undefined && value !== null) object[field] = value;
    }
    return object;
  });
  return `${JSON.stringify(objects, null, 2)}\n`;
}
