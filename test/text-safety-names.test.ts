/**
 * Names that are refused rather than shown use the same character set as every output: a zip entry
 * name with a bidi override (`invoice\u202Efdp.exe` reads as `invoiceexe.pdf`), a C1 control or a
 * zero-width character is refused like a C0 control, where the bundle's own rule once missed them.
 */
import { describe, expect, it } from 'vitest';
import { zipEntryNameProblem } from '../src/pipeline/zip-entry-name.js';
import { hasUnsafeCharacter } from '../src/text-safety.js';

describe('one unsafe-character set for names', () => {
  it.each([
    ['bidi override', 'reports/invoice\u202Efdp.exe'],
    ['C1 control', 'reports/a\u009bb.md'],
    ['zero-width space', 'reports/ex\u200Becutive.md'],
    ['line separator', 'reports/a\u2028b.md'],
    ['C0 control', 'reports/a\u0007b.md'],
    ['NUL', 'reports/a\u0000b.md'],
    ['tab', 'reports/a\tb.md'],
  ])('a zip entry name with a %s is refused', (_, name) => {
    expect(hasUnsafeCharacter(name)).toBe(true);
    expect(zipEntryNameProblem(name)).toBe('control, bidi or invisible character in name');
  });

  it('plain names, including non-Latin letters and emoji, are accepted', () => {
    for (const name of ['reports/executive.md', 'charts/überblick-日本.svg', 'notes/✅.md']) {
      expect(hasUnsafeCharacter(name)).toBe(false);
      expect(zipEntryNameProblem(name)).toBeNull();
    }
  });
});
