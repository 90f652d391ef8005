/**
 * The layer order of ARCHITECTURE.md holds in src/: no import points up or sideways, no two layers
 * import each other (directly or round a loop). The checker is proven on fixture trees with a
 * deliberately wrong import and with a cycle, so a broken rule cannot pass silently.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDirs } from '../helpers/temp-dirs.js';
import { checkLayers, layerOf } from './import-graph.js';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

let fixtures: string;

/** Writes a small source tree: file path → content. */
async function writeTree(root: string, files: Record<string, string>): Promise<string> {
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  }
  return root;
}

beforeAll(async () => {
  fixtures = await makeTempDir('airt-layers-');
});

afterAll(async () => {
  await removeTempDirs();
});

describe('layer order', () => {
  it('src/ has no import against the order and no cycle between layers', async () => {
    expect(await checkLayers(SRC)).toEqual([]);
  });

  it('knows every folder of src/ as a layer', () => {
    expect(layerOf('snapshot/journal.ts')).toBe('snapshot');
    expect(layerOf('text-safety.ts')).toBe('leaf');
    expect(layerOf('taxonomy/frameworks.ts')).toBe('leaf');
    expect(layerOf('severity.ts')).toBe('api');
  });

  it('fails on a deliberately wrong import: the snapshot importing a report module', async () => {
    const root = await writeTree(path.join(fixtures, 'upward'), {
      'report/escape.ts': 'export const markdownCode = (s: string): string => s;\n',
      'snapshot/provenance-line.ts':
        "import { markdownCode } from '../report/escape.js';\nexport const x = markdownCode('a');\n",
    });
    expect(await checkLayers(root)).toEqual([
      'snapshot/provenance-line.ts → report/escape.ts: snapshot may not import report (report is not below it)',
    ]);
  });

  it('fails on a leaf that imports a layer, a dynamic import and a type-only import', async () => {
    const root = await writeTree(path.join(fixtures, 'leaf'), {
      'text-safety.ts': "import type { X } from './api/types.js';\nexport type Y = X;\n",
      'api/types.ts': 'export type X = string;\n',
      'warehouse/load.ts':
        "export async function f(): Promise<unknown> { return import('../pipeline/run.js'); }\n",
      'pipeline/run.ts': 'export const run = 1;\n',
    });
    expect(await checkLayers(root)).toEqual([
      'text-safety.ts → api/types.ts: leaf may not import api (api is not below it)',
      'warehouse/load.ts → pipeline/run.ts: warehouse may not import pipeline (pipeline is not below it)',
    ]);
  });

  it('fails on a cycle between layers and names it', async () => {
    const root = await writeTree(path.join(fixtures, 'cycle'), {
      'diff/diff-report.ts': "import { f } from '../report/format.js';\nexport const d = f;\n",
      'report/format.ts':
        "import { d } from '../diff/diff-report.js';\nexport const f = 1;\nexport const e = d;\n",
    });
    const problems = await checkLayers(root);
    expect(problems).toContain(
      'diff/diff-report.ts → report/format.ts: diff may not import report (report is not below it)',
    );
    expect(problems).toContain('layer cycle: diff → report → diff');
  });

  it('keeps the simulator beside the layers: only the demo and the CLI import it', async () => {
    const root = await writeTree(path.join(fixtures, 'simulator'), {
      'simulator/index.ts': "import { x } from '../snapshot/journal.js';\nexport const s = x;\n",
      'snapshot/journal.ts': 'export const x = 1;\n',
      'pipeline/run.ts': "import { s } from '../simulator/index.js';\nexport const r = s;\n",
      'cli/main.ts': "import { s } from '../simulator/index.js';\nexport const m = s;\n",
    });
    expect(await checkLayers(root)).toEqual([
      'pipeline/run.ts → simulator/index.ts: only the demo and the CLI start the simulator',
      'simulator/index.ts → snapshot/journal.ts: the simulator imports only the API contract and leaves',
    ]);
  });
});
