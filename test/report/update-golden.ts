/**
 * Rewrites the report golden files from the fixture models: `npx tsx test/report/update-golden.ts`.
 * Run it only after a deliberate change to templates or rendering, and review the diff before
 * committing; CI never runs it (the golden test only compares).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { GOLDEN_DIR, goldenPath, renderGoldenSet } from './golden-set.js';

await mkdir(GOLDEN_DIR, { recursive: true });
for (const [name, content] of await renderGoldenSet()) {
  await writeFile(goldenPath(name), content);
  console.log(`wrote ${goldenPath(name)}`);
}
