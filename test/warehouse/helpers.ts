/** Shared helpers of the warehouse tests: the committed fixture snapshots, temp dirs, re-sealing. */
import { createHash } from 'node:crypto';
import { copyFile, cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { computeRootHash, type Manifest } from '../../src/snapshot/manifest.js';
import { runQuery } from '../../src/warehouse/query.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/snapshots');

export const FIXTURES = {
  first: path.join(ROOT, 'acme/main/20260301T060000Z-first'),
  second: path.join(ROOT, 'acme/main/20260315T060000Z-second'),
  partial: path.join(ROOT, 'acme/staging/20260320T060000Z-partial'),
} as const;

export async function tempDir(prefix = 'airt-wh-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A writable copy of a fixture snapshot (same directory name = same snapshot id). */
export async function copyFixture(fixture: string, into: string): Promise<string> {
  const target = path.join(into, path.basename(fixture));
  await cp(fixture, target, { recursive: true });
  return target;
}

/**
 * A copy of a closed database file at `to`, for tests that start from the same loaded snapshots: a
 * load of a fixture takes a second or two, a copy milliseconds. A load closes (and so checkpoints) its
 * database, so the file is whole; a write-ahead log left beside it would mean it was not closed.
 */
export async function copyDatabase(from: string, to: string): Promise<string> {
  const wal = await stat(`${from}.wal`).catch(() => null);
  if (wal) throw new Error(`${from} has a write-ahead log: close it before copying`);
  await copyFile(from, to);
  return to;
}

/**
 * Recomputes sha256/bytes of every listed file and the root hash, as the snapshot writer would have
 * for these bytes (used to build snapshots whose bodies are bad but whose hashes are consistent).
 */
export async function reseal(
  dir: string,
  edit: (manifest: Manifest) => void = () => undefined,
): Promise<void> {
  const file = path.join(dir, 'manifest.json');
  const manifest = JSON.parse(await readFile(file, 'utf8')) as Manifest;
  for (const entry of manifest.files) {
    const bytes = await readFile(path.join(dir, entry.path));
    entry.sha256 = createHash('sha256').update(bytes).digest('hex');
    entry.bytes = (await stat(path.join(dir, entry.path))).size;
  }
  edit(manifest);
  manifest.root_sha256 = computeRootHash(manifest.files);
  await writeFile(file, `${JSON.stringify(manifest, null, 2)}\n`);
}

/**
 * Edits the assessments of a fixture's summary as the service changes them overnight: `edit` gets the
 * list and returns the new one. Every assessment equal to one listed before keeps its bytes (the
 * fixture's layout, Python's: `3600.0`); the others are written in that layout by JS. Works on the
 * fixtures' two-space layout on its own (not through the loader's scanner): an assessment is the
 * text from "\n    {" to "\n    }" within the "assessments" array.
 */
export async function editAssessments(
  file: string,
  edit: (list: Record<string, unknown>[]) => Record<string, unknown>[],
): Promise<void> {
  const text = await readFile(file, 'utf8');
  const open = text.indexOf('"assessments": [');
  const close = text.indexOf('\n  ]', open);
  if (open < 0 || close < 0) throw new Error(`${file} is not laid out as the fixtures are`);
  const items = [...text.slice(open, close).matchAll(/\n {4}\{[^]*?\n {4}\}/g)].map((m) => m[0].trimStart());
  const bytesOf = new Map(items.map((item) => [JSON.stringify(JSON.parse(item)), item]));
  const edited = edit(items.map((item) => JSON.parse(item) as Record<string, unknown>));
  const layout = (a: unknown): string => JSON.stringify(a, null, 2).replace(/\n/g, '\n    ');
  const written = edited.map((a) => bytesOf.get(JSON.stringify(a)) ?? layout(a));
  const list = written.length === 0 ? '' : `\n    ${written.join(',\n    ')}`;
  await writeFile(file, `${text.slice(0, open)}"assessments": [${list}${text.slice(close)}`);
}

/** Rows of a query as objects. */
export async function rows(db: string, sql: string): Promise<Record<string, unknown>[]> {
  const result = await runQuery(db, sql);
  return result.rows.map((row) => Object.fromEntries(result.columns.map((c, i) => [c.name, row[i]])));
}

/** Row count of every table (for "the database did not change" assertions). */
export async function tableCounts(db: string): Promise<Record<string, number>> {
  const { RELATIONS } = await import('../../src/warehouse/schema.js');
  const sql = RELATIONS.map((t) => `SELECT '${t.name}' AS t, count(*) AS n FROM ${t.name}`).join(
    ' UNION ALL ',
  );
  const result = await runQuery(db, sql);
  return Object.fromEntries(result.rows.map(([t, n]) => [String(t), Number(n)]));
}
