/**
 * A snapshot that fails verification, loaded anyway with `force` into a real DuckDB warehouse: a copy
 * of the first fixture snapshot (same id, same manifest and root hash) with one figure of a project
 * summary changed and a stray file whose name is hostile Markdown/HTML. What the tester's reproduction
 * of "a forced load's report bundled as if verified" needs, for the report and the bundle tests.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { copyFixture, FIXTURES } from '../warehouse/helpers.js';

/** The project whose summary is changed. */
export const TAMPERED_PROJECT = 'payments-bot';
/** The changed summary, relative to the snapshot. */
export const TAMPERED_SUMMARY = `projects/${TAMPERED_PROJECT}/summary.json`;
/** A file the manifest does not list, named to break Markdown tables and inject HTML if unescaped. */
export const HOSTILE_EXTRA_FILE = 'notes <img src=x onerror=alert(1)> *x* |cell|.txt';

export interface ForcedLoad {
  /** The tampered copy (fails verification). */
  tampered: string;
  /** The untouched fixture (same snapshot id and root hash). */
  genuine: string;
  snapshotId: string;
  /** Warehouse holding only the tampered copy, loaded with force. */
  forcedDb: string;
  /** Warehouse holding only the genuine snapshot, loaded verified. */
  verifiedDb: string;
}

/** Builds both warehouses under `work` (a fresh temp directory). */
export async function forcedLoadFixture(work: string): Promise<ForcedLoad> {
  const genuine = FIXTURES.first;
  const tampered = await copyFixture(genuine, work);
  const summary = path.join(tampered, TAMPERED_SUMMARY);
  const text = await readFile(summary, 'utf8');
  if (!text.includes('"best_score": 0.92')) throw new Error(`${summary}: the figure to change is gone`);
  await writeFile(summary, text.replace('"best_score": 0.92', '"best_score": 0.12'));
  await writeFile(path.join(tampered, HOSTILE_EXTRA_FILE), 'stray\n');
  const forcedDb = path.join(work, 'forced.duckdb');
  const verifiedDb = path.join(work, 'verified.duckdb');
  const now = () => new Date('2026-04-01T00:00:00Z');
  await loadSnapshots(forcedDb, [tampered], { force: true, now });
  await loadSnapshots(verifiedDb, [genuine], { now });
  return { tampered, genuine, snapshotId: path.basename(genuine), forcedDb, verifiedDb };
}
