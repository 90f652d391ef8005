/**
 * Reads a JSON file whose top level is an array one element at a time, so a trial list of any size is
 * validated with memory for one element, not the whole body. A small byte scanner finds element
 * boundaries (tracking strings, escapes and nesting; UTF-8 continuation bytes never look like JSON
 * punctuation), and each element is handed to `JSON.parse`, which checks its syntax in full.
 */
import { createReadStream } from 'node:fs';

/** The file is not a JSON array at the top level (it may still be valid JSON). */
export class NotAnArrayError extends Error {
  override readonly name = 'NotAnArrayError';
}

/** The file is not valid JSON; `offset` is the byte where scanning gave up. */
export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError';
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * Calls `onElement(value, index)` for every element of the top-level array in `file`, in order.
 * Returns the element count. Throws NotAnArrayError or JsonSyntaxError.
 */
export async function forEachArrayElement(
  file: string,
  onElement: (value: unknown, index: number) => void,
): Promise<number> {
  let started = false;
  let finished = false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let collecting = false;
  let expectElement = false;
  let parts: Buffer[] = [];
  let count = 0;
  let offset = 0;

  const emit = (position: number): void => {
    const text = (parts.length === 1 ? parts[0]! : Buffer.concat(parts)).toString('utf8');
    parts = [];
    collecting = false;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new JsonSyntaxError(`element ${count}: ${(error as Error).message}`, position);
    }
    onElement(value, count);
    count++;
  };

  for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>) {
    let start = collecting ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) inString = false;
        continue;
      }
      if (finished) {
        if (!isWhitespace(byte)) throw new JsonSyntaxError('unexpected data after the array', offset + i);
        continue;
      }
      if (!started) {
        if (isWhitespace(byte)) continue;
        if (byte !== OPEN_BRACKET) throw new NotAnArrayError('the body is not a JSON array');
        started = true;
        depth = 1;
        expectElement = true;
        continue;
      }
      if (depth === 1) {
        if (byte === COMMA || byte === CLOSE_BRACKET) {
          if (collecting) {
            parts.push(chunk.subarray(start, i));
            emit(offset + i);
            start = -1;
          } else if (byte === COMMA || count > 0) {
            throw new JsonSyntaxError('missing array element', offset + i);
          }
          if (byte === CLOSE_BRACKET) {
            depth = 0;
            finished = true;
          } else {
            expectElement = true;
          }
          continue;
        }
        if (isWhitespace(byte)) continue;
        if (!collecting) {
          if (!expectElement) throw new JsonSyntaxError('missing comma between elements', offset + i);
          collecting = true;
          expectElement = false;
          start = i;
        }
      }
      if (byte === QUOTE) inString = true;
      else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        depth--;
        if (depth < 1) throw new JsonSyntaxError('unbalanced brackets', offset + i);
      }
    }
    if (collecting) parts.push(chunk.subarray(start));
    offset += chunk.length;
  }
  if (!started) throw new JsonSyntaxError('empty body', offset);
  if (!finished) throw new JsonSyntaxError('the array is not closed (body cut off?)', offset);
  return count;
}
