/**
 * The warehouse layer (tables, views, the metrics layer, the taxonomy they read) sits below the
 * outputs: no module of it imports a report, diff, gate or command module. The lint rule in
 * eslint.config.js enforces this in `npm test`; this test states it where the test suite runs alone.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const LOWER = ['warehouse', 'metrics', 'taxonomy'];
const OUTPUTS = ['report', 'diff', 'pipeline', 'cli'];

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

describe('layering', () => {
  it('the warehouse, metrics and taxonomy modules import no output module', async () => {
    const offending: string[] = [];
    for (const folder of LOWER) {
      for (const file of await sources(path.join(SRC, folder))) {
        const text = await readFile(file, 'utf8');
        for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/gu)) {
          if (!specifier?.startsWith('.')) continue;
          const target = path.relative(SRC, path.resolve(path.dirname(file), specifier));
          if (OUTPUTS.includes(target.split(path.sep)[0] ?? '')) {
            offending.push(`${path.relative(SRC, file)} → ${target}`);
          }
        }
      }
    }
    expect(offending).toEqual([]);
  });

  it('the framework taxonomy is a leaf: it imports nothing', async () => {
    for (const file of await sources(path.join(SRC, 'taxonomy'))) {
      expect(await readFile(file, 'utf8')).not.toMatch(/^import /mu);
    }
  });
});
