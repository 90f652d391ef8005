/**
 * A plain-text table for terminals: left-aligned columns separated by two spaces, every cell made
 * terminal-safe and cut to its column's maximum width. Deliberately small: the triage and credits
 * outputs are a few rows, read by a person.
 */
import { terminalSafe } from './terminal-text.js';

export interface TableColumn {
  header: string;
  /** Longest a cell may be before it is cut with `…`; default 60. */
  maxWidth?: number;
}

/** Renders rows under a header line; returns the text with a trailing newline. */
export function renderTable(columns: readonly TableColumn[], rows: readonly (readonly string[])[]): string {
  const cells = rows.map((row) =>
    columns.map((column, i) => terminalSafe(row[i] ?? '', column.maxWidth ?? 60)),
  );
  const widths = columns.map((column, i) =>
    Math.max(width(column.header), ...cells.map((row) => width(row[i] ?? ''))),
  );
  const line = (values: readonly string[]): string =>
    values
      .map((value, i) =>
        i === values.length - 1 ? value : value.padEnd(value.length + (widths[i] ?? 0) - width(value)),
      )
      .join('  ')
      .trimEnd();
  return `${[line(columns.map((c) => c.header)), ...cells.map(line)].join('\n')}\n`;
}

/** Two columns without a header: `label  value`, for one record. */
export function renderKeyValues(pairs: readonly (readonly [string, string])[], maxValueWidth = 200): string {
  const labelWidth = Math.max(...pairs.map(([label]) => width(label)));
  return pairs
    .map(([label, value]) => `${label.padEnd(labelWidth)}  ${terminalSafe(value, maxValueWidth)}`.trimEnd())
    .join('\n')
    .concat('\n');
}

function width(text: string): number {
  return [...text].length;
}
