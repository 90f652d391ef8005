/**
 * A table of a viewer page: rendered as an HTML table with a "Download CSV" link, and as CSV with the
 * same writer as `airt-report query --format csv` (RFC 4180, formula guard), so a download opens in a
 * spreadsheet exactly as a query's output does.
 */
import { formatResult } from '../warehouse/output-format.js';
import { cellText, Html, markup, type HtmlValue } from './html.js';
import type { Row } from './viewer-database.js';

/** One column: the row key it shows, its heading, and how a cell is drawn (default: shaped text). */
export interface TableColumn {
  key: string;
  label: string;
  cell?: (row: Row) => HtmlValue;
  /** Right-aligned (numbers). */
  numeric?: boolean;
  /**
   * The column's role in the reports' fixed table layout (styles.hbs: `col-text` free text gets the
   * room, `col-id` identifiers, `col-date`); none: an equal share of what is left.
   */
  role?: 'text' | 'id' | 'date';
}

/** The header cell's classes: numbers right-aligned, the role's width. */
function headerClass(column: TableColumn): string {
  return [column.numeric ? 'num' : '', column.role ? `col-${column.role}` : ''].filter(Boolean).join(' ');
}

export interface ViewTable {
  /** Stable id: the `download` parameter that asks for this table as CSV. */
  id: string;
  caption: string;
  columns: readonly TableColumn[];
  rows: readonly Row[];
}

/** A cell's value as CSV and title text: lists and objects as JSON, like the query command. */
function plain(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'object') return JSON.stringify(value);
  return value;
}

/** The table as CSV text: its columns by key, every row given. */
export function tableCsv(table: ViewTable): string {
  return formatResult(
    {
      columns: table.columns.map((column) => ({ name: column.key, type: 'VARCHAR', json: false })),
      rows: table.rows.map((row) => table.columns.map((column) => plain(row[column.key]))),
    },
    'csv',
  );
}

/** The table as HTML; `csvHref` is the link that downloads it. */
export function tableHtml(table: ViewTable, csvHref: string, empty = 'Nothing to show.'): Html {
  const head = table.columns.map(
    (column) =>
      markup`<th scope="col"${headerClass(column) === '' ? '' : markup` class="${headerClass(column)}"`}>${column.label}</th>`,
  );
  const body =
    table.rows.length === 0
      ? markup`<tr>
          <td colspan="${table.columns.length}" class="muted">${empty}</td>
        </tr>`
      : table.rows.map(
          (row) =>
            markup`<tr>
              ${table.columns.map(
                (column) =>
                  markup`<td${column.numeric ? new Html(' class="num"') : ''}>${
                    column.cell ? column.cell(row) : cellText(plain(row[column.key]))
                  }</td>`,
              )}
            </tr>`,
        );
  return markup`<div class="table-block" id="table-${table.id}">
    <table>
      <caption>
        ${table.caption}
      </caption>
      <thead>
        <tr>
          ${head}
        </tr>
      </thead>
      <tbody>
        ${body}
      </tbody>
    </table>
    <p class="download"><a href="${csvHref}" download="${table.id}.csv">Download CSV: ${table.caption}</a></p>
  </div>`;
}
