/**
 * The cheap check that lets a load skip walking a body for lone surrogates (altered-values.ts): it
 * must say yes wherever JSON text holds a surrogate escape, on the text and on its UTF-8 bytes alike.
 */
import { describe, expect, it } from 'vitest';
import { mayHoldLoneSurrogates } from '../../src/warehouse/altered-values.js';
import { prng } from '../helpers/prng.js';

/** The definition: a backslash, u, d or D, then 8, 9, a-f or A-F. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

describe('whether JSON can hold a lone surrogate', () => {
  it('is yes exactly where a surrogate escape is written, in text and in bytes (random strings)', () => {
    const pieces = ['\\', 'u', 'd', 'D', '8', '9', 'a', 'F', 'g', '7', 'é', '😀', '"', '\\u'];
    const next = prng(7);
    for (let n = 0; n < 3000; n++) {
      const text = Array.from(
        { length: Math.floor(next() * 12) },
        () => pieces[Math.floor(next() * pieces.length)],
      ).join('');
      const expected = SURROGATE_ESCAPE.test(text);
      expect(mayHoldLoneSurrogates(text), text).toBe(expected);
      expect(mayHoldLoneSurrogates(Buffer.from(text)), text).toBe(expected);
    }
    for (const text of ['"\\ud83d"', '"\\uDBFF"', '"\\uDc00"', 'x\\u\\ud800'])
      expect(mayHoldLoneSurrogates(text), text).toBe(true);
    for (const text of ['"\\u0041"', '"\\ud7ff"', '"\\uE000"', '"\\\\"', '', '😀'])
      expect(mayHoldLoneSurrogates(text), text).toBe(false);
  });
});
