import { describe, expect, it } from 'vitest';
import {
  redactionMarker,
  sanitizeText,
  TextShaper,
  truncateCodePoints,
} from '../../src/report/untrusted-text.js';

describe('sanitizeText', () => {
  it('shows bidi controls and other control characters visibly', () => {
    expect(sanitizeText('safe\u202Etxt.exe')).toBe('safe[U+202E]txt.exe');
    expect(sanitizeText('a\u2066b\u200Fc')).toBe('a[U+2066]b[U+200F]c');
    expect(sanitizeText('nul\u0000bell\u0007')).toBe('nul[U+0000]bell[U+0007]');
  });

  it('normalizes line breaks and tabs, and replaces lone surrogates', () => {
    expect(sanitizeText('a\r\nb\rc\u2028d\te')).toBe('a\nb\nc\nd e');
    expect(sanitizeText('x\uD800y\uDC00z')).toBe('x\uFFFDy\uFFFDz');
    expect(sanitizeText('😀')).toBe('😀');
  });
});

describe('truncateCodePoints', () => {
  it('keeps short text and cuts long text with an ellipsis within the limit', () => {
    expect(truncateCodePoints('abc', 3)).toBe('abc');
    expect(truncateCodePoints('abcd', 3)).toBe('ab…');
    expect(Array.from(truncateCodePoints('x'.repeat(500), 280))).toHaveLength(280);
  });

  it('never splits a surrogate pair', () => {
    const text = `${'A'.repeat(278)}😀😀BBB`;
    const cut = truncateCodePoints(text, 280);
    expect(cut).toBe(`${'A'.repeat(278)}😀…`);
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/u);
  });
});

describe('TextShaper', () => {
  it('redacts excerpts with a short sha256 and counts them, but keeps labels', () => {
    const shaper = new TextShaper({ maxText: 280, redact: true });
    expect(shaper.excerpt('secret prompt')).toBe(redactionMarker('secret prompt'));
    expect(redactionMarker('secret prompt')).toMatch(/^\[redacted sha256:[0-9a-f]{12}\]$/u);
    expect(shaper.excerpt('')).toBe('');
    expect(shaper.label('tap_attack')).toBe('tap_attack');
    expect(shaper.redactedCount).toBe(1);
  });

  it('truncates labels further when asked and refuses a nonsensical limit', () => {
    const shaper = new TextShaper({ maxText: 10, redact: false });
    expect(shaper.label('abcdefghijklmnop')).toBe('abcdefghi…');
    expect(shaper.label('abcdefghijklmnop', 5)).toBe('abcd…');
    expect(() => new TextShaper({ maxText: 0, redact: false })).toThrow(RangeError);
  });
});
