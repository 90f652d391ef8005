/**
 * The query page: the shipped named queries (queries/*.sql, as `airt-report query @name` runs them)
 * and a read-only SELECT typed in a GET form, each shown as a table of at most QUERY_ROW_CAP rows and
 * stopped after QUERY_TIME_LIMIT_MS.
 */
import { UsageError } from '../../errors.js';
import { listNamedQueries, readNamedQuery } from '../../warehouse/named-queries.js';
import { href, html } from '../html.js';
import { runReadOnlySelect } from '../read-only-select.js';
import { tableHtml, type ViewTable } from '../table.js';
import { csvHref, PageError, param, type PageContext, type PageResult } from './page.js';

export const QUERY_ROW_CAP = 1000;
export const QUERY_TIME_LIMIT_MS = 5000;

export async function queryPage(context: PageContext): Promise<PageResult> {
  const name = param(context, 'name', 64);
  const typed = param(context, 'sql', 20_000);
  const queries = await listNamedQueries();
  let sql = typed;
  let label = 'Query';
  if (name !== undefined) {
    const named = await readNamedQuery(name).catch(() => {
      throw new PageError(404, `No named query ${name}.`);
    });
    sql = named.sql;
    label = `@${named.name}: ${named.answers}`;
  }
  const tables: ViewTable[] = [];
  let outcome = html``;
  if (sql !== undefined) {
    const query = sql;
    try {
      const result = await context.db.exclusive(QUERY_TIME_LIMIT_MS, (conn) =>
        runReadOnlySelect(conn, query, QUERY_ROW_CAP),
      );
      const table: ViewTable = {
        id: 'result',
        caption: label,
        columns: result.columns.map((key) => ({ key, label: key })),
        rows: result.rows,
      };
      tables.push(table);
      outcome = html`${result.truncated ? html`<p class="note">The first ${QUERY_ROW_CAP} rows are shown (and downloaded); the command-line query writes all of them.</p>` : ''}
      ${tableHtml(table, csvHref(context, table), 'No rows.')}`;
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      outcome = html`<p class="error-box">${error.message}</p>`;
    }
  }
  const body = html`<form class="query" method="get" action="/query" aria-label="Run a query">
      <label for="sql"
        >Read-only SELECT (at most ${QUERY_ROW_CAP} rows, ${QUERY_TIME_LIMIT_MS / 1000} s)</label
      >
      <textarea id="sql" name="sql" rows="6" spellcheck="false">${typed ?? ''}</textarea>
      <button type="submit">Run</button>
    </form>
    ${outcome}
    <h2>Named queries</h2>
    <ul>
      ${queries.map((q) => html`<li><a href="${href('/query', { name: q.name })}">@${q.name}</a>: ${q.answers}</li>`)}
    </ul>`;
  return { title: 'Query', body, tables };
}
