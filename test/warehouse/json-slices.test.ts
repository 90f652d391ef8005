/**
 * The scan that finds a summary's assessments in its UTF-8 bytes without decoding or parsing them
 * (json-slices.ts): every item it gives parses to the item JSON.parse gives, and the bytes around them
 * to the rest of the object; where the text is not one object with one such array, it gives nothing
 * (the loader parses the whole text then).
 */
import { describe, expect, it } from 'vitest';
import { arrayMemberSlices, withEmptyArray } from '../../src/warehouse/json-slices.js';
import { prng } from '../helpers/prng.js';

/** What the scan says of `text`, checked against JSON.parse: the items, and the object without them. */
function itemsOf(text: string): unknown[] | undefined {
  const bytes = Buffer.from(text);
  const slices = arrayMemberSlices(bytes, 'assessments');
  if (!slices) return undefined;
  const parsed = JSON.parse(text) as Record<string, unknown>;
  const items = slices.items.map(([start, end]) => JSON.parse(bytes.toString('utf8', start, end)) as unknown);
  expect(items).toEqual(parsed.assessments);
  expect(JSON.parse(withEmptyArray(bytes, slices))).toEqual({ ...parsed, assessments: [] });
  return items;
}

/** Strings made of what a scan could trip on: quotes, backslashes, brackets, commas, unicode. */
const PIECES = [
  '"',
  '\\',
  '\\"',
  '\\\\',
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  ' ',
  '\n',
  'é',
  '😀',
  'a',
  '\u2028',
  'null',
];

function value(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 3 ? 4 : 7));
  if (pick === 0)
    return Array.from(
      { length: Math.floor(next() * 6) },
      () => PIECES[Math.floor(next() * PIECES.length)],
    ).join('');
  if (pick === 1) return [0, -0, 1.5, -2e-7, 1e21, 42][Math.floor(next() * 6)];
  if (pick === 2) return [true, false, null][Math.floor(next() * 3)];
  if (pick === 3) return '';
  if (pick === 4) return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
  const object: Record<string, unknown> = {};
  for (let i = Math.floor(next() * 4); i > 0; i--) object[String(value(next, 9))] = value(next, depth + 1);
  return object;
}

describe("the items of a summary's assessments array, found in its text", () => {
  it('parse to the items JSON.parse gives, with the rest of the object around them (random objects, any layout)', () => {
    const next = prng(14);
    for (let n = 0; n < 400; n++) {
      const body: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 3); i > 0; i--) body[`before ${i} "assessments"`] = value(next, 0);
      body.assessments = Array.from({ length: Math.floor(next() * 5) }, () => value(next, 1));
      for (let i = Math.floor(next() * 3); i > 0; i--) body[`after\\${i}`] = value(next, 0);
      const indent = [undefined, 2, '\t', ' '][n % 4];
      const text = JSON.stringify(body, null, indent);
      expect(itemsOf(text), text).toHaveLength((body.assessments as unknown[]).length);
    }
  });

  it('reads a member name written with escapes as JSON does, and keeps the exact bytes of numbers', () => {
    expect(itemsOf('{"\\u0061ssessments": [ 1 , 3600.0,-0 ]}')).toEqual([1, 3600, -0]);
    const bytes = Buffer.from('{"assessments":[{"asr":3600.0},{"s":"é]\\"}"}]}');
    const slices = arrayMemberSlices(bytes, 'assessments');
    expect(slices?.items.map(([s, e]) => bytes.toString('utf8', s, e))).toEqual([
      '{"asr":3600.0}',
      '{"s":"é]\\"}"}',
    ]);
  });

  it('is nothing where the text is not one object with one array of that name', () => {
    for (const text of [
      '[{"assessments": []}]',
      '{"assessments": {"a": 1}}',
      '{"assessments": [1], "assessments": [2]}',
      '{"assessments": [1]} trailing',
      '{"assessments": [1 2]}',
      '{"assessments": [1,]}',
      '{"assessments": ["unterminated]}',
      '{"other": [1]}',
      '{}',
      '\ufeff{"assessments": [1]}',
      '{"a" 1, "assessments": [1]}',
    ])
      expect(arrayMemberSlices(Buffer.from(text), 'assessments'), text).toBeUndefined();
    expect(itemsOf('{"assessments": []}')).toEqual([]);
    expect(itemsOf(' \n{ "assessments" : [ ] } \n')).toEqual([]);
  });
});
