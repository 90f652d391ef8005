/** Shared helpers of the warehouse tests: the committed fixture snapshots, temp dirs, re-sealing. */
import { createHash } from 'node:crypto';
import { copyFile, cp, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
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

/** A copy of `fixture` under a new id and time; `edit` may change its files before re-sealing. */
export async function snapshotVariant(
  fixture: string,
  into: string,
  id: string,
  finishedAt: string,
  edit: (dir: string, manifest: Manifest) => Promise<void> | void = () => undefined,
): Promise<string> {
  const copied = await copyFixture(fixture, path.join(into, id));
  const dir = path.join(path.dirname(copied), id);
  await rename(copied, dir);
  let manifest: Manifest | undefined;
  await reseal(dir, (m) => {
    m.snapshot_id = id;
    m.finished_at = finishedAt;
    manifest = m;
  });
  if (manifest) await edit(dir, manifest);
  await reseal(dir, (m) => {
    if (manifest)
      Object.assign(m, { files: m.files.map((f, i) => ({ ...f, ...pickFlags(manifest?.files[i]) })) });
  });
  return dir;
}

const pickFlags = (file: Manifest['files'][number] | undefined) =>
  file ? { unknown_keys: file.unknown_keys, issues_total: file.issues_total } : {};

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
  const { items } = listedItems(text, 'assessments', file);
  const bytesOf = new Map(items.map((item) => [JSON.stringify(JSON.parse(item)), item]));
  const edited = edit(items.map((item) => JSON.parse(item) as Record<string, unknown>));
  await writeFile(file, withItems(text, 'assessments', edited, bytesOf, file));
}

/**
 * Rewrites a snapshot's evaluation list pages (`pages`, in order): `edit` gets each page's jobs and
 * returns each page's new jobs and the list's new `total`. A job equal to one listed before, on any
 * page, keeps its bytes, as a service lists a job that did not change (the jobs move between pages
 * when a new one is listed first); the others are written in the fixtures' layout.
 */
export async function editEvaluationPages(
  pages: readonly string[],
  edit: (pages: Record<string, unknown>[][]) => { pages: unknown[][]; total: number },
): Promise<void> {
  const texts = await Promise.all(pages.map((p) => readFile(p, 'utf8')));
  const listed = texts.map((text, i) => listedItems(text, 'items', pages[i]!).items);
  const bytesOf = new Map(listed.flat().map((item) => [JSON.stringify(JSON.parse(item)), item]));
  const edited = edit(
    listed.map((items) => items.map((item) => JSON.parse(item) as Record<string, unknown>)),
  );
  for (const [i, page] of pages.entries()) {
    const text = withItems(texts[i]!, 'items', edited.pages[i] ?? [], bytesOf, page);
    await writeFile(page, text.replace(/\n {2}"total": \d+/, `\n  "total": ${edited.total}`));
  }
}

/**
 * The items of a top-level array member in the fixtures' two-space layout, found on their own (not
 * through the loader's scanner): an item is the text from "\n    {" to "\n    }" within the array.
 */
function listedItems(
  text: string,
  member: string,
  file: string,
): { open: number; close: number; items: string[] } {
  const open = text.indexOf(`"${member}": [`);
  const close = text.indexOf('\n  ]', open);
  if (open < 0 || close < 0) throw new Error(`${file} is not laid out as the fixtures are`);
  const items = [...text.slice(open, close).matchAll(/\n {4}\{[^]*?\n {4}\}/g)].map((m) => m[0].trimStart());
  return { open, close, items };
}

/** `text` with its `member` array holding `list`: the bytes of an item listed before, else laid out anew. */
function withItems(
  text: string,
  member: string,
  list: readonly unknown[],
  bytesOf: ReadonlyMap<string, string>,
  file: string,
): string {
  const { open, close } = listedItems(text, member, file);
  const layout = (a: unknown): string => JSON.stringify(a, null, 2).replace(/\n/g, '\n    ');
  const written = list.map((a) => bytesOf.get(JSON.stringify(a)) ?? layout(a));
  const items = written.length === 0 ? '' : `\n    ${written.join(',\n    ')}`;
  return `${text.slice(0, open)}"${member}": [${items}${text.slice(close)}`;
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

/** A node of DuckDB's JSON profile of one statement (PRAGMA enable_profiling = 'json'). */
export interface ProfileNode {
  operator_name?: string;
  operator_cardinality?: number;
  extra_info?: { Table?: string };
  children?: ProfileNode[];
}

/** Rows all operators of a profiled statement produced: what a read cost, independent of the clock. */
export function producedRows(node: ProfileNode): number {
  return (
    (node.operator_cardinality ?? 0) + (node.children ?? []).reduce((sum, c) => sum + producedRows(c), 0)
  );
}
