/**
 * SQL expressions that read a JSON value into a typed column without coercion: a value whose JSON
 * type does not fit stays NULL in the column and is reported as a mismatch, to be kept in `extra`.
 * Used by the trial loader, whose files DuckDB reads directly (they can be huge).
 */
import type { ColumnDef, ColumnType } from './schema.js';
import { quoteLiteral } from './sql.js';

/** JSON types (as json_type() names them) accepted for each column type. */
const ACCEPTED: Record<ColumnType, readonly string[] | null> = {
  VARCHAR: ['VARCHAR'],
  DOUBLE: ['DOUBLE', 'BIGINT', 'UBIGINT'],
  BIGINT: ['BIGINT', 'UBIGINT'],
  BOOLEAN: ['BOOLEAN'],
  TIMESTAMPTZ: ['VARCHAR'],
  JSON: null,
  'VARCHAR[]': ['ARRAY'],
  // Built by the loader from the nested arrays, never read as one value.
  'TOOL_CALL[]': null,
  'MESSAGE_PART[]': null,
};

export interface TypedExpr {
  /** The typed value (NULL when absent, null or not fitting). */
  value: string;
  /** TRUE when a present, non-null value did not fit (it belongs in extra). */
  mismatch: string;
}

/**
 * `acc` is an SQL expression of type JSON holding the field's value (NULL when the key is absent);
 * `kind` its json_type(), which a caller may compute once per row (each call parses the value).
 */
export function typedFromJson(type: ColumnType, acc: string, kind = `json_type(${acc})`): TypedExpr {
  const accepted = ACCEPTED[type];
  if (accepted === null) return { value: acc, mismatch: 'false' };
  const list = accepted.map(quoteLiteral).join(', ');
  let fits = `${kind} IN (${list})`;
  let cast: string;
  switch (type) {
    case 'VARCHAR':
    case 'TIMESTAMPTZ':
      cast = `json_extract_string(${acc}, '$')`;
      break;
    case 'VARCHAR[]':
      fits = `(${fits} AND list_bool_and(list_transform(json_type(${acc}, '$[*]'), x_type -> x_type = 'VARCHAR')) IS NOT FALSE)`;
      cast = `json_extract_string(${acc}, '$[*]')`;
      break;
    default:
      cast = `CAST(${acc} AS ${type})`;
  }
  return {
    value: `CASE WHEN ${fits} THEN ${cast} END`,
    mismatch: `coalesce(${kind} <> 'NULL' AND NOT (${fits}), false)`,
  };
}

/** Accessor of a known (identifier-like) key of a JSON object expression. */
export function keyOf(json: string, key: string): string {
  return `json_extract(${json}, ${quoteLiteral(`$."${key}"`)})`;
}

/** A JSON merge patch that deletes the given keys (RFC 7396: a null value removes the key). */
function removeKeysPatch(keys: readonly string[]): string {
  return `${quoteLiteral(JSON.stringify(Object.fromEntries(keys.map((k) => [k, null]))))}::JSON`;
}

/**
 * An object of the entries whose condition holds: `{"score": "0.5"}`, or NULL when none does. Built
 * with json_object + merge patch (a NULL value drops the key), no lambdas: lambdas that capture a
 * large JSON column copy it per list element, which costs memory on big trial files.
 */
export function objectOf(
  entries: readonly (readonly [key: string, condition: string, acc: string])[],
): string {
  if (entries.length === 0) return 'NULL';
  const pairs = entries.map(
    ([key, condition, acc]) => `${quoteLiteral(key)}, CASE WHEN ${condition} THEN CAST(${acc} AS JSON) END`,
  );
  // Built only for the (rare) rows with a mismatch: building JSON for every row costs real time.
  const any = entries.map(([, condition]) => `(${condition})`).join(' OR ');
  return `CASE WHEN ${any} THEN json_merge_patch('{}'::JSON, json_object(${pairs.join(', ')})) END`;
}

/** TRUE when the JSON object has a key outside `known`. */
export function hasUnknownKeys(json: string, known: readonly string[]): string {
  return `(json_merge_patch(${json}, ${removeKeysPatch(known)}) <> '{}'::JSON)`;
}

/**
 * Reads an object's fields with one JSON parse: `kind` (json_type), `v` (the values of `keys`, in
 * order, as a list of JSON), `unknown_only` (the object without `keys`) and `not_object` (the value
 * itself when it is not an object). Typed columns then read the small `v[i]` values, never the whole
 * object again: expressions over a large JSON column repeated per field cost memory per vector.
 */
export function fieldsProjection(json: string, keys: readonly string[]): string {
  const paths = keys.map((k) => quoteLiteral(`$."${k}"`)).join(', ');
  return `json_type(${json}) AS kind,
    json_extract(${json}, [${paths}]) AS v,
    CASE WHEN json_type(${json}) = 'OBJECT' THEN json_merge_patch(${json}, ${removeKeysPatch(keys)}) END AS unknown_only,
    CASE WHEN json_type(${json}) <> 'OBJECT' THEN ${json} END AS not_object`;
}

/** The value of keys[index] from a fieldsProjection aliased `alias`. */
export function fieldOf(alias: string, index: number): string {
  return `${alias}.v[${index + 1}]`;
}

/**
 * The `extra` JSON of a fieldsProjection: its unknown keys plus the known keys whose value did not fit
 * (`mismatched`: [key, mismatch expr, accessor]); NULL when there is nothing to keep; a value that is
 * not an object is kept whole as {"_value": …}.
 */
export function fieldsExtra(
  alias: string,
  mismatched: readonly (readonly [string, string, string])[],
): string {
  const keep =
    mismatched.length === 0
      ? "'{}'::JSON"
      : `json_object(${mismatched.map(([key, mismatch, acc]) => `${quoteLiteral(key)}, CASE WHEN ${mismatch} THEN ${acc} END`).join(', ')})`;
  return `CASE
    WHEN ${alias}.kind IS NULL THEN NULL
    WHEN ${alias}.kind <> 'OBJECT' THEN json_object('_value', ${alias}.not_object)
    ELSE nullif(json_merge_patch(${alias}.unknown_only, ${keep}), '{}'::JSON) END`;
}

/** The `from` columns of a table definition (the API keys it reads). */
export function apiColumns(columns: readonly ColumnDef[]): (ColumnDef & { from: string })[] {
  return columns.filter((c): c is ColumnDef & { from: string } => c.from !== undefined);
}
