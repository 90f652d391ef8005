/**
 * Reads a bulk triage decisions file (CSV with a header row, or a JSON array of objects) into
 * validated changes. Every row is checked before anything is sent, and every problem is reported with
 * its row number: one bad row means the whole file is refused, because a half-applied file is harder
 * to reason about than a fixed one.
 *
 * Columns / keys: finding_id (required), finding_status, finding_type, severity, notes, and with
 * finding_status accepted_risk a dated acceptance: accepted_until, acceptance_reason, accepted_by. An empty CSV
 * cell or an absent JSON key leaves that field unchanged. CSV is read with a real parser, so notes may
 * hold quotes, commas and newlines.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { UsageError } from '../errors.js';
import { terminalSafe } from './terminal-text.js';
import { ACCEPTANCE_FIELDS, defaultOwner } from './risk-acceptance.js';
import {
  isUuid,
  TRIAGE_FIELDS,
  validateTriageChange,
  type TriageInput,
  type TriageProblem,
  type ValidTriageChange,
} from './triage-request.js';

export type DecisionsFormat = 'csv' | 'json';

/** One validated row of a decisions file. */
export interface DecisionRow extends ValidTriageChange {
  /** 1-based data row: the first row after the CSV header, or the first element of the JSON array. */
  row: number;
  /** First line of the row in the file (CSV only: notes may span lines). */
  line?: number;
}

/** A decisions file (CSV or JSON) read and validated row by row. */
export interface DecisionsFile {
  /** The path as the operator gave it; used in journal `source` values (`apply:<file>#<row>`). */
  file: string;
  format: DecisionsFormat;
  rows: DecisionRow[];
}

/** A problem with one row (or with the file as a whole when `row` is absent). */
export interface DecisionProblem {
  row?: number;
  line?: number;
  message: string;
}

/** Thrown when a decisions file has any problem; lists all of them. Exit code 2: nothing was sent. */
export class DecisionsFileError extends UsageError {
  constructor(
    readonly file: string,
    readonly problems: DecisionProblem[],
  ) {
    super(formatProblems(file, problems));
  }
}

const COLUMNS = ['finding_id', ...TRIAGE_FIELDS, ...ACCEPTANCE_FIELDS] as const;
const MAX_SHOWN_PROBLEMS = 200;

/** Picks the format from the file name: `.csv` or `.json`. */
function decisionsFormatOf(file: string): DecisionsFormat {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.json') return 'json';
  throw new UsageError(`Decisions file ${terminalSafe(file)} must end in .csv or .json.`);
}

/** Reads and validates a decisions file; throws DecisionsFileError listing every bad row. */
export async function readDecisionsFile(file: string, cwd: string): Promise<DecisionsFile> {
  const format = decisionsFormatOf(file);
  let text: string;
  try {
    text = await readFile(path.resolve(cwd, file), 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read decisions file ${terminalSafe(file)}: ${(error as Error).message}`);
  }
  return parseDecisions(text, format, file);
}

/** Parses decisions text of a known format; `file` only names it in messages. */
export function parseDecisions(
  text: string,
  format: DecisionsFormat,
  file: string,
  owner: string = defaultOwner(),
): DecisionsFile {
  const raw = format === 'csv' ? readCsvRows(text, file) : readJsonRows(text, file);
  const problems = [...raw.problems];
  const rows: DecisionRow[] = [];
  const firstRowOf = new Map<string, number>();
  for (const candidate of raw.rows) {
    const where = { row: candidate.row, ...(candidate.line === undefined ? {} : { line: candidate.line }) };
    // Duplicates are found even among invalid rows, so one pass reports them too.
    const id = candidate.findingId.trim().toLowerCase();
    const earlier = isUuid(id) ? firstRowOf.get(id) : undefined;
    if (isUuid(id) && earlier === undefined) firstRowOf.set(id, candidate.row);
    const result = validateTriageChange(candidate.findingId, candidate.input, { owner });
    if (!result.ok) {
      for (const problem of result.problems) problems.push({ ...where, message: describe(problem) });
    }
    if (earlier !== undefined) {
      problems.push({
        ...where,
        message: `finding ${id} already appears on row ${earlier}; put all changes to one finding in one row`,
      });
    }
    if (result.ok && earlier === undefined) rows.push({ ...where, ...result.change });
  }
  // File-level problems first, then by row (stable: a row's problems keep their order).
  problems.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
  if (problems.length === 0 && rows.length === 0) problems.push({ message: 'holds no decision rows' });
  if (problems.length > 0) throw new DecisionsFileError(file, problems);
  return { file, format, rows };
}

interface CandidateRow {
  row: number;
  line?: number;
  findingId: string;
  input: TriageInput;
}

interface RawRows {
  rows: CandidateRow[];
  problems: DecisionProblem[];
}

function readCsvRows(text: string, file: string): RawRows {
  let records: { record: string[]; info: { lines: number; empty_lines: number } }[];
  try {
    // With `info: true` csv-parse returns {record, info} objects; its typings do not model that option.
    records = parse(text, {
      bom: true,
      info: true,
      skip_empty_lines: true,
      // Files edited on several systems mix line endings; accept both on every record.
      record_delimiter: ['\r\n', '\n'],
      // Rows with the wrong number of cells are reported per row below instead of aborting the parse.
      relax_column_count: true,
    }) as unknown as typeof records;
  } catch (error) {
    throw new DecisionsFileError(file, [{ message: `is not valid CSV: ${(error as Error).message}` }]);
  }
  const [header, ...data] = records;
  if (!header) return { rows: [], problems: [] };
  const columns = header.record.map((name) => name.trim());
  const problems: DecisionProblem[] = [];
  const unknown = columns.filter((name) => !(COLUMNS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    problems.push({
      line: 1,
      message: `unknown column(s) ${unknown.map((c) => JSON.stringify(c)).join(', ')}; allowed: ${COLUMNS.join(', ')}`,
    });
  }
  const repeated = columns.filter((name, index) => columns.indexOf(name) !== index);
  if (repeated.length > 0) problems.push({ line: 1, message: `repeated column(s) ${repeated.join(', ')}` });
  if (!columns.includes('finding_id')) problems.push({ line: 1, message: 'has no finding_id column' });
  if (problems.length > 0) return { rows: [], problems };

  const rows: CandidateRow[] = [];
  let previous = header.info;
  data.forEach(({ record, info }, index) => {
    const row = index + 1;
    // `info.lines` is where the record ends; empty lines skipped before it are counted cumulatively.
    const line = previous.lines + 1 + (info.empty_lines - previous.empty_lines);
    previous = info;
    if (record.length !== columns.length) {
      problems.push({ row, line, message: `has ${record.length} cells, the header has ${columns.length}` });
      return;
    }
    const cells = new Map(columns.map((name, i) => [name, record[i] ?? '']));
    const input: TriageInput = {};
    for (const field of [...TRIAGE_FIELDS, ...ACCEPTANCE_FIELDS]) {
      const cell = cells.get(field);
      if (cell !== undefined && cell !== '') input[field] = cell;
    }
    rows.push({ row, line, findingId: cells.get('finding_id') ?? '', input });
  });
  return { rows, problems };
}

function readJsonRows(text: string, file: string): RawRows {
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/u, ''));
  } catch (error) {
    throw new DecisionsFileError(file, [{ message: `is not valid JSON: ${(error as Error).message}` }]);
  }
  if (!Array.isArray(data)) {
    throw new DecisionsFileError(file, [{ message: 'must hold a JSON array of decision objects' }]);
  }
  const rows: CandidateRow[] = [];
  const problems: DecisionProblem[] = [];
  data.forEach((item: unknown, index) => {
    const row = index + 1;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      problems.push({ row, message: 'is not an object' });
      return;
    }
    const entries = Object.entries(item as Record<string, unknown>);
    const input: TriageInput = {};
    let findingId = '';
    let ok = true;
    for (const [key, value] of entries) {
      if (!(COLUMNS as readonly string[]).includes(key)) {
        problems.push({ row, message: `unknown key ${JSON.stringify(key)}; allowed: ${COLUMNS.join(', ')}` });
        ok = false;
      } else if (typeof value !== 'string') {
        // null's meaning in a PATCH is not shown in the spec; omit a key to leave the field unchanged.
        problems.push({
          row,
          message: `${key} must be a string (omit the key to leave it unchanged), got ${value === null ? 'null' : typeof value}`,
        });
        ok = false;
      } else if (key === 'finding_id') findingId = value;
      else input[key as keyof TriageInput] = value;
    }
    if (ok) rows.push({ row, findingId, input });
  });
  return { rows, problems };
}

function describe(problem: TriageProblem): string {
  return problem.field === 'change'
    ? `${problem.message}: set at least one of ${TRIAGE_FIELDS.join(', ')}`
    : `${problem.field} ${problem.message}`;
}

function formatProblems(file: string, problems: readonly DecisionProblem[]): string {
  const badRows = new Set(problems.map((p) => p.row).filter((row) => row !== undefined)).size;
  const head =
    badRows > 0
      ? `Decisions file ${terminalSafe(file)} has ${badRows} invalid row(s); nothing was sent. Fix them and run again:`
      : `Decisions file ${terminalSafe(file)} cannot be used; nothing was sent:`;
  const lines = problems.slice(0, MAX_SHOWN_PROBLEMS).map((p) => {
    const where =
      p.row !== undefined
        ? `row ${p.row}${p.line === undefined ? '' : ` (line ${p.line})`}`
        : p.line !== undefined
          ? `line ${p.line}`
          : 'file';
    return `  ${where}: ${terminalSafe(p.message, 300)}`;
  });
  if (problems.length > MAX_SHOWN_PROBLEMS)
    lines.push(`  … and ${problems.length - MAX_SHOWN_PROBLEMS} more`);
  return [head, ...lines].join('\n');
}
