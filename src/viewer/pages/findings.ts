/**
 * The findings list: a GET filter form (project, snapshot, severity, goal category, framework and
 * category state, triage status, attack, transform, text), sortable column headings, and pages of
 * PAGE_SIZE rows fetched with LIMIT/OFFSET. Its CSV download holds every matching row up to
 * CSV_ROW_CAP, not just the page shown.
 */
import { COMPLIANCE_STATES } from '../../report/model.js';
import { SEVERITIES } from '../../severity.js';
import { FRAMEWORK_KEYS, frameworkTitle } from '../framework-tags.js';
import {
  FILTER_CHOICES_SQL,
  findingsCountSql,
  findingsPageSql,
  SORT_KEYS,
  type FindingFilters,
} from '../findings-query.js';
import { asText, cellText, href, type Html, markup } from '../html.js';
import type { Row, ViewerDatabase } from '../viewer-database.js';
import { tableHtml, type TableColumn, type ViewTable } from '../table.js';
import { choice, csvHref, pageNumber, param, selfHref, type PageContext, type PageResult } from './page.js';

export const PAGE_SIZE = 50;
/** Rows a findings CSV holds at most. */
export const CSV_ROW_CAP = 100_000;

const TEXT_FILTERS = ['project', 'snapshot', 'category', 'status', 'attack', 'transform', 'tag'] as const;

function readFilters(context: PageContext): FindingFilters {
  const filters: FindingFilters = {
    severity: choice(context, 'severity', SEVERITIES),
    framework: choice(context, 'framework', FRAMEWORK_KEYS),
    state: choice(context, 'state', COMPLIANCE_STATES),
    q: param(context, 'q', 200),
  };
  for (const name of TEXT_FILTERS) filters[name] = param(context, name);
  return filters;
}

/** The values the filter form offers (kept while the viewer runs: the database cannot change). */
export function filterChoices(db: ViewerDatabase): Promise<Row[]> {
  return db.memo('filter-choices', () => db.rows(FILTER_CHOICES_SQL));
}

function findingLink(row: Record<string, unknown>): Html {
  return markup`<a
    href="${href('/finding', { snapshot: asText(row.snapshot_id), run: asText(row.attack_run_id) })}"
    >${cellText(row.goal)}</a
  >`;
}

const COLUMNS: readonly TableColumn[] = [
  {
    key: 'severity',
    label: 'Severity',
    cell: (row) => markup`<span class="pill sev-${pill(row.severity)}">${asText(row.severity ?? '?')}</span>`,
  },
  { key: 'best_score', label: 'Score', numeric: true },
  { key: 'project_key', label: 'Project' },
  { key: 'goal', label: 'Goal', cell: findingLink, role: 'text' },
  { key: 'goal_category', label: 'Category' },
  { key: 'attack_name', label: 'Attack' },
  { key: 'finding_status', label: 'Status' },
  { key: 'assessment_name', label: 'Assessment' },
];

/** Extra columns only the CSV carries: ids and the full texts the list shortens. */
const CSV_COLUMNS: readonly TableColumn[] = [
  ...COLUMNS,
  { key: 'snapshot_id', label: 'Snapshot' },
  { key: 'attack_run_id', label: 'Attack run' },
  { key: 'is_open', label: 'Open' },
  { key: 'candidate', label: 'Candidate' },
  { key: 'response', label: 'Response' },
];

function pill(severity: unknown): string {
  return SEVERITIES.find((s) => s === severity) ?? 'unknown';
}

function select(
  name: string,
  label: string,
  options: readonly string[],
  current: string | undefined,
  titles?: (v: string) => string,
): Html {
  return markup`<label
    >${label}<select name="${name}">
      <option value="">any</option>
      ${options.map(
        (value) =>
          markup`<option value="${value}" ${value === current ? markup` selected` : ''}>
            ${titles ? titles(value) : value}
          </option>`,
      )}
    </select></label
  >`;
}

async function filterForm(
  context: PageContext,
  filters: FindingFilters,
  sort: string,
  order: string,
): Promise<Html> {
  const choices = await filterChoices(context.db);
  const of = (field: string): string[] =>
    choices.filter((row) => row.field === field).map((row) => asText(row.value));
  return markup`<form class="filters" method="get" action="/findings" aria-label="Filter findings">
    ${select('project', 'Project', of('project'), filters.project)}
    ${select('snapshot', 'Snapshot (default: newest)', of('snapshot'), filters.snapshot)}
    ${select('severity', 'Severity', SEVERITIES, filters.severity)}
    ${select('category', 'Goal category', of('category'), filters.category)}
    ${select('framework', 'Framework', FRAMEWORK_KEYS, filters.framework, frameworkTitle)}
    ${select('state', 'Category state', COMPLIANCE_STATES, filters.state)}
    ${select('status', 'Triage status', of('status'), filters.status)}
    ${select('attack', 'Attack', of('attack'), filters.attack)}
    ${select('transform', 'Transform', of('transform'), filters.transform)}
    ${filters.tag === undefined ? '' : markup`<input type="hidden" name="tag" value="${filters.tag}">`}
    <label>Search goal, candidate, response<input type="search" name="q" value="${filters.q ?? ''}"></label>
    <input type="hidden" name="sort" value="${sort}"><input type="hidden" name="order" value="${order}">
    <button type="submit">Apply</button> <a href="/findings">Clear</a>
  </form>`;
}

function sortLinks(context: PageContext, sort: string, order: string): Html {
  return markup`<p>
    Sort by:
    ${SORT_KEYS.map((key, index) => {
      const next = key === sort && order === 'desc' ? 'asc' : 'desc';
      const mark = key === sort ? (order === 'desc' ? ' ↓' : ' ↑') : '';
      const current = key === sort ? markup` aria-current="true"` : '';
      const link = selfHref(context, { sort: key, order: next, page: undefined });
      return markup`${index === 0 ? '' : ' · '}<a href="${link}"${current}>${key}${mark}</a>`;
    })}
  </p>`;
}

function pager(context: PageContext, page: number, total: number): Html {
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const previous =
    page > 1 ? markup`<a href="${selfHref(context, { page: page - 1 })}" rel="prev">Previous</a>` : '';
  const next =
    page < pages ? markup`<a href="${selfHref(context, { page: page + 1 })}" rel="next">Next</a>` : '';
  return markup`<nav class="pages" aria-label="Pages">
    ${previous}<span>Page ${page} of ${pages} (${total} findings)</span>${next}
  </nav>`;
}

export async function findingsPage(context: PageContext): Promise<PageResult> {
  const filters = readFilters(context);
  const sort = choice(context, 'sort', SORT_KEYS) ?? 'severity';
  const order = choice(context, 'order', ['asc', 'desc'] as const) ?? 'desc';
  const page = pageNumber(context);
  const csv = context.download === 'findings';
  const query = findingsPageSql({
    filters,
    sort,
    descending: order === 'desc',
    limit: csv ? CSV_ROW_CAP : PAGE_SIZE,
    offset: csv ? 0 : (page - 1) * PAGE_SIZE,
  });
  const rows = await context.db.rows(query.sql, query.params);
  const table: ViewTable = {
    id: 'findings',
    caption: 'Findings',
    columns: csv ? CSV_COLUMNS : COLUMNS,
    rows,
  };
  if (csv) return { title: 'Findings', body: markup``, tables: [table] };
  const count = findingsCountSql(filters);
  const total = Number((await context.db.rows(count.sql, count.params))[0]?.n ?? 0);
  const body = markup`${await filterForm(context, filters, sort, order)}
  ${filters.tag === undefined ? '' : markup`<p>Compliance category: <code>${filters.tag}</code> (${frameworkTitle(filters.framework ?? '')}). <a href="${selfHref(context, { tag: undefined, page: undefined })}">Any category</a></p>`}
  ${sortLinks(context, sort, order)}
  ${tableHtml(table, csvHref(context, table), 'No finding matches these filters.')}
  ${pager(context, page, total)}`;
  return { title: 'Findings', body, tables: [table] };
}
