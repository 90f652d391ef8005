import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  MAX_SEGMENT_LENGTH,
  PathEscapeError,
  resolveInside,
  safeSegment,
} from '../../src/snapshot/safe-path.js';

describe('safeSegment', () => {
  it('keeps ordinary slugs and UUIDs unchanged', () => {
    expect(safeSegment('payments-bot')).toBe('payments-bot');
    expect(safeSegment('0f8fad5b-d9cb-469f-a165-70867728950e')).toBe('0f8fad5b-d9cb-469f-a165-70867728950e');
  });

  it.each([
    '../../etc',
    '..',
    '.',
    '.hidden',
    'a/b',
    'a\\b',
    'x\u0000y',
    'tab\there',
    'CON',
    'nul.txt',
    'Upper',
    '',
    'end.',
  ])('rewrites %j into one safe segment with a hash suffix', (raw) => {
    const safe = safeSegment(raw);
    expect(safe).toMatch(/^[a-z0-9_-][a-z0-9._-]*~[0-9a-f]{12}$/);
    expect(safe).not.toContain('/');
    expect(safe).not.toContain('..');
    expect(path.resolve('/root', safe).startsWith('/root/')).toBe(true);
  });

  it('never maps two different inputs to the same name', () => {
    const inputs = ['a/b', 'a_b', 'a\\b', 'A_B', 'a b', 'a_b~0123456789ab', '../x', '..x', 'x'];
    const outputs = inputs.map(safeSegment);
    expect(new Set(outputs).size).toBe(inputs.length);
  });

  it('bounds the length', () => {
    expect(safeSegment('a'.repeat(1000)).length).toBeLessThanOrEqual(MAX_SEGMENT_LENGTH);
    expect(safeSegment('é'.repeat(500)).length).toBeLessThanOrEqual(MAX_SEGMENT_LENGTH);
  });
});

describe('resolveInside', () => {
  it('resolves relative paths inside the root', () => {
    expect(resolveInside('/snap', 'trials/a.json')).toBe(path.resolve('/snap/trials/a.json'));
  });

  it.each(['../x', 'a/../../x', '/etc/passwd', 'a/..\\..\\x', 'a\u0000b'])('refuses %j', (relative) => {
    expect(() => resolveInside('/snap', relative)).toThrow(PathEscapeError);
  });
});
