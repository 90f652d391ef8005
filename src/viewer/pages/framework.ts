/**
 * One framework of one project: the compliance report's section (its model builder, its category
 * states, its charts), each category linking to the findings whose attack runs carry its tag, so a
 * failing category leads to the findings behind it.
 */
import { formatCount, formatPercent } from '../../number-format.js';
import { chartFigures } from '../charts.js';
import { frameworkModel } from '../page-models.js';
import { FRAMEWORK_KEYS, frameworkTitle } from '../framework-tags.js';
import { asText, cellText, href, markup } from '../html.js';
import { tableHtml, type ViewTable } from '../table.js';
import { PAGE_TIME_LIMIT_MS } from '../viewer-database.js';
import { choice, csvHref, PageError, param, type PageContext, type PageResult } from './page.js';

export async function frameworkPage(context: PageContext): Promise<PageResult> {
  const project = param(context, 'project');
  const framework = choice(context, 'framework', FRAMEWORK_KEYS);
  const snapshot = param(context, 'snapshot');
  if (project === undefined || framework === undefined) {
    throw new PageError(400, 'A framework page needs the project and framework parameters.');
  }
  const { model, snapshotId } = await context.db.memo(
    JSON.stringify(['framework', project, snapshot ?? null, framework]),
    () =>
      context.db.exclusive(PAGE_TIME_LIMIT_MS, (conn) => frameworkModel(conn, project, snapshot, framework)),
  );
  const section = model.frameworks[0];
  const findingsOf = (tag: string, state?: string): string =>
    href('/findings', { project: model.project.key, snapshot: snapshotId, framework, tag, state });
  const rows = (section?.categories ?? []).map((category) => ({ ...category, title: category.title ?? '' }));
  const table: ViewTable = {
    id: 'categories',
    caption: `${frameworkTitle(framework)} categories`,
    columns: [
      {
        key: 'tag',
        label: 'Category',
        cell: (r) => markup`<a href="${findingsOf(asText(r.tag))}">${cellText(r.tag)}</a>`,
      },
      { key: 'title', label: 'Title' },
      {
        key: 'state',
        label: 'State',
        cell: (r) =>
          r.state === 'failing'
            ? markup`<a class="pill state-failing" href="${findingsOf(asText(r.tag), 'failing')}"
                >failing: findings</a
              >`
            : markup`<span class="pill state-${asText(r.state)}">${asText(r.state)}</span>`,
      },
      {
        key: 'maxAsr',
        label: 'Max ASR',
        numeric: true,
        cell: (r) => formatPercent(r.maxAsr as number | null),
      },
      {
        key: 'totalTrials',
        label: 'Trials',
        numeric: true,
        cell: (r) => formatCount(r.totalTrials as number | null),
      },
      { key: 'maxSeverity', label: 'Max severity' },
      { key: 'assessmentsTested', label: 'Assessments', numeric: true },
    ],
    rows,
  };
  const coverage =
    section === undefined
      ? markup`<p class="empty">No assessment of this project covers ${frameworkTitle(framework)}.</p>`
      : markup`<p>
          ${formatCount(section.testedCategories)} of ${formatCount(section.totalCategories)} categories
          tested (${formatPercent(section.coverage)}); a category passes only with at least
          ${section.minTrials} trials and no success.
        </p>`;
  const body = markup`<p>
      Project
      <a href="${href('/findings', { project: model.project.key })}"
        >${cellText(model.project.name ?? model.project.key)}</a
      >, snapshot <code>${snapshotId}</code>.
      <a href="${href('/report/compliance', { project: model.project.key, snapshot: snapshotId })}"
        >Compliance report</a
      >
    </p>
    ${coverage} ${tableHtml(table, csvHref(context, table), 'No category.')}
    ${await context.db.memo(JSON.stringify(['framework-charts', project, snapshot ?? null, framework]), () =>
      chartFigures(model, (name) => name.startsWith('compliance-heatmap') || name.includes('states')),
    )}`;
  return {
    title: `${frameworkTitle(framework)}: ${model.project.name ?? model.project.key}`,
    body,
    tables: [table],
  };
}
