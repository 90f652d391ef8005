/**
 * The static reports, rendered on request from the same model and template as `airt-report report`
 * (HTML, self-contained, no script): /report/executive, /report/compliance (?project, ?snapshot) and
 * /report/portfolio.
 */
import { buildModel } from '../../report/build-model.js';
import { REPORT_KINDS, type ReportKind } from '../../report/model.js';
import { renderHtml } from '../../report/render.js';
import { markup } from '../html.js';
import { PAGE_TIME_LIMIT_MS } from '../viewer-database.js';
import { PageError, param, type PageContext, type PageResult } from './page.js';

export async function reportPage(context: PageContext): Promise<PageResult> {
  const kind = context.pathname.slice('/report/'.length);
  if (!(REPORT_KINDS as readonly string[]).includes(kind))
    throw new PageError(404, `No report kind ${kind}.`);
  const project = param(context, 'project');
  const snapshot = param(context, 'snapshot');
  if (kind !== 'portfolio' && project === undefined) {
    throw new PageError(400, `The ${kind} report needs the project parameter.`);
  }
  const model = await context.db.exclusive(PAGE_TIME_LIMIT_MS, (conn) =>
    buildModel(conn, { kind: kind as ReportKind, project, snapshot }),
  );
  const { html: document } = await renderHtml(model);
  return { title: `${kind} report`, body: markup``, tables: [], document };
}
