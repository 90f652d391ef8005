/**
 * Loads trials/<assessment>.json files with DuckDB's own JSON reader, so a file of any size never sits
 * whole in JavaScript memory.
 *
 *   before the transaction:  vouched files ─▶ read_json (explicit columns) ─▶ temp trial_stage
 *   in the transaction:      trial_stage ─┬▶ trials
 *                                         ├▶ trial_tool_calls (unnest)
 *                                         └▶ message_parts    (unnest, one statement per role)
 *                            each other file ─▶ read_json_objects ─▶ strict stage ─▶ the same tables
 *
 * Fast path (files the verified manifest vouches for: hash matches, no schema issues, no unknown keys,
 * a record count): explicit column types with no auto-detection or sampling; numbers and booleans are
 * read as JSON and type-checked in SQL, so 1.5 never becomes trial_index 2 and "0.5" never becomes a
 * score. The stage is built before the load's transaction (stageFastTrials): scanning a temp table
 * created inside the transaction was 2-3x slower (profiled on the million-trial snapshot), and the
 * stage is only a temp table, so a failure there leaves the database untouched. It is one statement over
 * all vouched files (DuckDB spills it to <db>.tmp beyond memory_limit), so every insert is one large,
 * parallel statement. A trial's position in its file (trial_ordinal) is its stage rowid (insertion
 * order, which DuckDB preserves) minus the file's first rowid, known from the manifest's record counts;
 * checkOrdinals() proves every file came out as 0…n-1, so a stage that did not follow file order fails
 * the load instead of mislabelling trials.
 * Strict path (anything else): each trial is read as a JSON object and every field type-checked; values
 * that do not fit and keys the spec does not know are kept in `extra`. Either way no row is dropped.
 *
 * A message part whose text is exactly its trial's candidate (or response) string is stored once: in
 * trials, with message_parts.text NULL and text_in_trial TRUE (the view message_parts_resolved puts it
 * back). Most parts are such single text parts, and writing their text twice cost a third of the load.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { MESSAGE_PARTS, TRIALS, TRIAL_TOOL_CALLS, type ColumnDef, type TableDef } from './schema.js';
import { CliError } from '../errors.js';
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
  /** Trials the verified manifest records for the file (null when unknown). */
  records: number | null;
  /** Read with the fast path (see the module comment); requires `records`. */
  vouched: boolean;
}

/**
 * Largest single trial object DuckDB will read (a very long model response). DuckDB sizes its read
 * buffers from it (per thread), so it is a memory/robustness trade-off; 32 MiB is twice the default.
 */
const MAX_OBJECT_BYTES = 32 * 1024 * 1024;

/** Trial files read by one staging scan (see stageFastTrials). */
const STAGE_BATCH_FILES = 64;

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

function fileList(files: StagedFiles): string {
  return `[${files.map((f) => quoteLiteral(f.path)).join(', ')}]`;
}

/** Common leading columns of every trial table: parents from the file map, ordinal within the file. */
const PARENT = `$1, m.project_id, m.project_key, m.assessment_id, s.rowid - m.first_rowid`;

/** The fast stage (aliased s) joined to the files' parents (aliased m). */
const FAST_SOURCE = `FROM trial_stage s JOIN trial_files m ON m.filename = s.filename`;

/** INSERT naming its columns: the table's column order may differ in a migrated database. */
function insertInto(table: TableDef, select: string): string {
  return `INSERT INTO ${quoteIdent(table.name)} (${table.columns.map((c) => quoteIdent(c.name)).join(', ')}) ${select}`;
}

// ---------------------------------------------------------------------------------------------
// Fast path
// ---------------------------------------------------------------------------------------------

/** The JSON-read columns' json_type(), computed once per row in FAST_TRIAL_SOURCE. */
const kindOf = (column: { from: string }): string => quoteIdent(`kind:${column.from}`);
const FAST_TRIAL_SOURCE = `FROM (SELECT s.*, s.rowid AS rowid, ${TRIAL_API.filter(
  (c) => fastReadType(c) === 'JSON',
)
  .map((c) => `json_type(s.${quoteIdent(c.from)}) AS ${kindOf(c)}`)
  .join(', ')} FROM trial_stage s) s JOIN trial_files m ON m.filename = s.filename`;

function fastTrialSelect(): string {
  const values: string[] = [];
  const mismatches: [string, string, string][] = [];
  for (const column of TRIAL_API) {
    const acc = `s.${quoteIdent(column.from)}`;
    if (fastReadType(column) !== 'JSON') {
      values.push(acc);
      continue;
    }
    const typed = typedFromJson(column.type, acc, `s.${kindOf(column)}`);
    values.push(typed.value);
    mismatches.push([column.from, typed.mismatch, acc]);
  }
  const counts = NESTED_KEYS.map((k) => `len(s.${k})`);
  return `SELECT ${PARENT}, ${values.join(', ')}, ${counts.join(', ')}, ${objectOf(mismatches)} ${FAST_TRIAL_SOURCE}`;
}

function fastToolCallSelect(source: string): string {
  const fields = TOOL_CALL_KEYS.map((k) => `u.tc.${k}`).join(', ');
  return `SELECT u.sid, u.pid, u.pkey, u.aid, u.ord, u.i, ${fields}, NULL FROM (
    SELECT ${PARENT}, unnest(range(len(s.tool_calls))) AS i, unnest(s.tool_calls) AS tc ${source}
    WHERE len(s.tool_calls) > 0) u(sid, pid, pkey, aid, ord, i, tc)`;
}

/**
 * One role's parts (candidate or response). A statement per role, rather than one over both lists
 * concatenated, unnests each list in place: list_concat copied every part (and its text) once more and
 * carried both trial strings through the unnest (profiled on the million-trial snapshot: 2.26 s → 2.04 s).
 */
function fastPartSelect(role: 'candidate' | 'response', source: string): string {
  const parts = `s.${role}_parts`;
  const byteSize = typedFromJson('BIGINT', 'u.p.source.byte_size');
  const sourceFields = SOURCE_KEYS.map((k) => (k === 'byte_size' ? byteSize.value : `u.p.source.${k}`));
  const extra = objectOf([['source.byte_size', byteSize.mismatch, 'u.p.source.byte_size']]);
  const inTrial = 'coalesce(u.p.text = u.trial_text, false)';
  return `SELECT u.sid, u.pid, u.pkey, u.aid, u.ord, ${quoteLiteral(role)}, u.n,
    u.p.kind, u.p.caption, CASE WHEN NOT ${inTrial} THEN u.p.text END, u.p.transform, u.p.variant,
    ${sourceFields.join(', ')}, ${inTrial}, ${extra}
    FROM (SELECT ${PARENT}, s.${role} AS trial_text, unnest(range(len(${parts}))) AS n, unnest(${parts}) AS p
          ${source} WHERE len(${parts}) > 0
    ) u(sid, pid, pkey, aid, ord, trial_text, n, p)`;
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
const STRICT_FIELDS = `CREATE OR REPLACE TEMP TABLE trial_strict AS
  SELECT r.filename, r.rowid AS rid, ${fieldsProjection('r.json', STRICT_TRIAL_KEYS)} FROM trial_raw r`;
const STRICT_PARENT = `$1, m.project_id, m.project_key, m.assessment_id, s.rid - f.first_rid`;
const STRICT_JOIN = `FROM trial_strict s JOIN trial_files m ON m.filename = s.filename
  JOIN (SELECT filename, min(rid) AS first_rid FROM trial_strict GROUP BY filename) f ON f.filename = s.filename`;

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

/**
 * Unnests a nested array of each trial into (parent…, i, trial_text, fields of the element);
 * trial_text is the trial's typed value of `textKey` (NULL without one).
 */
function strictUnnest(key: (typeof NESTED_KEYS)[number], keys: readonly string[], textKey?: string): string {
  const acc = nestedField(key);
  const trialText = textKey
    ? typedFromJson('VARCHAR', fieldOf('s', STRICT_TRIAL_KEYS.indexOf(textKey))).value
    : 'NULL';
  return `SELECT x.sid, x.pid, x.pkey, x.aid, x.ord, x.i, x.trial_text, ${fieldsProjection('x.e', keys)} FROM (
    SELECT ${STRICT_PARENT}, ${trialText} AS trial_text, unnest(range(CAST(json_array_length(${acc}) AS BIGINT))) AS i,
      unnest(json_extract(${acc}, '$[*]')) AS e
    ${STRICT_JOIN} WHERE json_type(${acc}) = 'ARRAY') x(sid, pid, pkey, aid, ord, trial_text, i, e)`;
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
  const values = typed.map((t) => t.value);
  const textIndex = textKeys.indexOf('text');
  const text = values[textIndex] ?? 'NULL';
  const inTrial = `coalesce(${text} = u.trial_text, false)`;
  values[textIndex] = `CASE WHEN NOT ${inTrial} THEN ${text} END`;
  return `SELECT u.sid, u.pid, u.pkey, u.aid, u.ord, ${quoteLiteral(role)}, u.i, ${values.join(', ')},
    ${sourceValues.join(', ')}, ${inTrial}, ${extra}
    FROM (${strictUnnest(`${role}_parts`, keys, role)}) u`;
}

// ---------------------------------------------------------------------------------------------
// Orchestration
// ---------------------------------------------------------------------------------------------

/** Trial files as the stage and error messages need them. */
export type StagedFiles = readonly Pick<TrialFile, 'path' | 'relPath'>[];

/** Thrown when DuckDB cannot read a trial file; names the file. */
export class TrialReadError extends Error {
  constructor(
    readonly files: StagedFiles,
    readonly duckdbMessage: string,
  ) {
    super(duckdbMessage);
  }
}

function readError(files: StagedFiles, error: unknown): TrialReadError {
  return new TrialReadError(files, error instanceof Error ? error.message : String(error));
}

/**
 * Reads the vouched trial files into the temp table trial_stage. Call it outside any transaction, then
 * loadTrialFiles() with the same vouched files in the same order; always dropTrialStage() after.
 */
export async function stageFastTrials(conn: DuckDBConnection, files: StagedFiles): Promise<void> {
  if (files.length === 0) return;
  // One read_json over hundreds of files holds a read buffer per open file and exhausted the load's
  // memory_limit on a 500-assessment snapshot; appending batches keeps insertion (rowid) order, which
  // the ordinal check below relies on, while bounding what one scan holds.
  for (let start = 0; start < files.length; start += STAGE_BATCH_FILES) {
    const batch = files.slice(start, start + STAGE_BATCH_FILES);
    const scan = `SELECT * FROM read_json(${fileList(batch)}, format = 'array', records = true, filename = true,
        columns = ${FAST_COLUMNS}, maximum_object_size = ${MAX_OBJECT_BYTES})`;
    try {
      await conn.run(
        start === 0
          ? `CREATE OR REPLACE TEMP TABLE trial_stage AS ${scan}`
          : `INSERT INTO trial_stage ${scan}`,
      );
    } catch (error) {
      throw readError(batch, error);
    }
  }
}

/** Drops what stageFastTrials() and loadTrialFiles() left (a rolled-back load keeps its temp tables). */
export async function dropTrialStage(conn: DuckDBConnection): Promise<void> {
  for (const table of ['trial_stage', 'trial_raw', 'trial_strict', 'trial_files'])
    await conn.run(`DROP TABLE IF EXISTS ${table}`);
}

/**
 * Loads the files into trials, trial_tool_calls and message_parts within the caller's transaction:
 * the vouched ones from the stage stageFastTrials() built, the others one by one (strict path).
 * `onBatch` is told after each step (progress).
 */
export async function loadTrialFiles(
  conn: DuckDBConnection,
  snapshotId: string,
  files: readonly TrialFile[],
  onBatch: (done: number, total: number) => void = () => undefined,
): Promise<void> {
  if (files.length === 0) return;
  const fast = files.filter((f) => f.vouched);
  await conn.run(
    'CREATE OR REPLACE TEMP TABLE trial_files (filename VARCHAR, assessment_id VARCHAR, project_id VARCHAR, project_key VARCHAR, first_rowid BIGINT, records BIGINT)',
  );
  const insertFile = await conn.prepare('INSERT INTO trial_files VALUES ($1, $2, $3, $4, $5, $6)');
  let firstRowid = 0;
  for (const file of files) {
    insertFile.bind([
      file.path,
      file.assessmentId,
      file.projectId,
      file.projectKey,
      file.vouched ? firstRowid : null,
      file.records,
    ]);
    await insertFile.run();
    if (file.vouched) firstRowid += file.records ?? 0;
  }
  if (fast.length > 0) {
    const statements = [
      insertInto(TRIALS, fastTrialSelect()),
      insertInto(TRIAL_TOOL_CALLS, fastToolCallSelect(FAST_SOURCE)),
      insertInto(MESSAGE_PARTS, fastPartSelect('candidate', FAST_SOURCE)),
      insertInto(MESSAGE_PARTS, fastPartSelect('response', FAST_SOURCE)),
    ];
    for (const statement of statements) await conn.run(statement, [snapshotId]);
    onBatch(fast.length, files.length);
  }
  const strictStatements = [
    insertInto(TRIALS, strictTrialSelect()),
    insertInto(TRIAL_TOOL_CALLS, strictToolCallSelect()),
    insertInto(MESSAGE_PARTS, strictPartSelect('candidate')),
    insertInto(MESSAGE_PARTS, strictPartSelect('response')),
  ];
  let done = fast.length;
  for (const file of files.filter((f) => !f.vouched)) {
    await loadStrictFile(conn, snapshotId, file, strictStatements);
    onBatch(++done, files.length);
  }
  await checkOrdinals(conn, snapshotId, files);
  await conn.run('DROP TABLE trial_files');
}

async function loadStrictFile(
  conn: DuckDBConnection,
  snapshotId: string,
  file: TrialFile,
  statements: readonly string[],
) {
  const read = `read_json_objects(${fileList([file])}, format = 'array', filename = true, maximum_object_size = ${MAX_OBJECT_BYTES})`;
  try {
    await conn.run(`CREATE OR REPLACE TEMP TABLE trial_raw AS SELECT * FROM ${read}`);
    // The strict stage has its own name: the fast stage stays until dropTrialStage().
    await conn.run(STRICT_FIELDS);
    await conn.run('DROP TABLE trial_raw');
  } catch (error) {
    throw readError([file], error);
  }
  for (const statement of statements) await conn.run(statement, [snapshotId]);
  await conn.run('DROP TABLE trial_strict');
}

/**
 * Every fast-path file's trials must carry ordinals 0…n-1 (n = its trial count): the ordinal is derived
 * from the stage's rowid and the manifest's record counts, so this catches a stage that did not
 * hold the files in list order. When a file's count differs from the manifest (which shifts the
 * files after it), the count check in snapshot-load.ts fails the load with the precise message.
 */
async function checkOrdinals(conn: DuckDBConnection, snapshotId: string, files: readonly TrialFile[]) {
  if (!files.some((f) => f.vouched)) return;
  const reader = await conn.runAndReadAll(
    `WITH per_file AS (
       SELECT t.assessment_id, m.records, count(*) AS n, min(t.trial_ordinal) AS lo, max(t.trial_ordinal) AS hi
       FROM trials t JOIN trial_files m ON m.assessment_id = t.assessment_id
       WHERE t.snapshot_id = $1 AND m.first_rowid IS NOT NULL GROUP BY ALL)
     SELECT assessment_id FROM per_file
     WHERE (lo <> 0 OR hi <> n - 1) AND NOT EXISTS (SELECT 1 FROM per_file WHERE n <> records)
     ORDER BY assessment_id LIMIT 3`,
    [snapshotId],
  );
  const bad = reader.getRows().map((row) => String(row[0]));
  if (bad.length === 0) return;
  const names = files.filter((f) => bad.includes(f.assessmentId)).map((f) => f.relPath);
  throw new CliError(
    `Trial positions of ${names.join(', ')} do not match the manifest's record counts: the file and its manifest entry disagree. Nothing was loaded; re-take the snapshot.`,
  );
}
