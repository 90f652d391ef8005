/**
 * Values that cannot be stored as they are. JSON may hold a lone UTF-16 surrogate escape (`\ud83e`:
 * model output cut in the middle of an emoji); DuckDB's VARCHAR is UTF-8, which cannot encode one,
 * and its JSON reader refuses the whole file. Such a string is stored with U+FFFD in place of each
 * lone surrogate, and its original is kept in `altered_values`, escaped (`"x\ud83e"`), so
 * JSON.parse(original_json) restores it exactly. The load warns with the count.
 *
 * Nothing else needs altering: NUL characters, long strings and unknown keys are stored as they are.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Row } from './db.js';
import { ALTERED_VALUES } from './schema.js';

/** One lone surrogate or more, each not part of a pair. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** A value stored altered: where it is in the snapshot's bytes and what it was. */
export interface AlteredValue {
  /** The snapshot file (relative path). */
  file: string;
  /** JSON path inside the file, e.g. `$[3].response` or `$.assessments[0].name`. */
  jsonPath: string;
  /** The original value as JSON (a string literal, lone surrogates escaped). */
  originalJson: string;
  /** The table and key of the row that holds it, when one row does (trials), else null. */
  table: string | null;
  rowKey: Record<string, string | number> | null;
}

const memberPath = (base: string, key: string): string =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;

function repairString(text: string, at: string, found: (jsonPath: string, original: string) => void): string {
  LONE_SURROGATE.lastIndex = 0;
  if (!LONE_SURROGATE.test(text)) return text;
  found(at, text);
  return text.replace(LONE_SURROGATE, '\ufffd');
}

/**
 * `value` with every lone surrogate (in strings and object keys) replaced by U+FFFD; `found` is told
 * each altered string's JSON path and original. Returns `value` itself when nothing needed altering.
 */
export function repairLoneSurrogates(
  value: unknown,
  at: string,
  found: (jsonPath: string, original: string) => void,
): unknown {
  if (typeof value === 'string') return repairString(value, at, found);
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item, i) => {
      const repaired = repairLoneSurrogates(item, `${at}[${i}]`, found);
      changed ||= repaired !== item;
      return repaired;
    });
    return changed ? out : value;
  }
  if (typeof value === 'object' && value !== null) {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const name = repairString(key, `${memberPath(at, key)} (key)`, found);
      const repaired = repairLoneSurrogates(item, memberPath(at, name), found);
      changed ||= repaired !== item || name !== key;
      out[name] = repaired;
    }
    return changed ? out : value;
  }
  return value;
}

/**
 * Whether JSON text (or its UTF-8 bytes) can hold a lone surrogate at all. Text decoded from UTF-8
 * holds none of its own (the decoder turns invalid bytes into U+FFFD), so only a `\\uD8xx`-style
 * escape can produce one: a body without such an escape needs no walk through repairLoneSurrogates (a
 * 1.4 MB project summary walked for nothing cost ~15 ms a night). Any surrogate escape counts, paired
 * or not. indexOf finds the rare `\\u` faster than a regular expression scans (~5x on summaries).
 */
export function mayHoldLoneSurrogates(json: string | Buffer): boolean {
  const at = (i: number): number => (typeof json === 'string' ? json.charCodeAt(i) : (json[i] ?? 0));
  // \\u, then d or D, then 8, 9, a-f or A-F: an escape of U+D800..U+DFFF.
  const isD = (c: number): boolean => c === 0x64 || c === 0x44;
  const isHigh = (c: number): boolean =>
    c === 0x38 || c === 0x39 || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
  for (let i = json.indexOf('\\u'); i >= 0; i = json.indexOf('\\u', i + 2))
    if (isD(at(i + 2)) && isHigh(at(i + 3))) return true;
  return false;
}

/** The load warning that says values were stored altered (snapshots and journals alike). */
export function alteredValuesMessage(count: number): string {
  return `${count} value(s) held lone surrogates (invalid UTF-16, e.g. model output cut inside an emoji) and were stored with U+FFFD in their place; originals kept in altered_values (original_json)`;
}

/** altered_values rows of one snapshot (null: of a triage journal, whose rows have no snapshot). */
export function alteredValueRows(snapshotId: string | null, values: readonly AlteredValue[]): Row[] {
  return values.map((v, ordinal) => {
    const cells: Record<string, Row[number]> = {
      snapshot_id: snapshotId,
      file: v.file,
      json_path: v.jsonPath,
      table_name: v.table,
      row_key: v.rowKey === null ? null : JSON.stringify(v.rowKey),
      original_json: v.originalJson,
      ordinal,
    };
    return ALTERED_VALUES.columns.map((c) => cells[c.name] ?? null);
  });
}

/** A trial file rewritten with its lone surrogates replaced, for DuckDB to read instead. */
export interface RepairedTrialFile {
  path: string;
  bytes: number;
  /** Per altered value: the trial's position in the file and the value's path and original. */
  altered: { record: number; jsonPath: string; originalJson: string }[];
}

/**
 * Trial files DuckDB cannot read although they are valid JSON, rewritten into a temp directory (per
 * file: only the files that need it). remove() deletes the copies.
 */
export class TrialFileRepairs {
  private dir: string | null = null;
  readonly files = new Map<string, RepairedTrialFile>();

  /**
   * Rewrites `absPath` (relative path `relPath`) when it is valid JSON holding lone surrogates.
   * Returns false when there is nothing this can repair (invalid JSON, or no lone surrogate).
   */
  async repair(absPath: string, relPath: string): Promise<boolean> {
    if (this.files.has(relPath)) return false;
    const text = await readFile(absPath, 'utf8');
    if (!mayHoldLoneSurrogates(text)) return false;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return false;
    }
    if (!Array.isArray(body)) return false;
    const altered: RepairedTrialFile['altered'] = [];
    const repaired = body.map((trial: unknown, record) =>
      repairLoneSurrogates(trial, `$[${record}]`, (jsonPath, original) =>
        altered.push({ record, jsonPath, originalJson: JSON.stringify(original) }),
      ),
    );
    if (altered.length === 0) return false;
    this.dir ??= await mkdtemp(path.join(tmpdir(), 'airt-load-repaired-'));
    const target = path.join(this.dir, `${randomBytes(6).toString('hex')}.json`);
    await writeFile(target, JSON.stringify(repaired));
    this.files.set(relPath, { path: target, bytes: (await stat(target)).size, altered });
    return true;
  }

  async remove(): Promise<void> {
    if (this.dir !== null) await rm(this.dir, { recursive: true, force: true });
    this.dir = null;
  }
}
