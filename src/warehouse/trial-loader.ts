/**
 * Loads trials/<assessment>.json files with DuckDB's own JSON reader, so a file of any size never sits
 * whole in JavaScript memory.
 *
 *   files ─batch─▶ read_json (explicit columns) ─▶ temp stage ─┬▶ trials
 *                                                              ├▶ trial_tool_calls (unnest)
 *                                                              └▶ message_parts    (unnest ×2)
 *
 * Fast path (files the verified manifest vouches for: hash matches, no schema issues, no unknown keys):
 * explicit column types with no auto-detection or sampling; numbers and booleans are read as JSON and
 * type-checked in SQL, so 1.5 never becomes trial_index 2 and "0.5" never becomes a score.
 * Strict path (anything else): each trial is read as a JSON object and every field type-checked; values
 * that do not fit and keys the spec does not know are kept in `extra`. Either way no row is dropped.
 * The trial's position in its file (trial_ordinal) comes from insertion order, which DuckDB preserves.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { MESSAGE_PARTS, TRIALS, TRIAL_TOOL_CALLS, type ColumnDef } from './schema.js';
import { quoteIdent, quoteLiteral } from './sql.js';
import {
  apiColumns,
  fieldOf,
  fieldsExtra,
  fieldsProjection,
  hasUnknownKeys,
  keyOf,
  objectOf,
  typedFromJson,
} from './trial-columns.js';

export interface TrialFile {
  /** Absolute path (DuckDB reports it back as the filename). */
  path: string;
  /** Path inside the snapshot, for messages. */
  relPath: string;
  bytes: number;
  assessmentId: string;
  projectId: string | null;
  projectKey: string | null;
  /** Read with the fast path (see the module comment). */
  vouched: boolean;
}

/**
 * Largest single trial object DuckDB will read (a very long model response). DuckDB sizes its read
 * buffers from it (per thread), so it is a memory/robustness trade-off; 32 MiB is twice the default.
 */
const MAX_OBJECT_BYTES = 32 * 1024 * 1024;
/** Files read per fast-path statement: several files let DuckDB use every core. */
const BATCH_BYTES = 64 * 1024 * 1024;

const TOOL_CALL_KEYS = ['agent', 'arguments', 'name', 'result'] as const;
const PART_KEYS = ['kind', 'caption', 'source', 'text', 'transform', 'variant'] as const;
const SOURCE_KEYS = [
  'ref',
  'artifact_oid',
  'byte_size',
  'detail',
  'file_id',
  'filename',
  'media_type',
  'url',
] as const;
const NESTED_KEYS = ['tool_calls', 'candidate_parts', 'response_parts'] as const;

const TRIAL_API = apiColumns(TRIALS.columns);
const PART_TYPE = `STRUCT(kind VARCHAR, caption VARCHAR, source STRUCT(${SOURCE_KEYS.map((k) => `${k} ${k === 'byte_size' ? 'JSON' : 'VARCHAR'}`).join(', ')}), text VARCHAR, transform VARCHAR, variant VARCHAR)[]`;
const TOOL_CALL_TYPE = `STRUCT(${TOOL_CALL_KEYS.map((k) => `${k} VARCHAR`).join(', ')})[]`;

/** Strings and string lists are read typed; numbers and booleans as JSON, checked in SQL. */
function fastReadType(column: ColumnDef): string {
  return column.type === 'VARCHAR' || column.type === 'VARCHAR[]' ? column.type : 'JSON';
}

const FAST_COLUMNS = `{${[
  ...TRIAL_API.map((c) => `${quoteLiteral(c.from)}: ${quoteLiteral(fastReadType(c))}`),
  `'tool_calls': ${quoteLiteral(TOOL_CALL_TYPE)}`,
  `'candidate_parts': ${quoteLiteral(PART_TYPE)}`,
  `'response_parts': ${quoteLiteral(PART_TYPE)}`,
].join(', ')}}`;

function fileList(files: readonly TrialFile[]): string {
  return `[${files.map((f) => quoteLiteral(f.path)).join(', ')}]`;
}

/** Common leading columns of every trial table, from the stage and the file map. */
const PARENT = `$1, m.project_id, m.project_key, m.assessment_id, s.rowid - m.first_rowid`;
const STAGE_JOIN = `FROM trial_stage s JOIN trial_batch m ON m.filename = s.filename`;
/** Per file of the batch: its parents and first stage row (rows of a file are contiguous, in order). */
const FAST_BATCH = `CREATE OR REPLACE TEMP TABLE trial_batch AS
  SELECT m.filename, m.assessment_id, m.project_id, m.project_key, f.first_rowid
  FROM trial_files m JOIN (SELECT filename, min(rowid) AS first_rowid FROM trial_stage GROUP BY filename) f
  ON f.filename = m.filename`;

function insertInto(table: string, select: string): string {
  return `INSERT INTO ${quoteIdent(table)} ${select}`;
}

// ---------------------------------------------------------------------------------------------
// Fast path
// ---------------------------------------------------------------------------------------------

function fastTrialSelect(): string {
  const values: string[] = [];
  const mismatches: [string, string, string][] = [];
  for (const column of TRIAL_API) {
    const acc = `s.${quoteIdent(column.from)}`;
    if (fastReadType(column) !== 'JSON') {
      values.push(acc);
      continue;
    }
    const typed = typedFromJson(column.type, acc);
    values.push(typed.value);
    mismatches.push([column.from, typed.mismatch, acc]);
  }
  const counts = NESTED_KEYS.map((k) => `len(s.${k})`);
  return `SELECT ${PARENT}, ${values.join(', ')}, ${counts.join(', ')}, ${objectOf(mismatches)} ${STAGE_JOIN}`;
}

function fastToolCallSelect(): string {
  const fields = TOOL_CALL_KEYS.map((k) => `u.tc.${k}`).join(', ');
  return `SELECT u.sid, u.pid, u.pkey, u.aid, u.ord, u.i, ${fields}, NULL FROM (
    SELECT ${PARENT}, unnest(range(len(s.tool_calls))) AS i, unnest(s.tool_calls) AS tc ${STAGE_JOIN}
    WHERE len(s.tool_calls) > 0) u(sid, pid, pkey, aid, ord, i, tc)`;
}

/** Candidate and response parts in one pass over the stage (both lists share one STRUCT type). */
function fastPartSelect(): string {
  const byteSize = typedFromJson('BIGINT', 'u.p.source.byte_size');
  const sourceFields = SOURCE_KEYS.map((k) => (k === 'byte_size' ? byteSize.value : `u.p.source.${k}`));
  const extra = objectOf([['source.byte_size', byteSize.mismatch, 'u.p.source.byte_size']]);
  const candidates = 'coalesce(len(s.candidate_parts), 0)';
  return `SELECT u.sid, u.pid, u.pkey, u.aid, u.ord,
    CASE WHEN u.n < u.c THEN 'candidate' ELSE 'response' END, CASE WHEN u.n < u.c THEN u.n ELSE u.n - u.c END,
    u.p.kind, u.p.caption, u.p.text, u.p.transform, u.p.variant, ${sourceFields.join(', ')}, ${extra}
    FROM (SELECT ${PARENT}, ${candidates} AS c,
            unnest(range(${candidates} + coalesce(len(s.response_parts), 0))) AS n,
            unnest(list_concat(coalesce(s.candidate_parts, []), coalesce(s.response_parts, []))) AS p
          ${STAGE_JOIN}
          WHERE coalesce(len(s.candidate_parts), 0) + coalesce(len(s.response_parts), 0) > 0
    ) u(sid, pid, pkey, aid, ord, c, n, p)`;
}

// ---------------------------------------------------------------------------------------------
// Strict path
// ---------------------------------------------------------------------------------------------

/** Keys of a trial read in the strict path: the typed columns, then the nested arrays. */
const STRICT_TRIAL_KEYS = [...TRIAL_API.map((c) => c.from), ...NESTED_KEYS];
const nestedField = (key: (typeof NESTED_KEYS)[number]): string =>
  fieldOf('s', STRICT_TRIAL_KEYS.indexOf(key));

/**
 * Strict stage: one row per trial with its fields read once (see fieldsProjection); replaces the raw
 * stage so the statements below never touch the whole trial object again.
 */
const STRICT_FIELDS = `CREATE OR REPLACE TEMP TABLE trial_stage AS
  SELECT r.filename, r.rowid AS rid, ${fieldsProjection('r.json', STRICT_TRIAL_KEYS)} FROM trial_raw r`;
const STRICT_PARENT = `$1, m.project_id, m.project_key, m.assessment_id, s.rid - f.first_rid`;
const STRICT_JOIN = `FROM trial_stage s JOIN trial_files m ON m.filename = s.filename
  JOIN (SELECT filename, min(rid) AS first_rid FROM trial_stage GROUP BY filename) f ON f.filename = s.filename`;

/** Typed values and mismatch entries of `columns` read from a fields projection aliased `alias`. */
function typedFields(alias: string, columns: readonly { key: string; type: ColumnDef['type'] }[]) {
  return columns.map(({ key, type }, i) => {
    const acc = fieldOf(alias, i);
    const typed = typedFromJson(type, acc);
    return { value: typed.value, mismatch: [key, typed.mismatch, acc] as const };
  });
}

function strictTrialSelect(): string {
  const typed = typedFields(
    's',
    TRIAL_API.map((c) => ({ key: c.from, type: c.type })),
  );
  const nested = NESTED_KEYS.map((key) => {
    const acc = nestedField(key);
    return {
      count: `CASE WHEN json_type(${acc}) = 'ARRAY' THEN json_array_length(${acc}) END`,
      mismatch: [key, `coalesce(json_type(${acc}) NOT IN ('ARRAY', 'NULL'), false)`, acc] as const,
    };
  });
  const extra = fieldsExtra('s', [...typed.map((t) => t.mismatch), ...nested.map((n) => n.mismatch)]);
  return `SELECT ${STRICT_PARENT}, ${typed.map((t) => t.value).join(', ')}, ${nested.map((n) => n.count).join(', ')}, ${extra} ${STRICT_JOIN}`;
}

/** Unnests a nested array of each trial into (parent…, i, fields of the element). */
function strictUnnest(key: (typeof NESTED_KEYS)[number], keys: readonly string[]): string {
  const acc = nestedField(key);
  return `SELECT x.sid, x.pid, x.pkey, x.aid, x.ord, x.i, ${fieldsProjection('x.e', keys)} FROM (
    SELECT ${STRICT_PARENT}, unnest(range(CAST(json_array_length(${acc}) AS BIGINT))) AS i, unnest(json_extract(${acc}, '$[*]')) AS e
    ${STRICT_JOIN} WHERE json_type(${acc}) = 'ARRAY') x(sid, pid, pkey, aid, ord, i, e)`;
}

function strictToolCallSelect(): string {
  const typed = typedFields(
    'u',
    TOOL_CALL_KEYS.map((key) => ({ key, type: 'VARCHAR' as const })),
  );
  return `SELECT u.sid, u.pid, u.pkey, u.aid, u.ord, u.i, ${typed.map((t) => t.value).join(', ')}, ${fieldsExtra(
    'u',
    typed.map((t) => t.mismatch),
  )}
    FROM (${strictUnnest('tool_calls', TOOL_CALL_KEYS)}) u`;
}

function strictPartSelect(role: 'candidate' | 'response'): string {
  const textKeys = PART_KEYS.filter((k) => k !== 'source');
  const keys = [...textKeys, 'source'];
  const typed = typedFields(
    'u',
    textKeys.map((key) => ({ key, type: 'VARCHAR' as const })),
  );
  const source = fieldOf('u', keys.indexOf('source'));
  const sourceTyped = SOURCE_KEYS.map((k) =>
    typedFromJson(k === 'byte_size' ? 'BIGINT' : 'VARCHAR', keyOf(source, k)),
  );
  // The source (small) is kept whole in extra when anything in it did not fit or was unknown.
  const sourceOdd = `coalesce(json_type(${source}) NOT IN ('OBJECT', 'NULL'), false)
    OR (json_type(${source}) = 'OBJECT' AND (${sourceTyped.map((t) => t.mismatch).join(' OR ')} OR ${hasUnknownKeys(source, SOURCE_KEYS)}))`;
  const sourceValues = sourceTyped.map(
    (t) => `CASE WHEN json_type(${source}) = 'OBJECT' THEN ${t.value} END`,
  );
  const extra = fieldsExtra('u', [...typed.map((t) => t.mismatch), ['source', sourceOdd, source] as const]);
  return `SELECT u.sid, u.pid, u.pkey, u.aid, u.ord, ${quoteLiteral(role)}, u.i, ${typed.map((t) => t.value).join(', ')},
    ${sourceValues.join(', ')}, ${extra}
    FROM (${strictUnnest(`${role}_parts`, keys)}) u`;
}

// ---------------------------------------------------------------------------------------------
// Orchestration
// ---------------------------------------------------------------------------------------------

function batches(files: readonly TrialFile[]): TrialFile[][] {
  const out: TrialFile[][] = [];
  let current: TrialFile[] = [];
  let bytes = 0;
  for (const file of files) {
    if (!file.vouched) {
      out.push([file]);
      continue;
    }
    if (current.length > 0 && bytes + file.bytes > BATCH_BYTES) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(file);
    bytes += file.bytes;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** Thrown when DuckDB cannot read a trial file; names the file. */
export class TrialReadError extends Error {
  constructor(
    readonly files: readonly TrialFile[],
    readonly duckdbMessage: string,
  ) {
    super(duckdbMessage);
  }
}

/**
 * Loads the files into trials, trial_tool_calls and message_parts within the caller's transaction.
 * `onBatch` is told after each batch (progress).
 */
export async function loadTrialFiles(
  conn: DuckDBConnection,
  snapshotId: string,
  files: readonly TrialFile[],
  onBatch: (done: number, total: number) => void = () => undefined,
): Promise<void> {
  if (files.length === 0) return;
  await conn.run(
    'CREATE OR REPLACE TEMP TABLE trial_files (filename VARCHAR, assessment_id VARCHAR, project_id VARCHAR, project_key VARCHAR)',
  );
  const insertFile = await conn.prepare('INSERT INTO trial_files VALUES ($1, $2, $3, $4)');
  for (const file of files) {
    insertFile.bind([file.path, file.assessmentId, file.projectId, file.projectKey]);
    await insertFile.run();
  }
  const fastStatements = [
    insertInto(TRIALS.name, fastTrialSelect()),
    insertInto(TRIAL_TOOL_CALLS.name, fastToolCallSelect()),
    insertInto(MESSAGE_PARTS.name, fastPartSelect()),
  ];
  const strictStatements = [
    insertInto(TRIALS.name, strictTrialSelect()),
    insertInto(TRIAL_TOOL_CALLS.name, strictToolCallSelect()),
    insertInto(MESSAGE_PARTS.name, strictPartSelect('candidate')),
    insertInto(MESSAGE_PARTS.name, strictPartSelect('response')),
  ];
  let done = 0;
  for (const batch of batches(files)) {
    const fast = batch.every((f) => f.vouched);
    const read = fast
      ? `read_json(${fileList(batch)}, format = 'array', records = true, filename = true, columns = ${FAST_COLUMNS}, maximum_object_size = ${MAX_OBJECT_BYTES})`
      : `read_json_objects(${fileList(batch)}, format = 'array', filename = true, maximum_object_size = ${MAX_OBJECT_BYTES})`;
    try {
      if (fast) {
        await conn.run(`CREATE OR REPLACE TEMP TABLE trial_stage AS SELECT * FROM ${read}`);
        await conn.run(FAST_BATCH);
      } else {
        await conn.run(`CREATE OR REPLACE TEMP TABLE trial_raw AS SELECT * FROM ${read}`);
        await conn.run(STRICT_FIELDS);
        await conn.run('DROP TABLE trial_raw');
      }
    } catch (error) {
      throw new TrialReadError(batch, error instanceof Error ? error.message : String(error));
    }
    for (const statement of fast ? fastStatements : strictStatements) await conn.run(statement, [snapshotId]);
    await conn.run('DROP TABLE trial_stage');
    done += batch.length;
    onBatch(done, files.length);
  }
  await conn.run('DROP TABLE trial_files');
  await conn.run('DROP TABLE IF EXISTS trial_batch');
}
