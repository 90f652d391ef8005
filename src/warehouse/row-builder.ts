/**
 * Turns API objects into table rows without coercion. Each `from` column takes its key's value when
 * the JSON type fits the column; otherwise the column is NULL and the original value goes to `extra`
 * with a `type_mismatch` warning. Keys the table does not know also go to `extra`. Absent keys are NULL.
 * Nothing is defaulted: that is how "absent means unknown, not 0" holds for older data.
 */
import type { CellValue, Row } from './db.js';
import { LOAD_WARNINGS, type ColumnType, type TableDef } from './schema.js';

export interface LoadWarning {
  code: string;
  message: string;
  file: string | null;
  detail: unknown;
  /** Who found it: the snapshot writer (manifest), the loader, or the journal loader. Default loader. */
  source?: 'manifest' | 'loader' | 'journal';
}

/** load_warnings rows; snapshotId is null for journal loads. */
export function warningRows(snapshotId: string | null, warnings: readonly LoadWarning[]): Row[] {
  return warnings.map((w, ordinal) => {
    const values: Record<string, CellValue> = {
      snapshot_id: snapshotId,
      source: w.source ?? 'loader',
      code: w.code,
      message: w.message,
      file: w.file,
      detail: w.detail === null || w.detail === undefined ? null : JSON.stringify(w.detail),
      ordinal,
    };
    return LOAD_WARNINGS.columns.map((c) => values[c.name] ?? null);
  });
}

const ISO_DATE_TIME =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value as the column's type, or undefined when its JSON type does not fit. */
export function fitValue(type: ColumnType, value: unknown): CellValue | undefined {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'VARCHAR':
      return typeof value === 'string' ? value : undefined;
    case 'DOUBLE':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
    case 'BIGINT':
      return typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined;
    case 'BOOLEAN':
      return typeof value === 'boolean' ? value : undefined;
    case 'TIMESTAMPTZ':
      return typeof value === 'string' && ISO_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value))
        ? value
        : undefined;
    case 'JSON':
      return JSON.stringify(value);
    case 'VARCHAR[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
    case 'TOOL_CALL[]':
    case 'MESSAGE_PART[]':
      throw new Error(`${type} columns are filled in SQL by the trial loader, not from rows`);
  }
}

export interface MapOptions {
  /** Values for context columns (ids of parents, ordinals, flags), by column name. */
  context?: Record<string, CellValue>;
  /** Body keys handled elsewhere (child arrays): neither mapped nor kept in extra. */
  consumed?: readonly string[];
  /** Body keys renamed before mapping (FindingDetail.best_score → score, …). */
  rename?: Readonly<Record<string, string>>;
  /** Values the spec states for absent body keys (spec-defaults.ts); absent otherwise maps to NULL. */
  defaults?: Readonly<Record<string, unknown>>;
  /** Where the object came from, for warnings. */
  file: string | null;
  /** JSON path of the object in its file, for warnings. */
  path: string;
}

/**
 * Collects rows per table and the load warnings found while mapping. Rows are written later, table by
 * table, inside the snapshot's transaction.
 */
export class RowCollector {
  readonly rows = new Map<string, Row[]>();
  readonly warnings: LoadWarning[] = [];

  warn(code: string, message: string, file: string | null, detail: unknown = null): void {
    this.warnings.push({ code, message, file, detail });
  }

  /** Adds a row built from context values only. */
  addValues(table: TableDef, values: Record<string, CellValue>): void {
    this.push(
      table,
      table.columns.map((c) => values[c.name] ?? null),
    );
  }

  /** Maps an API object into a row of `table` (see the module comment). */
  add(table: TableDef, source: unknown, options: MapOptions): void {
    const context = options.context ?? {};
    const extra: Record<string, unknown> = {};
    let body: Record<string, unknown>;
    if (isPlainObject(source)) {
      body = options.rename ? renameKeys(source, options.rename) : source;
    } else {
      body = {};
      extra._value = source;
      this.warn('not_an_object', `${options.path} is not a JSON object; kept in extra._value`, options.file);
    }
    const known = new Set<string>(options.consumed ?? []);
    const row: Row = table.columns.map((column) => {
      if (column.name === 'extra') return null;
      if (column.from === undefined) return context[column.name] ?? null;
      known.add(column.from);
      const given = body[column.from];
      const raw =
        given === undefined && options.defaults !== undefined && Object.hasOwn(options.defaults, column.from)
          ? options.defaults[column.from]
          : given;
      const fitted = fitValue(column.type, raw);
      if (fitted !== undefined) return fitted;
      extra[column.from] = raw;
      this.warn(
        'type_mismatch',
        `${options.path}.${column.from} is not ${column.type}; column ${table.name}.${column.name} left NULL, value kept in extra`,
        options.file,
        { table: table.name, column: column.name, value: raw },
      );
      return null;
    });
    for (const [key, value] of Object.entries(body)) if (!known.has(key)) extra[key] = value;
    const extraIndex = table.columns.findIndex((c) => c.name === 'extra');
    if (extraIndex >= 0 && Object.keys(extra).length > 0) row[extraIndex] = JSON.stringify(extra);
    this.push(table, row);
  }

  /** A child array of a body; anything else but absent/null is reported (kept in the warning) and yields []. */
  array(value: unknown, path: string, file: string): unknown[] {
    if (value === undefined || value === null) return [];
    if (Array.isArray(value)) return value;
    this.warn('type_mismatch', `${path} is not an array; not loaded, value kept in this warning`, file, {
      value,
    });
    return [];
  }

  count(table: string): number {
    return this.rows.get(table)?.length ?? 0;
  }

  private push(table: TableDef, row: Row): void {
    const list = this.rows.get(table.name);
    if (list) list.push(row);
    else this.rows.set(table.name, [row]);
  }
}

function renameKeys(
  source: Record<string, unknown>,
  rename: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    const target = rename[key];
    // A body that already carries the target name keeps both: the unrenamed key then lands in extra.
    out[target !== undefined && !(target in source) ? target : key] = value;
  }
  return out;
}
