/** The evaluation jobs of a snapshot as its raw JSON has them, for tests that recompute from it. */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** Every job of the snapshot's evaluation pages in page order, a job served on two pages once. */
export async function rawEvaluationJobs(snapshotDir: string): Promise<Record<string, unknown>[]> {
  const pagesDir = path.join(snapshotDir, 'evaluations');
  const pages = (await readdir(pagesDir)).filter((f) => f.endsWith('.json')).sort();
  const seen = new Map<string, Record<string, unknown>>();
  for (const page of pages) {
    const body = JSON.parse(await readFile(path.join(pagesDir, page), 'utf8')) as {
      items: Record<string, unknown>[];
    };
    for (const item of body.items) if (!seen.has(String(item.id))) seen.set(String(item.id), item);
  }
  return [...seen.values()];
}
