/**
 * Reading the small JSON bodies of a snapshot (summaries, evaluation pages, findings, config) with
 * errors that name the file and the exact position, so a malformed body can be found and inspected.
 */
import { readFile, stat } from 'node:fs/promises';
import { CliError } from '../errors.js';

export interface JsonPosition {
  /** 0-based character offset. */
  offset: number;
  /** 1-based line and column. */
  line: number;
  column: number;
}

/** Malformed JSON in a snapshot file: the message names the file, line, column and offset. */
export class MalformedJsonError extends CliError {
  override readonly name = 'MalformedJsonError';
  constructor(
    readonly file: string,
    readonly position: JsonPosition | null,
    readonly reason: string,
  ) {
    const where = position
      ? ` at line ${position.line}, column ${position.column} (offset ${position.offset})`
      : '';
    super(
      `Malformed JSON in ${file}${where}: ${reason}. The file is not valid JSON; re-take the snapshot or fix the file.`,
    );
  }
}

function positionOf(text: string, offset: number): JsonPosition {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { offset, line, column: offset - lineStart + 1 };
}

/** Parses `text`; a syntax error becomes a MalformedJsonError naming `file` and the position. */
export function parseJsonText(text: string, file: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const match = /at position (\d+)/.exec(message);
    const offset =
      match?.[1] !== undefined ? Number(match[1]) : /end of JSON input/.test(message) ? text.length : null;
    const reason = message
      .replace(/\s*in JSON at position \d+.*$/s, '')
      .replace(/,\s*".*" is not valid JSON$/s, '');
    throw new MalformedJsonError(file, offset === null ? null : positionOf(text, offset), reason);
  }
}

export async function readJsonFile(absPath: string, displayPath: string): Promise<unknown> {
  const text = await readFile(absPath, 'utf8');
  return parseJsonText(text, displayPath);
}

/** Files up to this size are re-parsed in JS to pin down where DuckDB found malformed JSON. */
const LOCATE_LIMIT_BYTES = 256 * 1024 * 1024;

/**
 * The error for a trial file DuckDB could not read: the exact position when the file is small enough
 * to re-parse here, else DuckDB's own description (which gives the byte and record). Null when the
 * file is valid JSON after all (DuckDB refuses some valid JSON, e.g. a lone surrogate escape).
 */
export async function malformedFileError(
  absPath: string,
  displayPath: string,
  duckdbMessage: string,
): Promise<CliError | null> {
  const size = (await stat(absPath)).size;
  if (size <= LOCATE_LIMIT_BYTES) {
    try {
      await readJsonFile(absPath, displayPath);
      return null;
    } catch (error) {
      if (error instanceof MalformedJsonError) return error;
    }
  }
  const reason = duckdbMessage.split('\n')[0] ?? duckdbMessage;
  return new MalformedJsonError(displayPath, null, reason);
}
