/**
 * Every name of the public entry points (`airt-report`, `airt-report/simulator`) is documented where
 * it is declared, so an editor shows a caller what it is for.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { undocumentedExports } from './exported-docs.js';

const file = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));
const TSCONFIG = file('../../tsconfig.json');

describe('JSDoc on the public API', () => {
  it.each(['../../src/index.ts', '../../src/simulator/index.ts'])(
    '%s: every export is documented',
    (entry) => {
      expect(undocumentedExports(file(entry), TSCONFIG)).toEqual([]);
    },
  );
});
