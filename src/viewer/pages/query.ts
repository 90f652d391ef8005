/**
 * The query page: the shipped named queries (queries/*.sql, as `airt-report query @name` runs them)
 * and a read-only SELECT typed in a GET form, each shown as a table of at most the row cap (default
 * 1,000 rows) and stopped at the time limit (default 5 s).
 */
import { UsageError } from '../../errors.js';
import { listNamedQueries, readNamedQuery } from '../../warehouse/named-queries.js';
import { href, markup } from '../html.js';
import { runReadOnlySelect } from '../read-only-select.js';
import { tableHtml, type ViewTable } from '../table.js';
import { csvHref, PageError, param, type PageContext, type PageResult } from './page.js';

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
  const { rowCap, timeLimitMs } = context.limits;
  const tables: ViewTable[] = [];
  let outcome = markup``;
  if (sql !== undefined) {
    const query = sql;
    try {
      const result = await context.db.exclusive(timeLimitMs, (conn) =>
        runReadOnlySelect(conn, query, rowCap),
      );
      const table: ViewTable = {
        id: 'result',
        caption: label,
        columns: result.columns.map((key) => ({ key, label: key })),
        rows: result.rows,
      };
      tables.push(table);
      outcome = markup`${result.truncated ? markup`<p class="note">The first ${rowCap} rows are shown (and downloaded); the command-line query writes all of them.</p>` : ''}
      ${tableHtml(table, csvHref(context, table), 'No rows.')}`;
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      outcome = markup`<p class="error-box">${error.message}</p>`;
    }
  }
  const body = markup`<form class="query" method="get" action="/query" aria-label="Run a query">
      <label for="sql"
        >Read-only SELECT (at most ${rowCap} rows, ${timeLimitMs / 1000} s)</label
      >
      <textarea id="sql" name="sql" rows="6" spellcheck="false">${typed ?? ''}</textarea>
      <button type="submit">Run</button>
    </form>
    ${outcome}
    <h2>Named queries</h2>
    <ul>
      ${queries.map((q) => markup`<li><a href="${href('/query', { name: q.name })}">@${q.name}</a>: ${q.answers}</li>`)}
    </ul>`;
  return { title: 'Query', body, tables };
}
