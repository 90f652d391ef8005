/**
 * The SQL that turns trial objects into stored trial rows (trial_content, read as `trials`), for the loader's three ways of reading a file
 * (trial-loader.ts): whole (a file's array read as one value), staged (a big file read object by
 * object into a temp table) and strict (any file the verified manifest does not vouch for).
 *
 * Fast paths (whole, staged): explicit column types, no auto-detection or sampling; numbers and
 * booleans are read as JSON and type-checked in SQL, so 1.5 never becomes trial_index 2 and "0.5"
 * never becomes a score. Strict path: every field of every trial, tool call and part is type-checked;
 * values that do not fit and keys the spec does not know are kept in the row's `extra`.
 *
 * A trial's tool calls and parts become list columns of its row (see schema-trials.ts). Nearly every
 * trial's candidate_parts (response_parts) is one plain text part holding the candidate (response)
 * string: the fast paths store no list then, only candidate_part_implied, and the message_parts view
 * derives the part. Writing a million copies of text that trials already hold was 40% of the load.
 */
import { SOURCE_KEYS, sourceKeyType, sqlType, TRIAL_CONTENT, TRIALS } from './schema-trials.js';
import type { ColumnDef, ColumnType } from './schema-core.js';
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

const TOOL_CALL_KEYS = ['agent', 'arguments', 'name', 'result'] as const;
const PART_TEXT_KEYS = ['kind', 'caption', 'text', 'transform', 'variant'] as const;
const NESTED_KEYS = ['tool_calls', 'candidate_parts', 'response_parts'] as const;
type Role = 'candidate' | 'response';

const TRIAL_API = apiColumns(TRIALS.columns);

/**
 * INSERT INTO trial_content naming its columns (a migrated database may order them differently): a
 * trial row is stored under its file's content key, once per distinct content (trial-content.ts).
 */
function insertTrials(select: string): string {
  return `INSERT INTO trial_content (${TRIAL_CONTENT.columns.map((c) => quoteIdent(c.name)).join(', ')}) ${select}`;
}

/** Joins rows (aliased s, with file_no) to their file (trial_files, aliased m). */
const FILES_JOIN = 'JOIN trial_files m ON m.file_no = s.file_no';
const PARENTS = 'm.content_key, s.ordinal';

// ---------------------------------------------------------------------------------------------
// Fast paths
// ---------------------------------------------------------------------------------------------

/** Strings and string lists are read typed; numbers and booleans as JSON, checked in SQL. */
function fastReadType(column: ColumnDef): string {
  return column.type === 'VARCHAR' || column.type === 'VARCHAR[]' ? column.type : 'JSON';
}

/**
 * Tool calls and parts are read straight into their stored element types (schema-trials.ts), so the
 * lists are stored as read, with no per-element work. Their `extra` field can only be NULL here: a key
 * named "extra" is unknown to the spec, and a file with unknown keys is never vouched for.
 */
const READ_FIELDS: readonly (readonly [string, string])[] = [
  ...TRIAL_API.map((c) => [c.from, fastReadType(c)] as const),
  ['tool_calls', sqlType('TOOL_CALL[]')],
  ['candidate_parts', sqlType('MESSAGE_PART[]')],
  ['response_parts', sqlType('MESSAGE_PART[]')],
];

/** read_json's `columns` for a file read object by object. */
export const READ_COLUMNS = `{${READ_FIELDS.map(([k, t]) => `${quoteLiteral(k)}: ${quoteLiteral(t)}`).join(', ')}}`;
/** The type of a whole file read as one value: the array of trials. */
const READ_FILE_TYPE = `STRUCT(${READ_FIELDS.map(([k, t]) => `${quoteIdent(k)} ${t}`).join(', ')})[]`;

/**
 * Rows (file_no, ordinal, the read fields…) of files read whole: each file's array is one value, so a
 * trial's ordinal is its index in it, whatever order DuckDB's threads finish in. `fileNos` maps
 * read_json's file_index to the files' numbers.
 */
export function wholeFileRows(
  paths: readonly string[],
  fileNos: readonly number[],
  maxBytes: number,
): string {
  const list = `[${paths.map(quoteLiteral).join(', ')}]`;
  return `SELECT file_no, ordinal, unnest(trial) FROM (
    SELECT [${fileNos.join(', ')}][CAST(file_index AS BIGINT) + 1] AS file_no,
           unnest(range(len(json))) AS ordinal, unnest(json) AS trial
    FROM read_json(${list}, format = 'unstructured', records = false,
      columns = {'json': ${quoteLiteral(READ_FILE_TYPE)}}, maximum_object_size = ${maxBytes}))`;
}

/**
 * Rows of the staged big files (trial_stage, built before the transaction): a trial's ordinal is its
 * stage rowid minus its file's first (insertion order, which DuckDB preserves; checked after loading).
 */
export const STAGED_ROWS = `SELECT st.*, st.rowid - f.first_rowid AS ordinal
  FROM trial_stage st JOIN trial_files f ON f.file_no = st.file_no`;

/**
 * TRUE when a row's parts of `role` are exactly one text part carrying the trial's string and nothing
 * else: the part message_parts derives. One struct comparison (NULL fields compare equal) costs half of
 * checking the fields one by one.
 */
function impliedPart(role: Role, alias: string): string {
  const plain = `{'kind': 'text', 'caption': NULL, 'source': NULL, 'text': ${alias}.${role}, 'transform': NULL, 'variant': NULL, 'extra': NULL}`;
  return `coalesce(len(${alias}.${role}_parts) = 1 AND ${alias}.${role}_parts[1] IS NOT DISTINCT FROM ${plain}, false)`;
}

/** The JSON-read columns' json_type(), computed once per row. */
const kindOf = (column: { from: string }): string => quoteIdent(`kind:${column.from}`);

/** INSERT INTO trials from fast-path rows (wholeFileRows or STAGED_ROWS). */
export function fastTrialsInsert(rows: string): string {
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
  const kinds = TRIAL_API.filter((c) => fastReadType(c) === 'JSON').map(
    (c) => `json_type(r.${quoteIdent(c.from)}) AS ${kindOf(c)}`,
  );
  const counts = NESTED_KEYS.map((k) => `len(s.${k})`);
  // Lists as read; none when empty, and none for an implied part.
  const lists = [
    'CASE WHEN len(s.tool_calls) > 0 THEN s.tool_calls END',
    'CASE WHEN NOT s.candidate_implied AND len(s.candidate_parts) > 0 THEN s.candidate_parts END',
    'CASE WHEN NOT s.response_implied AND len(s.response_parts) > 0 THEN s.response_parts END',
  ];
  return insertTrials(`SELECT ${PARENTS}, ${values.join(', ')}, ${counts.join(', ')},
      s.candidate_implied, s.response_implied, ${lists.join(', ')}, ${objectOf(mismatches)}
    FROM (SELECT r.*, ${kinds.join(', ')}, ${impliedPart('candidate', 'r')} AS candidate_implied,
            ${impliedPart('response', 'r')} AS response_implied
          FROM (${rows}) r) s ${FILES_JOIN}`);
}

// ---------------------------------------------------------------------------------------------
// Strict path
// ---------------------------------------------------------------------------------------------

/** Keys of a trial read in the strict path: the typed columns, then the nested arrays. */
const STRICT_TRIAL_KEYS = [...TRIAL_API.map((c) => c.from), ...NESTED_KEYS];
const nestedField = (key: (typeof NESTED_KEYS)[number]): string =>
  fieldOf('s', STRICT_TRIAL_KEYS.indexOf(key));

/**
 * Strict stage rows of one file (its objects in trial_raw, rowid = position in the file): the trial's
 * fields read once (see fieldsProjection), so later statements never parse a whole trial again.
 */
export function strictFieldsSelect(fileNo: number): string {
  return `SELECT ${fileNo} AS file_no, r.rowid AS ordinal, ${fieldsProjection('r.json', STRICT_TRIAL_KEYS)} FROM trial_raw r`;
}

/** Typed values and mismatch entries of `columns` read from a fields projection aliased `alias`. */
function typedFields(alias: string, columns: readonly { key: string; type: ColumnType }[]) {
  return columns.map(({ key, type }, i) => {
    const acc = fieldOf(alias, i);
    const typed = typedFromJson(type, acc);
    return { key, value: typed.value, mismatch: [key, typed.mismatch, acc] as const };
  });
}

/** `s.file_no IN (…)`: the strict stage rows of one statement's files. */
const ofFiles = (fileNos: readonly number[]): string => `s.file_no IN (${fileNos.join(', ')})`;

/** The elements of a nested array of each strict trial: (file_no, ordinal, i, fields projection). */
function strictElements(
  key: (typeof NESTED_KEYS)[number],
  keys: readonly string[],
  fileNos: readonly number[],
): string {
  const acc = nestedField(key);
  return `SELECT x.file_no, x.ordinal, x.i, ${fieldsProjection('x.e', keys)} FROM (
    SELECT s.file_no, s.ordinal, unnest(range(CAST(json_array_length(${acc}) AS BIGINT))) AS i,
      unnest(json_extract(${acc}, '$[*]')) AS e
    FROM trial_strict s WHERE ${ofFiles(fileNos)} AND json_type(${acc}) = 'ARRAY') x`;
}

/**
 * Per strict trial, the list of its elements. `fields` (element field → SQL over alias u) in the element
 * type's field order.
 */
function strictList(elements: string, fields: Record<string, string>, type: ColumnType): string {
  const struct = Object.entries(fields)
    .map(([name, value]) => `${quoteLiteral(name)}: ${value}`)
    .join(', ');
  return `SELECT u.file_no, u.ordinal, CAST(list({${struct}} ORDER BY u.i) AS ${sqlType(type)}) AS list
    FROM (${elements}) u GROUP BY u.file_no, u.ordinal`;
}

function strictToolCallLists(fileNos: readonly number[]): string {
  const typed = typedFields(
    'u',
    TOOL_CALL_KEYS.map((key) => ({ key, type: 'VARCHAR' as const })),
  );
  const fields: Record<string, string> = Object.fromEntries(typed.map((t) => [t.key, t.value]));
  fields.extra = fieldsExtra(
    'u',
    typed.map((t) => t.mismatch),
  );
  return strictList(strictElements('tool_calls', TOOL_CALL_KEYS, fileNos), fields, 'TOOL_CALL[]');
}

function strictPartLists(role: Role, fileNos: readonly number[]): string {
  const keys = [...PART_TEXT_KEYS, 'source'];
  const typed = typedFields(
    'u',
    PART_TEXT_KEYS.map((key) => ({ key, type: 'VARCHAR' as const })),
  );
  const source = fieldOf('u', keys.indexOf('source'));
  const sourceTyped = SOURCE_KEYS.map((k) => typedFromJson(sourceKeyType(k), keyOf(source, k)));
  // The source (small) is kept whole in extra when anything in it did not fit or was unknown; the
  // message_parts view reads only values that fit.
  const sourceOdd = `coalesce(json_type(${source}) NOT IN ('OBJECT', 'NULL'), false)
    OR (json_type(${source}) = 'OBJECT' AND (${sourceTyped.map((t) => t.mismatch).join(' OR ')} OR ${hasUnknownKeys(source, SOURCE_KEYS)}))`;
  const value = Object.fromEntries(typed.map((t) => [t.key, t.value]));
  const fields: Record<string, string> = {
    kind: value.kind ?? 'NULL',
    caption: value.caption ?? 'NULL',
    source: `CASE WHEN json_type(${source}) = 'OBJECT' THEN ${source} END`,
    text: value.text ?? 'NULL',
    transform: value.transform ?? 'NULL',
    variant: value.variant ?? 'NULL',
    extra: fieldsExtra('u', [...typed.map((t) => t.mismatch), ['source', sourceOdd, source] as const]),
  };
  return strictList(strictElements(`${role}_parts`, keys, fileNos), fields, 'MESSAGE_PART[]');
}

/**
 * Stored-row values (file_no, then one column per trial_content column after content_key, named v1…)
 * of the strict stage's (trial_strict) files `fileNos`: every part stored, none implied. Built before
 * the load's transaction into trial_strict_rows (trial-loader.ts), a few files at a time: this
 * statement's JSON work and list hash tables grow with the trials it reads, and outside the
 * transaction they do not come on top of the rows the transaction holds.
 */
export function strictRowsSelect(fileNos: readonly number[]): string {
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
  const on = (alias: string): string => `ON ${alias}.file_no = s.file_no AND ${alias}.ordinal = s.ordinal`;
  const values = [
    's.ordinal',
    ...typed.map((t) => t.value),
    ...nested.map((n) => n.count),
    'false',
    'false',
    'c.list',
    'cp.list',
    'rp.list',
    extra,
  ];
  return `SELECT s.file_no, ${values.map((v, i) => `${v} AS v${i + 1}`).join(', ')}
    FROM trial_strict s
    LEFT JOIN (${strictToolCallLists(fileNos)}) c ${on('c')}
    LEFT JOIN (${strictPartLists('candidate', fileNos)}) cp ${on('cp')}
    LEFT JOIN (${strictPartLists('response', fileNos)}) rp ${on('rp')}
    WHERE ${ofFiles(fileNos)}`;
}

/** INSERT INTO trials of the strict files' rows (trial_strict_rows), each under its file's content. */
export function strictTrialsInsert(): string {
  const count = TRIAL_CONTENT.columns.length - 1;
  const values = Array.from({ length: count }, (_, i) => `s.v${i + 1}`);
  return insertTrials(`SELECT m.content_key, ${values.join(', ')} FROM trial_strict_rows s ${FILES_JOIN}`);
}
