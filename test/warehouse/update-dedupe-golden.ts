/**
 * Rewrites test/golden/warehouse-dedupe/: `npx tsx test/warehouse/update-dedupe-golden.ts`. These files
 * were written by the code before deduplicated trial storage and must not change with it; run this
 * only after a deliberate change of a query, relation or report, and review the diff.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildGoldenDatabase, DEDUPE_GOLDEN_DIR, renderDedupeGoldenSet } from './dedupe-golden-set.js';

const dir = await mkdtemp(path.join(tmpdir(), 'airt-dedupe-golden-'));
try {
  await mkdir(DEDUPE_GOLDEN_DIR, { recursive: true });
  const db = await buildGoldenDatabase(dir);
  for (const [name, content] of await renderDedupeGoldenSet(db, dir)) {
    await writeFile(path.join(DEDUPE_GOLDEN_DIR, name), content);
    console.log(`wrote ${name} (${content.length} chars)`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
